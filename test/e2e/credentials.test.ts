/**
 * The credential test button, through the server: POST /rest/credentials/test with the
 * body the editor sends ({credentials: {id, name, type, data}}). The right key passes,
 * a wrong key fails, for each of the three credential types.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { useE2e, type CredentialType } from './support/harness';

const e2e = useE2e();
const { ctx } = e2e;

interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

async function testCredential(type: CredentialType, data: Record<string, unknown>): Promise<TestResult> {
	const ref = ctx.credentials[type];
	return await e2e.rest.post<TestResult>('/rest/credentials/test', { credentials: { id: ref.id, name: ref.name, type, data } });
}

/** What the editor holds for a saved credential: secrets come back redacted. */
async function editorData(type: CredentialType): Promise<Record<string, unknown>> {
	const saved = await e2e.rest.get<{ data: Record<string, unknown> }>(`/rest/credentials/${ctx.credentials[type].id}?includeData=true`);
	return saved.data;
}

const SECRET_FIELD: Record<CredentialType, string> = {
	messagingBearerApi: 'accessToken',
	messagingAuthorizationKeyApi: 'apiKey',
	messagingXApiKeyApi: 'apiKey',
};

beforeEach(async () => {
	await e2e.emulator.reset();
});

describe.each(Object.keys(SECRET_FIELD) as CredentialType[])('%s', (type) => {
	test('the saved credential (redacted in the editor, as the Test button sends it) tests OK', async () => {
		const data = await editorData(type);
		expect(JSON.stringify(data)).not.toContain(ctx.credentialData[type][SECRET_FIELD[type] as keyof (typeof ctx.credentialData)[typeof type]]);
		const result = await testCredential(type, data);
		expect(result, JSON.stringify(result)).toMatchObject({ status: 'OK' });
	});

	test('the right key tests OK, and the service saw exactly the documented auth header', async () => {
		const result = await testCredential(type, { ...ctx.credentialData[type] });
		expect(result, JSON.stringify(result)).toMatchObject({ status: 'OK' });
		const requests = await e2e.emulator.apiRequests();
		expect(requests.length).toBeGreaterThanOrEqual(1);
		const request = requests[requests.length - 1];
		if (type === 'messagingBearerApi') {
			// Every base URL that is set, once: the lists read, the sends given an empty body.
			expect(requests.map((r) => r.api).sort()).toEqual(['plantsList', 'send', 'templateSend', 'templates']);
			for (const r of requests) {
				expect(r.headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);
				if (r.method === 'POST') expect(r.body).toEqual({});
			}
		} else if (type === 'messagingAuthorizationKeyApi') {
			expect(request.headers.authorization).toBe(ctx.tokens.dashboardKey);
			expect(request.api).toBe('dashboard');
		} else {
			expect(request.headers['x-api-key']).toBe(ctx.tokens.alternativeKey);
			expect(request.api).toBe('alternative');
		}
		// Testing a key never delivers a message.
		expect((await e2e.emulator.state()).deliveries).toBe(0);
	});

	test('a wrong key tests as an error', async () => {
		const result = await testCredential(type, { ...ctx.credentialData[type], [SECRET_FIELD[type]]: 'wrong-key-123' });
		expect(result.status).toBe('Error');
		expect(result.message).not.toBe('');
		expect(result.message).not.toContain('wrong-key-123');
	});
});

test('a Bearer credential with only the sandbox URL tests against the sandbox', async () => {
	const { accessToken, sandboxBaseUrl } = ctx.credentialData.messagingBearerApi;
	const ok = await testCredential('messagingBearerApi', { accessToken, sandboxBaseUrl });
	expect(ok, JSON.stringify(ok)).toMatchObject({ status: 'OK' });
	const requests = await e2e.emulator.apiRequests();
	expect(requests[requests.length - 1]).toMatchObject({ api: 'plantsList', method: 'GET' });
	const wrong = await testCredential('messagingBearerApi', { accessToken: 'nope', sandboxBaseUrl });
	expect(wrong.status).toBe('Error');
});

describe('plain http:// to a non-loopback host (contract: refused with a clear error)', () => {
	test.each(['messagingAuthorizationKeyApi', 'messagingXApiKeyApi'] as const)('%s: the test refuses it without connecting', async (type) => {
		const data =
			type === 'messagingAuthorizationKeyApi'
				? { apiKey: 'some-key', dashboardUrl: 'http://example.invalid/dash' }
				: { apiKey: 'some-key', apiUrl: 'http://example.invalid' };
		const result = await testCredential(type, data);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/https/);
	});

	// The token must not leave over plain http to a remote host, even for a test.
	test('messagingBearerApi: the test refuses it without connecting', async () => {
		const result = await testCredential('messagingBearerApi', { accessToken: 'some-token', templatesBaseUrl: 'http://example.invalid/api:x' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/https/);
	});
});
