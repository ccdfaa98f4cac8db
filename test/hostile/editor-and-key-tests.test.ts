/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; test keys (README: Lint) */
/**
 * Answers an outside review found the credential "Test" button and the editor's template calls
 * misread: a rate refusal or a refusal in words about the key taken as "key accepted", a 200
 * that is not a list taken as a templates answer, a templates list over 1 MB refused, a body
 * that stalls or is too large called "not JSON", and a 429 that held the template picker for a
 * run's Max Wait (60 s) while a person waits on a dropdown. Plain node:http servers on loopback.
 */
import { describe, expect, it } from 'vitest';

import { callCredentialTest, callListSearch, callResourceMapper, runNode } from '../harness';
import { json, useServers } from './servers';

const KEY = 'Key-Tests-Token-0123456789';
const serve = useServers();

const keyTest = async (credentialType: 'messagingAuthorizationKeyApi' | 'messagingXApiKeyApi' | 'messagingBearerApi', url: string) =>
	await callCredentialTest({
		credentialType,
		data:
			credentialType === 'messagingBearerApi'
				? { accessToken: KEY, templatesBaseUrl: url }
				: credentialType === 'messagingAuthorizationKeyApi'
					? { apiKey: KEY, dashboardUrl: url }
					: { apiKey: KEY, apiUrl: url },
	});

describe('the credential Test button', () => {
	it.each(['messagingAuthorizationKeyApi', 'messagingXApiKeyApi'] as const)('%s: a 429 is not "key accepted": the key was not looked at', async (credentialType) => {
		const { url } = await serve((_req, res) => json(res, 429, { message: 'Too many requests' }));
		const result = await keyTest(credentialType, url);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/rate-limiting requests \(HTTP 429\)/);
	});

	it.each(['messagingAuthorizationKeyApi', 'messagingXApiKeyApi'] as const)('%s: a 400 whose words say the key is invalid is the key refused', async (credentialType) => {
		const { url } = await serve((_req, res) => json(res, 400, { success: false, message: 'Unauthorized', details: 'Invalid API key' }));
		const result = await keyTest(credentialType, url);
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toMatch(/The key was refused \(HTTP 400\): Unauthorized: Invalid API key/);
	});

	it('Bearer: a 400 whose error code names the key (its words do not) is the key refused', async () => {
		const { url } = await serve((_req, res) => json(res, 400, { error: { code: 'INVALID_TOKEN', message: 'Request refused' } }));
		const result = await keyTest('messagingBearerApi', url);
		expect(result).toEqual({ status: 'Error', message: 'The key was refused (HTTP 400): Request refused' });
	});

	it('an empty body refused as such (400, not about the key) still shows the key passed', async () => {
		const { url } = await serve((_req, res) => json(res, 400, { success: false, message: 'Bad request', details: 'to is required' }));
		expect(await keyTest('messagingAuthorizationKeyApi', url)).toEqual({ status: 'OK', message: 'Key accepted' });
	});

	it.each(['messagingAuthorizationKeyApi', 'messagingXApiKeyApi'] as const)(
		'%s: a 200 {success: false} refusing the empty body, not the key, shows the key passed (their error statuses are not in the spec)',
		async (credentialType) => {
			const { url } = await serve((_req, res) => json(res, 200, { success: false, message: 'Bad request', details: 'to is required' }));
			expect(await keyTest(credentialType, url)).toEqual({ status: 'OK', message: 'Key accepted' });
		},
	);

	it.each(['messagingAuthorizationKeyApi', 'messagingXApiKeyApi'] as const)('%s: a 200 {success: false} in words about the key is the key refused', async (credentialType) => {
		const { url } = await serve((_req, res) => json(res, 200, { success: false, message: 'Unauthorized', details: 'Invalid API key' }));
		expect(await keyTest(credentialType, url)).toEqual({ status: 'Error', message: 'The key was refused (HTTP 200): Unauthorized: Invalid API key' });
	});

	it.each([405, 410])('a %s (nothing at the URL takes the request) is not "key accepted": the URL is named', async (status) => {
		const { url } = await serve((_req, res) => json(res, status, { message: 'Method Not Allowed' }));
		const result = await keyTest('messagingXApiKeyApi', url);
		expect(result).toEqual({ status: 'Error', message: `Not tested: ${url}/v1/messages does not take this request (HTTP ${status}): Method Not Allowed; check the URL` });
	});

	it('Bearer on the direct send: its 400 rate reason is not "key accepted"', async () => {
		const { url } = await serve((_req, res) => json(res, 400, { message: 'Message sending failed | Reason: Rate limit exceeded (messages per minute or per hour)' }));
		const result = await callCredentialTest({ credentialType: 'messagingBearerApi', data: { accessToken: KEY, sendBaseUrl: url } });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Not tested: the service is rate-limiting requests \(HTTP 400\): Rate limit exceeded/);
	});

	it('a 404 in the service\'s own words gives its reason, and names the URL', async () => {
		const { url } = await serve((_req, res) => json(res, 404, { error: { code: 'NOT_FOUND', message: 'No templates found' } }));
		expect(await keyTest('messagingBearerApi', url)).toEqual({ status: 'Error', message: `${url}/get_templates answered HTTP 404: No templates found; check the URL` });
		const { url: bare } = await serve((_req, res) => {
			res.writeHead(404, { 'content-type': 'text/html' });
			res.end('<h1>Not Found</h1>');
		});
		expect(await keyTest('messagingBearerApi', bare)).toEqual({ status: 'Error', message: `Nothing answers at ${bare}/get_templates; check the URL` });
	});

	it('Bearer: the template send answering the empty body 404 "Template not found" read the key (spec 4.2 shows no status); a 404 in other words still names the URL', async () => {
		const { url, seen } = await serve((req, res) => {
			if (req.url?.endsWith('/send_template_message_by_api')) return json(res, 404, { error: { code: 'TEMPLATE_NOT_FOUND', message: 'Template not found' } });
			json(res, 404, { error: { code: 'NOT_FOUND', message: 'Route not found' } });
		});
		const test = async (data: Record<string, string>) => await callCredentialTest({ credentialType: 'messagingBearerApi', data: { accessToken: KEY, ...data } });
		expect(await test({ templateSendBaseUrl: url })).toEqual({ status: 'OK', message: 'Key accepted' });
		expect(seen.map((request) => `${request.method} ${request.path} ${request.body}`)).toEqual(['POST /send_template_message_by_api {}']);
		expect(await test({ sendBaseUrl: url })).toEqual({ status: 'Error', message: `${url}/send answered HTTP 404: Route not found; check the URL` });
	});

	it('a server that takes the request and never answers: "No answer within 15 s", not "Could not reach"', async () => {
		let requests = 0;
		const { url } = await serve(() => {
			requests++;
		});
		const result = await keyTest('messagingXApiKeyApi', url);
		expect(requests).toBe(1);
		expect(result).toEqual({ status: 'Error', message: `No answer from ${new URL(url).host} within 15 s; check the URL, or try again later` });
	}, 30_000);

	it('Bearer: a 200 that is not a list of templates is not "key accepted"', async () => {
		const { url } = await serve((_req, res) => json(res, 200, {}));
		const result = await keyTest('messagingBearerApi', url);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/JSON of another shape than a list/);
	});

	it('Bearer: a list of templates over 1 MB is read like the node reads it (32 MB): key accepted', async () => {
		const template = { id: 1, name: 'reminder', status: 'APPROVED', language: 'en', variable_counts: 1, template_formate: `Hello [b:1] ${'x'.repeat(300)}` };
		const list = Array.from({ length: 3_500 }, (_, n) => ({ ...template, id: n, template_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }));
		expect(JSON.stringify(list).length).toBeGreaterThan(1024 * 1024);
		const { url } = await serve((_req, res) => json(res, 200, list));
		expect(await keyTest('messagingBearerApi', url)).toEqual({ status: 'OK', message: 'Key accepted' });
	});

	it('a send probe answered with more than 1 MB says so, not "not JSON"', async () => {
		const { url } = await serve((_req, res) => json(res, 400, { message: 'x'.repeat(2 * 1024 * 1024) }));
		const result = await keyTest('messagingXApiKeyApi', url);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/larger than 1 MB, not read/);
		expect(result.message).not.toContain(KEY);
	});
});

describe('the template picker and variable fields with records no template should have', () => {
	const GOOD = '11111111-1111-4111-8111-111111111111';
	const NAMELESS = '22222222-2222-4222-8222-222222222222';
	const template = (fields: Record<string, unknown>) => ({ id: 1, name: 'reminder', status: 'APPROVED', language: 'en', variable_counts: 1, template_formate: 'Hi [b:1]', template_id: GOOD, ...fields });
	const LIST = [
		template({}),
		null,
		template({ template_id: undefined, name: 'no id' }),
		template({ template_id: 42, name: 'numeric id' }),
		template({ template_id: GOOD.toUpperCase(), name: 'the same ID again' }),
		template({ template_id: NAMELESS, name: null }),
	];
	const editor = (url: string) => ({
		nodeType: 'messaging',
		credentials: { messagingBearerApi: { accessToken: KEY, templatesBaseUrl: url } },
		parameters: { resource: 'message', operation: 'sendTemplate' },
	});

	it('one unusable record is set aside, not the whole list; a nameless one shows its ID; one entry per ID', async () => {
		const { url } = await serve((_req, res) => json(res, 200, LIST));
		const { results } = await callListSearch({ ...editor(url), method: 'searchTemplates' });
		expect(results.map(({ name, value }) => [name, value])).toEqual([
			[`${NAMELESS} (en) — Hi {1}`, NAMELESS],
			['reminder (en) — Hi {1}', GOOD],
		]);
	});

	it('the variable fields of a template beside such records load', async () => {
		const { url } = await serve((_req, res) => json(res, 200, LIST));
		const { fields } = await callResourceMapper({
			...editor(url),
			parameters: { resource: 'message', operation: 'sendTemplate', template: { __rl: true, mode: 'list', value: GOOD } },
			method: 'getTemplateVariables',
		});
		expect(fields.map(({ id }) => id)).toEqual(['body1']);
	});

	it('Template → Get Many outputs every record as the service sent it, those the picker sets aside too (a null is no record)', async () => {
		// It failed the whole list as "JSON of another shape ... check the base URL" over one record without a string template ID.
		const { url } = await serve((_req, res) => json(res, 200, LIST));
		const run = await runNode({
			node: { type: 'messaging', parameters: { resource: 'template', operation: 'getAll', returnAll: true } },
			items: [{}],
			credentials: { messagingBearerApi: { accessToken: KEY, templatesBaseUrl: url } },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual(JSON.parse(JSON.stringify(LIST.filter((record) => record !== null))));
	});

	it('a list none of whose records is a template is not a templates answer (another API behind the URL)', async () => {
		const { url } = await serve((_req, res) => json(res, 200, [{ id: 1, title: 'a post' }]));
		await expect(callListSearch({ ...editor(url), method: 'searchTemplates' })).rejects.toThrow(/Unexpected answer from 127\.0\.0\.1:\d+ \(HTTP 200, JSON of another shape\)/);
	});
});

describe('the template picker against a rate limit and a failure', () => {
	/** The error the picker's list load fails with against `url`. */
	const pickerFailure = async (url: string) =>
		await failureOf(
			callListSearch({
				nodeType: 'messaging',
				credentials: { messagingBearerApi: { accessToken: KEY, templatesBaseUrl: url } },
				parameters: { resource: 'message', operation: 'sendTemplate' },
				method: 'searchTemplates',
			}),
		);

	it('429, then 503: its one retry is spent, whatever failed (rate refusals and failures were counted apart: 3 requests)', async () => {
		const answers = [429, 503, 429, 503];
		const { url, seen } = await serve((_req, res) => json(res, answers.shift() ?? 503, { error: { code: 'E', message: 'not now' } }));
		const error = await pickerFailure(url);
		expect(error.message).toMatch(/not now/);
		expect(seen).toHaveLength(2);
	});

	it('503 twice: the message says it was tried twice (a 10 s timeout tried twice took 20 s and said "within 10 s")', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 503, { error: { code: 'E', message: 'not now' } }));
		const error = await pickerFailure(url);
		expect(seen).toHaveLength(2);
		expect(error.message).toMatch(/^not now \(code E\) \(2 tries\)$/);
	});
});

/** The error a call failed with (a call that succeeds fails the test). */
const failureOf = async (call: Promise<unknown>) =>
	await call.then(
		() => {
			throw new Error('expected the call to fail');
		},
		(caught: unknown) => caught as Error & { description?: string },
	);

// A pause a test's 429 begins ends once its call gives up (nothing waits on it: the scheduler's rule 7), so it holds no later call.
describe('the template picker against a rate limit', () => {
	it('a Retry-After longer than the editor waits fails at once, after one request, saying so', async () => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
			res.end(JSON.stringify({ message: 'Message sending failed | Reason: Rate limit exceeded (messages per minute or per hour)' }));
		});
		const picking = callListSearch({
			nodeType: 'messaging',
			credentials: { messagingBearerApi: { accessToken: KEY, templatesBaseUrl: url } },
			parameters: { resource: 'message', operation: 'sendTemplate' },
			method: 'searchTemplates',
		});
		const error = await failureOf(picking);
		expect(error.message).toMatch(/^Rate limited: the service asked to wait 30 s\. The service said: Rate limit exceeded/);
		expect(error.description).toBe('The service limits how often this account may call it. Try again in 30 s.');
		expect(seen).toHaveLength(1);
	});

	it('a 429 without Retry-After: one more try, as for any failure, then the service\'s words and when to try again, without advice for a run', async () => {
		// It probed until the editor's Max Wait (12 requests in 10 s) and then advised Max Wait 3600,
		// Max Requests Per Minute and re-running the items not sent, naming the "40 accepted in a row"
		// of earlier list loads.
		let calls = 0;
		const { url, seen } = await serve((_req, res) => {
			if (calls++ < 3) return json(res, 200, [{ id: 1, name: 'reminder', status: 'APPROVED', template_id: '11111111-1111-4111-8111-111111111111' }]);
			json(res, 429, { error: { code: 'RATE', message: 'too many requests' } });
		});
		const editor = {
			nodeType: 'messaging',
			credentials: { messagingBearerApi: { accessToken: KEY, templatesBaseUrl: url } },
			parameters: { resource: 'message', operation: 'sendTemplate' },
			method: 'searchTemplates',
		};
		for (let n = 0; n < 3; n++) await callListSearch(editor);
		const error = await failureOf(callListSearch(editor));
		expect(seen).toHaveLength(3 + 2);
		expect(error.message).toMatch(/too many requests \(code RATE\)/);
		expect(error.description).toBe('The service limits how often this account may call it. Try again in a minute.');
		expect(`${error.message} ${error.description}`).not.toMatch(/Max Wait|Re-run|accepted|per-hour/);
	});
});
