/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code; wrong and short keys for the credential tests (README: Lint) */
import { describe, expect, it } from 'vitest';

import { MessagingAuthorizationKeyApi } from '../../credentials/MessagingAuthorizationKeyApi.credentials';
import { MessagingBearerApi } from '../../credentials/MessagingBearerApi.credentials';
import { MessagingXApiKeyApi } from '../../credentials/MessagingXApiKeyApi.credentials';
import { callCredentialTest, loadPackage } from '../harness';
import { APPOINTMENT_REMINDER, mapperValue, runOn, sendTemplate, templateById, useEmulator } from './setup';

const emulator = useEmulator();

describe('authenticate', () => {
	// n8n (2.41) counts a credential type as usable by the HTTP Request node, and gives the node
	// its Custom API Call option, only when `authenticate` is an own property of the instance it
	// loads and serialises; a class method is dropped there, and then the editor takes Operation
	// for the credential's auth field and hides the Resource and Operation selectors.
	it.each([
		['messagingBearerApi', new MessagingBearerApi(), 'Authorization', 'Bearer s3cret'],
		['messagingAuthorizationKeyApi', new MessagingAuthorizationKeyApi(), 'Authorization', 's3cret'],
		['messagingXApiKeyApi', new MessagingXApiKeyApi(), 'X-API-Key', 's3cret'],
	])('%s sets its one header and is an own property', async (_name, credential, header, value) => {
		expect(Object.keys({ ...credential })).toContain('authenticate'); // what n8n's toJSON copies
		expect(typeof credential.authenticate).toBe('function');
		const authenticate = credential.authenticate as (c: object, o: object) => Promise<{ headers: object }>;
		const options = await authenticate({ accessToken: 's3cret', apiKey: 's3cret' }, { url: 'x', headers: { Accept: 'application/json' } });
		expect(options.headers).toEqual({ Accept: 'application/json', [header]: value });
	});
});

describe('a key pasted with spaces around it or with "Bearer " goes out as the key (outside review: "Bearer Bearer key" came back 401, and the hint said to replace a good key)', () => {
	it.each([
		['messagingBearerApi', new MessagingBearerApi(), 'Authorization', 'Bearer s3cret-0123456789'],
		['messagingAuthorizationKeyApi', new MessagingAuthorizationKeyApi(), 'Authorization', 's3cret-0123456789'],
		['messagingXApiKeyApi', new MessagingXApiKeyApi(), 'X-API-Key', 's3cret-0123456789'],
	])('%s', async (_name, credential, header, value) => {
		const authenticate = credential.authenticate as (c: object, o: object) => Promise<{ headers: Record<string, string> }>;
		for (const pasted of ['  s3cret-0123456789 \n', '\ts3cret-0123456789', 'Bearer s3cret-0123456789', ' bearer  s3cret-0123456789']) {
			const options = await authenticate({ accessToken: pasted, apiKey: pasted }, { url: 'x' });
			expect(options.headers[header], JSON.stringify(pasted)).toBe(value);
		}
	});

	it('in a run and in the credential test, against the emulator: the send goes through, and the test accepts the key', async () => {
		const pasted = `  Bearer ${emulator.tokens.bearer}\n`;
		const credentials = { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, accessToken: pasted } };
		const run = await runOn({ credentials }, { parameters: { resource: 'message', operation: 'send', phone: '+14155550123', text: 'hi' }, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(emulator.requests.at(-1)?.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		const tested = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingBearerApi', data: credentials.messagingBearerApi });
		expect(tested.status).toBe('OK');
	});
});

describe('a key no HTTP header can carry is named before anything is sent (outside review: mangled on the way, then a 401 that said to replace the key)', () => {
	it.each([
		['a line break inside', 'Key-0123\n456789abcdef', /contains a line break/],
		['a non-Latin letter', 'K\u043b\u044e\u0447-0123456789abcdef', /contains a character an HTTP header cannot carry/],
		['an emoji', 'Key-0123456789\u{1F511}', /contains a character an HTTP header cannot carry/],
	])('%s: the run fails naming the field, the credential test says so, nothing reaches the service', async (_case, key, problem) => {
		const credentials = { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, accessToken: key } };
		const run = await runOn({ credentials }, { parameters: { resource: 'message', operation: 'send', phone: '+14155550123', text: 'hi' }, items: [{}] });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(new RegExp(`^The credential's Access Token \\(accessToken\\) ${problem.source}.* \\[item 0\\]$`));
		expect(run.error?.message).not.toContain(key);
		const tested = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingBearerApi', data: credentials.messagingBearerApi });
		expect(tested.status).toBe('Error');
		expect(tested.message).toMatch(problem);
		expect(emulator.requests).toEqual([]);
	});
});

describe('credential tests never send a message', () => {
	it('Bearer: tests every base URL that is set, once each (templates listed, sends given an empty body, one plant listed)', async () => {
		const ok = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingBearerApi', data: emulator.credentials.messagingBearerApi });
		expect(ok).toEqual({ status: 'OK', message: 'Key accepted' });
		const byApi = Object.fromEntries(emulator.requests.map((request) => [request.api, request]));
		expect(emulator.requests).toHaveLength(4);
		expect(byApi.templates).toMatchObject({ method: 'GET', status: 200 });
		expect(byApi.send).toMatchObject({ method: 'POST', body: {}, status: 400 });
		expect(byApi.templateSend).toMatchObject({ method: 'POST', body: {}, status: 400 });
		expect(byApi.plantsList).toMatchObject({ method: 'GET', query: { limit: '1' }, status: 200 });
		for (const request of emulator.requests) expect(request.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(emulator.deliveries).toHaveLength(0);
		const wrong = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingBearerApi',
			data: { ...emulator.credentials.messagingBearerApi, accessToken: 'wrong-token-0000' },
		});
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/The key was refused \(HTTP 401\)/);
	});

	it('a short key is tested like any other (the spec sets no length), and is not quoted back', async () => {
		const short = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingBearerApi',
			data: { ...emulator.credentials.messagingBearerApi, accessToken: 'k3y42' },
		});
		expect(short).toEqual({ status: 'Error', message: expect.stringMatching(/The key was refused \(HTTP 401\)/) });
		expect(short.message).not.toMatch(/\bk3y42\b/);
		// Refused alike at every URL: the message names none of them.
		expect(short.message).not.toMatch(/Base URL/);
		expect(emulator.requests.map((request) => request.status)).toEqual([401, 401, 401, 401]);
	});

	it('Bearer: a mistyped base URL fails the test and is named, though the others accept the token (outside review: only the Templates Base URL was called)', async () => {
		const { templateSendBaseUrl } = emulator.credentials.messagingBearerApi;
		const mistyped = `${templateSendBaseUrl}x`;
		const result = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingBearerApi',
			data: { ...emulator.credentials.messagingBearerApi, templateSendBaseUrl: mistyped },
		});
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^Template Send Base URL: .*check the URL$/) });
		expect(result.message).toContain(`${mistyped}/send_template_message_by_api`);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('Bearer: a base URL of the wrong form fails the test before the token goes anywhere, though another is set correctly', async () => {
		const result = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingBearerApi',
			data: { ...emulator.credentials.messagingBearerApi, sendBaseUrl: 'api.example.com/api:x' },
		});
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^Send Base URL /) });
		expect(emulator.requests).toEqual([]);
	});

	it('Bearer with only a sandbox URL: lists one plant', async () => {
		const { accessToken, sandboxBaseUrl } = emulator.credentials.messagingBearerApi;
		const ok = await callCredentialTest({
			nodeType: 'sandboxPlants',
			credentialType: 'messagingBearerApi',
			data: { accessToken, sandboxBaseUrl: `${sandboxBaseUrl}/` },
		});
		expect(ok.status).toBe('OK');
		expect(emulator.requests[0]).toMatchObject({ api: 'plantsList', method: 'GET', path: '/sandbox/plants', query: { limit: '1' } });
	});

	it.each([
		['sendBaseUrl', 'send', '/send'],
		['templateSendBaseUrl', 'templateSend', '/send_template_message_by_api'],
	] as const)('Bearer set up to send only (%s, no Templates Base URL): an empty-body probe of the send, key accepted on a body refusal and refused on 401 (it could not be tested at all)', async (field, api, path) => {
		const { accessToken } = emulator.credentials.messagingBearerApi;
		const data = { accessToken, [field]: emulator.credentials.messagingBearerApi[field] };
		const ok = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingBearerApi', data });
		expect(ok).toEqual({ status: 'OK', message: 'Key accepted' });
		const [probe] = emulator.requests;
		expect(probe).toMatchObject({ api, method: 'POST', body: {} });
		expect(probe.path.endsWith(path)).toBe(true);
		expect(probe.headers.authorization).toBe(`Bearer ${accessToken}`);
		expect(probe.status).toBe(400);
		const wrong = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingBearerApi', data: { ...data, accessToken: 'wrong-token-0000' } });
		expect(wrong.message).toMatch(/The key was refused \(HTTP 401\)/);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it.each([
		['messagingAuthorizationKeyApi', 'dashboard', (key: string) => ({ authorization: key })],
		['messagingXApiKeyApi', 'alternative', (key: string) => ({ 'x-api-key': key })],
	] as const)('%s: an empty-body probe, key accepted on a body refusal and refused on 401', async (type, api, header) => {
		const data = emulator.credentials[type];
		const ok = await callCredentialTest({ nodeType: 'messaging', credentialType: type, data });
		expect(ok).toEqual({ status: 'OK', message: 'Key accepted' });
		const [probe] = emulator.requests;
		expect(probe).toMatchObject({ api, method: 'POST', body: {} });
		expect(probe.headers).toMatchObject(header(String(data.apiKey)));
		expect(probe.status).toBe(400);

		const wrong = await callCredentialTest({ nodeType: 'messaging', credentialType: type, data: { ...data, apiKey: 'wrong-key' } });
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/The key was refused \(HTTP 401\)/);
		expect(wrong.message).not.toContain('wrong-key');
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('Bearer: refuses a plain http Templates Base URL off loopback before the token leaves', async () => {
		const result = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingBearerApi',
			data: { accessToken: 'k', templatesBaseUrl: 'http://api.example.com/api:x' },
		});
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^Templates Base URL .* requires https/) });
	});

	it('refuses a plain http URL off loopback without calling it', async () => {
		const result = await callCredentialTest({
			nodeType: 'messaging',
			credentialType: 'messagingXApiKeyApi',
			data: { apiKey: 'k', apiUrl: 'http://api.example.com' },
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/requires https/);
	});
});

describe('credential tests hold against answers we did not design for', () => {
	const cases = [
		['messagingBearerApi', 'messaging'],
		['messagingAuthorizationKeyApi', 'messaging'],
		['messagingXApiKeyApi', 'messaging'],
	] as const;

	it.each(cases)('%s: a 307 redirect is not followed; nothing reaches the second origin', async (credentialType, nodeType) => {
		emulator.setFaults({ script: ['redirect-307'] });
		const result = await callCredentialTest({ nodeType, credentialType, data: emulator.credentials[credentialType] });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/HTTP 307, a redirect; redirects are not followed/);
		expect(emulator.trapRequests).toEqual([]);
	});

	it.each(cases)('%s: a service that echoes the key does not get it into the message', async (credentialType, nodeType) => {
		emulator.setFaults({ script: ['echo-key'] });
		const data = emulator.credentials[credentialType];
		const result = await callCredentialTest({ nodeType, credentialType, data });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/refused \(HTTP 401\)/);
		const secret = 'accessToken' in data ? data.accessToken : data.apiKey;
		expect(result.message).not.toContain(secret);
	});

	it.each(cases)('%s: an HTML page answering 200 is not "accepted"', async (credentialType, nodeType) => {
		emulator.setFaults({ script: ['html-200'] });
		const result = await callCredentialTest({ nodeType, credentialType, data: emulator.credentials[credentialType] });
		// The Bearer credential's other URLs answered well: the one that did not is named.
		const named = credentialType === 'messagingBearerApi' ? 'Templates Base URL: ' : '';
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(new RegExp(`^${named}Unexpected answer from .* not JSON`)) });
		expect(result.message).not.toMatch(/<html|<!doctype/i);
	});

	it('Bearer with a plain http sandbox on a remote host: not tested, and the token never leaves', async () => {
		const result = await callCredentialTest({
			nodeType: 'sandboxPlants',
			credentialType: 'messagingBearerApi',
			data: { accessToken: 'a-real-looking-token', sandboxBaseUrl: 'http://sandbox.example.com' },
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Not tested: the Sandbox Base URL is plain http on sandbox\.example\.com/);
	});
});

describe('Templates Base URL', () => {
	it('is not needed to send a template (the contract: Send Template calls the template send alone); the picker and the variable fields need it, and its hint says so', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: '' };
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' })),
			credentialData,
		});
		expect(run.error).toBeUndefined();
		expect(emulator.requests.map((request) => `${request.method} ${request.api}`)).toEqual(['POST templateSend']);
		expect(emulator.deliveries).toHaveLength(1);
		// As n8n loads the credential for its editor.
		const field = loadPackage().credentialTypes.messagingBearerApi.properties.find((property) => property.name === 'templatesBaseUrl');
		// (Outside review: it said Send Template "also sends without it", and a user found no field to type a variable in.)
		expect(field?.hint).toBe("Needed for Template → Get Many, and for Send Template's template list and variable fields: without it, the editor shows no fields for a template's variables");
	});
});
