/**
 * n8n's HTTP Request node with this package's credential types as *predefined credentials*
 * (Authentication → Predefined Credential Type), in the engine, against the emulator: n8n applies
 * each credential's `authenticate` (a function that sets the one header) to the node's request, so users can call an
 * endpoint the Messaging node does not cover with the same credential.
 *
 * Needs the pinned n8n (scripts/install-n8n.sh, also used by the e2e suite and the benchmark);
 * without it this file is skipped, and says so. CI runs it again once the e2e suite has installed
 * n8n, with REQUIRE_N8N=1: there a missing n8n fails the file instead of skipping it.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { HTTP_REQUEST_TYPE, installedN8n, loadHttpRequestNode, runNode } from '../harness';
import type { Emulator } from '../emulator';
import { useEmulator } from './setup';

const n8nDir = installedN8n();
const emulator = useEmulator();

interface Case {
	credentialType: 'messagingBearerApi' | 'messagingAuthorizationKeyApi' | 'messagingXApiKeyApi';
	url: (emulator: Emulator) => string;
	body: IDataObject;
	/** The one header the service reads the secret from (lower-case, as Node gives it). */
	header: string;
	expected: (emulator: Emulator) => string;
	secretField: 'accessToken' | 'apiKey';
}

const CASES: Case[] = [
	{
		credentialType: 'messagingBearerApi',
		url: (e) => `${e.credentials.messagingBearerApi.sendBaseUrl}/send`,
		body: { phone: '+4915100000001', text: 'via the HTTP Request node' },
		header: 'authorization',
		expected: (e) => `Bearer ${e.tokens.bearer}`,
		secretField: 'accessToken',
	},
	{
		credentialType: 'messagingAuthorizationKeyApi',
		url: (e) => `${e.credentials.messagingAuthorizationKeyApi.dashboardUrl}/api/messaging/messages/v2.0.0/send`,
		body: { to: '+4915100000002', text: 'via the HTTP Request node' },
		header: 'authorization',
		expected: (e) => e.tokens.dashboardKey,
		secretField: 'apiKey',
	},
	{
		credentialType: 'messagingXApiKeyApi',
		url: (e) => `${e.credentials.messagingXApiKeyApi.apiUrl}/v1/messages`,
		body: { to: '+4915100000003', message: 'via the HTTP Request node' },
		header: 'x-api-key',
		expected: (e) => e.tokens.alternativeKey,
		secretField: 'apiKey',
	},
];

async function runHttpRequestNode(testCase: Case, credentialData: IDataObject) {
	const { pkg, version } = loadHttpRequestNode(n8nDir!);
	return await runNode({
		node: {
			type: HTTP_REQUEST_TYPE,
			typeVersion: version,
			name: 'HTTP Request',
			credentials: [testCase.credentialType],
			parameters: {
				method: 'POST',
				url: testCase.url(emulator),
				authentication: 'predefinedCredentialType',
				nodeCredentialType: testCase.credentialType,
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: JSON.stringify(testCase.body),
			},
		},
		items: [{}],
		credentials: { [testCase.credentialType]: credentialData as never },
		package: pkg,
	});
}

describe.skipIf(!n8nDir)(`HTTP Request node with a predefined credential of this package${n8nDir ? '' : ' (skipped: n8n is not installed; run scripts/install-n8n.sh)'}`, () => {
	it.each(CASES)('$credentialType: the request carries the one auth header and is delivered', async (testCase) => {
		const result = await runHttpRequestNode(testCase, emulator.credentials[testCase.credentialType]);

		expect(result.error).toBeUndefined();
		const [request] = emulator.requests;
		expect(emulator.requests).toHaveLength(1);
		expect(request.headers[testCase.header]).toBe(testCase.expected(emulator));
		// The one header: the secret is not also sent under the other header name.
		expect(request.headers[testCase.header === 'authorization' ? 'x-api-key' : 'authorization']).toBeUndefined();
		expect(request.outcome).toBe('delivered');
		expect(emulator.deliveries).toHaveLength(1);
		expect(result.items).toHaveLength(1);
	});

	it.each(CASES)('$credentialType: a wrong secret is sent as given and refused', async (testCase) => {
		const data = { ...emulator.credentials[testCase.credentialType], [testCase.secretField]: 'not-the-right-secret' };
		const result = await runHttpRequestNode(testCase, data);

		expect(result.error).toBeDefined();
		const [request] = emulator.requests;
		expect(String(request.headers[testCase.header])).toContain('not-the-right-secret');
		expect(request.status).toBe(401);
		expect(emulator.deliveries).toHaveLength(0);
	});
});
