import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';

import {
	callCredentialTest,
	callListSearch,
	callLoadOptions,
	callResourceMapper,
	type LoadedPackage,
} from './index';
import {
	DISABLED_TOKEN,
	FIXTURE_NODE_TYPE,
	VALID_API_KEY,
	VALID_TOKEN,
	loadFixturePackage,
	startEchoServer,
	type EchoServer,
} from './fixtures';

let server: EchoServer;
let pkg: LoadedPackage;
let credentials: { harnessFixtureApi: { baseUrl: string; token: string } };

beforeAll(async () => {
	server = await startEchoServer();
	pkg = loadFixturePackage();
	credentials = { harnessFixtureApi: { baseUrl: server.baseUrl, token: VALID_TOKEN } };
});

afterAll(async () => {
	await server?.close();
});

beforeEach(() => {
	server.requests.length = 0;
});

describe('editor methods through LoadOptionsContext', () => {
	test('callListSearch passes filter and pagination token, authenticated', async () => {
		const first = await callListSearch({
			nodeType: FIXTURE_NODE_TYPE,
			method: 'searchThings',
			credentials,
			filter: 'a',
			package: pkg,
		});
		expect(first.results).toEqual([
			{ name: 'alpha', value: 'thing-1' },
			{ name: 'beta', value: 'thing-2' },
		]);
		expect(first.paginationToken).toBe('1');

		const second = await callListSearch({
			nodeType: 'harnessFixture',
			method: 'searchThings',
			credentials,
			filter: 'a',
			paginationToken: first.paginationToken,
			package: pkg,
		});
		expect(second.results.map((r) => r.name)).toEqual(['gamma', 'delta']);

		expect(server.requests.map((r) => r.query)).toEqual([
			{ filter: 'a' },
			{ filter: 'a', page: '1' },
		]);
		for (const request of server.requests) {
			expect(request.headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
		}
	});

	test('callResourceMapper sees the current parameters and dedupes fields like the server', async () => {
		const result = await callResourceMapper({
			nodeType: FIXTURE_NODE_TYPE,
			method: 'getMappingFields',
			credentials,
			parameters: { table: 'customers' },
			package: pkg,
		});
		expect(result.fields.map((f) => [f.id, f.required])).toEqual([
			['customers_id', true],
			['email', false],
		]);
		expect(server.requests[0].query).toEqual({ table: 'customers' });
	});

	test('callResourceMapper falls back to parameter defaults', async () => {
		await callResourceMapper({
			nodeType: FIXTURE_NODE_TYPE,
			method: 'getMappingFields',
			credentials,
			parameters: {},
			package: pkg,
		});
		expect(server.requests[0].query).toEqual({ table: 'contacts' });
	});

	test('callLoadOptions', async () => {
		const options = await callLoadOptions({
			nodeType: FIXTURE_NODE_TYPE,
			method: 'getColors',
			credentials,
			package: pkg,
		});
		expect(options).toEqual([
			{ name: 'RED', value: 'red' },
			{ name: 'GREEN', value: 'green' },
		]);
	});

	test('an unknown method is an error', async () => {
		await expect(
			callListSearch({ nodeType: FIXTURE_NODE_TYPE, method: 'nope', credentials, package: pkg }),
		).rejects.toThrow(/does not have method defined/);
	});

	test('an authentication failure surfaces as NodeApiError', async () => {
		await expect(
			callLoadOptions({
				nodeType: FIXTURE_NODE_TYPE,
				method: 'getColors',
				credentials: { harnessFixtureApi: { baseUrl: server.baseUrl, token: 'wrong' } },
				package: pkg,
			}),
		).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '401' });
	});
});

describe('callCredentialTest', () => {
	test("credential type's own test request: authenticate applied, expressions resolved", async () => {
		const ok = await callCredentialTest({
			credentialType: 'harnessFixtureApi',
			data: { baseUrl: server.baseUrl, token: VALID_TOKEN },
			package: pkg,
		});
		expect(ok).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0].path).toBe('/me');
		expect(server.requests[0].headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
		expect(server.requests[0].headers['x-api-version']).toBe('v1');
	});

	test('a rejected token fails with the HTTP status text', async () => {
		const bad = await callCredentialTest({
			credentialType: 'harnessFixtureApi',
			data: { baseUrl: server.baseUrl, token: 'wrong' },
			package: pkg,
		});
		expect(bad).toEqual({ status: 'Error', message: 'Unauthorized' });
	});

	test('responseSuccessBody rules apply', async () => {
		const disabled = await callCredentialTest({
			credentialType: 'harnessFixtureApi',
			data: { baseUrl: server.baseUrl, token: DISABLED_TOKEN },
			package: pkg,
		});
		expect(disabled).toEqual({ status: 'Error', message: 'This account is disabled' });
	});

	test('a node testedBy function runs with a CredentialTestContext', async () => {
		const ok = await callCredentialTest({
			nodeType: FIXTURE_NODE_TYPE,
			credentialType: 'harnessFixtureTestedApi',
			data: { baseUrl: server.baseUrl, apiKey: VALID_API_KEY },
			package: pkg,
		});
		expect(ok).toEqual({ status: 'OK', message: 'Authenticated as fixture-user' });
		expect(server.requests[0].headers['x-api-key']).toBe(VALID_API_KEY);

		const bad = await callCredentialTest({
			credentialType: 'harnessFixtureTestedApi',
			data: { baseUrl: server.baseUrl, apiKey: 'nope' },
			package: pkg,
		});
		expect(bad.status).toBe('Error');
		expect(bad.message).toMatch(/^Key rejected: /);
	});
});
