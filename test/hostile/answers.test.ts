/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a test token (README: Lint) */
/**
 * Answers that must not fool, flood or freeze the node (issue 19), each from a plain
 * `node:http` server written the way real servers, proxies and load balancers behave, not from
 * a switch in our emulator: success bodies with stray fields, a body that drips past Timeout or
 * goes silent after its headers, answers of 450 MB, JSON nested 20,000 deep, a 202 that says it
 * failed, a service that echoes the key in every form, and a credential test answered 200 with
 * `success: false`. Every case runs the real engine (test/harness).
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { callCredentialTest } from '../harness';
import { credentialsAt, json, type Answer, useServers } from './servers';

const TOKEN = 'Hostile-Token-0123456789';
/** A key that URL-encoding changes. */
const SPECIAL_KEY = 'Key+With/Special=Chars99';

const serve = useServers();

const credentialsFor = (url: string, key = TOKEN) => credentialsAt(url, key);

const SENDS = [
	{ operation: 'send', credential: 'messagingBearerApi', fields: { phone: '={{ $json.phone }}', text: 'hello' } },
	{ operation: 'sendDashboard', credential: 'messagingAuthorizationKeyApi', fields: { to: '={{ $json.phone }}', text: 'hello' } },
	{ operation: 'sendAlternative', credential: 'messagingXApiKeyApi', fields: { to: '={{ $json.phone }}', message: 'hello' } },
] as const;

type Send = (typeof SENDS)[number];

async function runSend(url: string, send: Send, { items = 1, options = {}, continueOnFail = false, key = TOKEN } = {}) {
	return await runOn(
		{ credentials: credentialsFor(url, key) },
		{
			parameters: { resource: 'message', operation: send.operation, ...send.fields, options },
			items: Array.from({ length: items }, (_, index): IDataObject => ({ phone: `+1415555${String(100 + index).padStart(4, '0')}` })),
			continueOnFail,
		},
	);
}

const MAY_HAVE_BEEN_DELIVERED = /may have been delivered/i;

/** Template → Get Many: a read, so retried after a timeout (up to Max Retries). */
async function runRead(url: string, { options = {}, continueOnFail = false } = {}) {
	return await runOn(
		{ credentials: credentialsFor(url) },
		{ parameters: { resource: 'template', operation: 'getAll', returnAll: true, options }, items: [{}], continueOnFail },
	);
}

describe('a success body is read by its documented shape, never by stray fields', () => {
	it('direct send: 200 {"message":"Message sent successfully (rate limit: 60 per minute)","error":0} is a success, sent once', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 200, '{"message":"Message sent successfully (rate limit: 60 per minute)","error":0}'));
		const run = await runSend(url, SENDS[0]);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ success: true, message: 'Message sent successfully (rate limit: 60 per minute)' });
		expect(seen).toHaveLength(1);
	});

	it('direct send: a success text that mentions credits stays a success; {"message":"…","error":""} too', async () => {
		const { url, seen } = await serve((_req, res, index) =>
			json(res, 200, index === 0 ? { message: 'Message sent successfully. Credits left: 12', error: '' } : { message: 'Message sent successfully', error: 0 }),
		);
		const run = await runSend(url, SENDS[0], { items: 2, options: { maxConcurrent: 1 } });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.success)).toEqual([true, true]);
		expect(seen).toHaveLength(2);
	});

	it.each(SENDS)('$operation: the same body is never read as a rate limit: one request, never retried', async (send) => {
		const { url, seen } = await serve((_req, res) => json(res, 200, '{"message":"Message sent successfully (rate limit: 60 per minute)","error":0}'));
		const run = await runSend(url, send, { continueOnFail: true });
		expect(seen).toHaveLength(1);
		const item = run.items[0].json;
		// Direct send and the undocumented alternative send read it as sent; the dashboard documents
		// `success: true` with details, so there it is an unexpected answer that may have been delivered.
		if (send.operation === 'sendDashboard') expect(item.error).toMatch(MAY_HAVE_BEEN_DELIVERED);
		else if (send.operation === 'send') expect(item.success).toBe(true);
		if (typeof item.error === 'string') expect(item.error).not.toMatch(/rate/i);
	});

	it.each([
		['{"id":"m-1","status":"failed"}', 202],
		['{"success":"false","message":"Recipient blocked"}', 200],
	])('alternative send: %s (HTTP %i) says it failed: not a success', async (body, status) => {
		const { url, seen } = await serve((_req, res) => json(res, status, body));
		const run = await runSend(url, SENDS[2], { continueOnFail: true });
		expect(run.items[0].json.success).toBeUndefined();
		expect(run.items[0].json.error).toMatch(/failed|Recipient blocked/);
		expect(seen).toHaveLength(1);
	});
});

describe('alternative send: an answer the spec does not show (4.5)', () => {
	it.each([
		['{"status":"queued","to":"+14155550100"}', 'queued', undefined],
		['{"status":"Sent"}', 'Sent', undefined],
		['{"ok":true}', undefined, undefined],
		['{"data":{"id":"alt-7"}}', undefined, 'alt-7'],
		['{"success":true,"message_id":"alt-8"}', undefined, 'alt-8'],
	])('%s says the message was taken: a success, sent once', async (body, status, messageId) => {
		const { url, seen } = await serve((_req, res) => json(res, 200, body));
		const run = await runSend(url, SENDS[2]);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toEqual({ success: true, to: '+14155550100', messageId, status });
		expect(seen).toHaveLength(1);
	});

	it.each(['{}', '{"status":"ok","data":null}', '{"result":null}', '[]'])('%s says nothing of a message: may have been delivered, not sent again', async (body) => {
		const { url, seen } = await serve((_req, res) => json(res, 200, body));
		const run = await runSend(url, SENDS[2], { continueOnFail: true });
		expect(run.items[0].json.success).toBeUndefined();
		expect(run.items[0].json.error).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect(seen).toHaveLength(1);
	});
});

describe("a gateway's 413 on a request that carries no file", () => {
	it('gets no hint about files (a long text, not an attachment, was too large)', async () => {
		const { url } = await serve((_req, res) => json(res, 413, { message: 'Payload too large' }));
		const run = await runSend(url, SENDS[0], { continueOnFail: true });
		expect(run.items[0].json.error).toMatch(/Payload too large/);
		expect(JSON.stringify(run.items[0].json)).not.toMatch(/jpeg|attachment|file/i);
	});

	it('a send with an attachment keeps the file hint', async () => {
		const { url } = await serve((_req, res) => json(res, 413, { message: 'Payload too large' }));
		const run = await runOn(
			{ credentials: credentialsFor(url) },
			{
				parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'hello', additionalFields: { attachment: 'https://files.example.com/a.pdf' } },
				items: [{ phone: '+14155550100' }],
				continueOnFail: true,
			},
		);
		expect(JSON.stringify(run.items[0].json)).toMatch(/too large or of a type the service does not take/);
	});
});

describe('Sandbox Create outputs the tag as the service says it', () => {
	it('a null tag stays null (spec 4.6: the output is {name, tag})', async () => {
		const { url } = await serve((_req, res) => json(res, 200, { id: 9, name: 'Rose', tag: null }));
		const run = await runOn(
			{ credentials: credentialsFor(url) },
			{ type: 'sandboxPlants', parameters: { resource: 'plant', operation: 'create', name: 'Rose', plantId: 9, additionalFields: { tag: 'red' } }, items: [{}] },
		);
		expect(run.items[0].json).toEqual({ name: 'Rose', tag: null });
	});
});

describe('bounded answers', () => {
	it('a body that drips 1 byte/s after a 200 header, Timeout 2 s: a timeout that may have been delivered, not a success', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{');
			const drip = setInterval(() => res.write(' '), 1_000);
			res.on('close', () => clearInterval(drip));
		});
		const run = await runSend(url, SENDS[0], { options: { timeoutSeconds: 2 } });
		expect(run.error?.message).toMatch(/within 2 s/);
		expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		// Not the 20 s the drip would take: the deadline covers the body.
		expect(run.elapsedMs).toBeLessThan(10_000);
	});

	it('a run that stops at item 0 while item 1 is still dripping ends without waiting for it', async () => {
		const { url } = await serve((req, res, index) => {
			if (index === 0 || req.method !== 'POST') return json(res, 500, { message: 'Message sending failed | Reason: internal' });
			res.writeHead(200, { 'content-type': 'application/json' });
			const drip = setInterval(() => res.write(' '), 500);
			res.on('close', () => clearInterval(drip));
		});
		const run = await runSend(url, SENDS[0], { items: 2, options: { maxConcurrent: 2, timeoutSeconds: 30 } });
		expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect(run.elapsedMs).toBeLessThan(10_000);
	});

	it('four answers of 450 MB at once: each fails at once unread, and the process grows by far less than 300 MB', async () => {
		const chunk = Buffer.alloc(64 * 1024, 0x20);
		const { url } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(450 * 1024 * 1024) });
			let sent = 0;
			const pump = () => {
				while (sent < 450 * 1024 * 1024 && !res.destroyed) {
					sent += chunk.length;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
				res.end();
			};
			pump();
		});
		const before = process.memoryUsage().rss;
		let peak = before;
		const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
		try {
			const run = await runSend(url, SENDS[0], { items: 4, options: { maxConcurrent: 4 }, continueOnFail: true });
			for (const item of run.items) expect(item.json.error).toMatch(/larger than 64 KB; not read\).*may have been delivered/i);
		} finally {
			clearInterval(sampler);
		}
		expect(peak - before).toBeLessThan(300 * 1024 * 1024);
	});

	it('200 with JSON nested 20,000 deep: an unexpected answer that may have been delivered, no stack overflow', async () => {
		// 40 KB: within a send's 64 KB, so it is the depth that is judged.
		const { url, seen } = await serve((_req, res) => json(res, 200, `${'['.repeat(20_000)}${']'.repeat(20_000)}`));
		const run = await runSend(url, SENDS[0]);
		expect(run.error?.message).toMatch(/Unexpected answer .*nested deeper than 64 levels.*may have been delivered/i);
		expect(run.error?.message).not.toMatch(/call stack/i);
		expect(seen).toHaveLength(1);
	});
});

describe('an answer whose body goes silent, the connection left open', () => {
	// n8n's request helper hands the body over wrapped in a stream that destroy() does not wake
	// while it waits on the socket: only Timeout can end these, and it must.
	const SILENT_BODIES = [
		['headers with content-length 100, then silence', { 'content-length': '100' }, ''],
		['chunked headers, then silence', {}, ''],
		['content-length 100 and 6 bytes, then silence', { 'content-length': '100' }, '{"mess'],
		['chunked headers and 6 bytes, then silence', {}, '{"mess'],
	] as const;

	const silentAfter =
		(headers: Record<string, string>, first: string): Answer =>
		(_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', ...headers });
			if (first) res.write(first);
			else res.flushHeaders();
		};

	it.each(SILENT_BODIES)('send, %s, Timeout 1 s: a timeout that may have been delivered, sent once', async (_name, headers, first) => {
		const { url, seen } = await serve(silentAfter(headers, first));
		const run = await runSend(url, SENDS[0], { options: { timeoutSeconds: 1 }, continueOnFail: true });
		expect(run.items[0].json.error).toMatch(/No answer from 127\.0\.0\.1:\d+ within 1 s.*may have been delivered/i);
		expect(seen.map((request) => request.method)).toEqual(['POST']);
		// Generous: the run must end by Timeout, not whenever the server gives up (never, here).
		expect(run.elapsedMs).toBeLessThan(15_000);
	});

	it.each(SILENT_BODIES)('Template → Get Many, %s, Timeout 1 s, Max Retries 1: read twice, then a timeout', async (_name, headers, first) => {
		const { url, seen } = await serve(silentAfter(headers, first));
		const run = await runRead(url, { options: { timeoutSeconds: 1, maxRetries: 1 }, continueOnFail: true });
		expect(run.items[0].json.error).toMatch(/No answer from 127\.0\.0\.1:\d+ within 1 s/);
		expect(run.items[0].json.error).not.toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect(seen.map((request) => request.method)).toEqual(['GET', 'GET']);
		expect(run.elapsedMs).toBeLessThan(15_000);
	});
});

describe('secrets, wherever and however a service echoes them', () => {
	const FORMS: Array<[string, string, string]> = [
		['as a JSON key', TOKEN, JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'bad key' }, [TOKEN]: true })],
		['lower-cased', TOKEN, JSON.stringify({ message: `Message sending failed | Reason: bad key ${TOKEN.toLowerCase()}` })],
		['URL-encoded', SPECIAL_KEY, JSON.stringify({ message: `Message sending failed | Reason: bad key ${encodeURIComponent(SPECIAL_KEY)}` })],
		['base64 in an auth header echo', TOKEN, JSON.stringify({ message: `Message sending failed | Reason: got Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` })],
		['nested and in a list', TOKEN, JSON.stringify({ error: { code: 'E', message: 'no', seen: [{ headers: { authorization: `Bearer ${TOKEN}` } }] } })],
	];

	it.each(FORMS)('echoed %s: nowhere in the error, the output or the execution data', async (_name, key, body) => {
		const { url } = await serve((_req, res) => json(res, 401, body));
		for (const continueOnFail of [false, true]) {
			const run = await runSend(url, SENDS[0], { continueOnFail, key });
			const everything = JSON.stringify({ error: run.error, message: run.error?.message, description: (run.error as { description?: string })?.description, items: run.items, run: run.run });
			for (const form of [key, key.toLowerCase(), encodeURIComponent(key), Buffer.from(`user:${key}`).toString('base64')]) {
				expect(everything).not.toContain(form);
			}
			// Without Continue On Fail the error keeps the service's answer (n8n stores it in the
			// execution): there the echo stands, redacted.
			if (!continueOnFail) expect(JSON.stringify((run.error as { errorResponse?: unknown }).errorResponse)).toContain('[redacted]');
		}
	});

	it('in a credential test too', async () => {
		const { url } = await serve((_req, res) => json(res, 401, FORMS[3][2]));
		const result = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingXApiKeyApi', data: { apiKey: TOKEN, apiUrl: url } });
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain(Buffer.from(`user:${TOKEN}`).toString('base64'));
		expect(result.message).toContain('[redacted]');
	});

	it('a 5-character key is sent (the spec sets no length), and scrubbed where it stands as a word in a run and in a credential test', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 401, { message: 'Message sending failed | Reason: bad key k3y42 (k3y42x is not it)' }));
		const run = await runSend(url, SENDS[0], { key: 'k3y42' });
		expect(run.error?.message).toMatch(/bad key \[redacted\] \(k3y42x is not it\)/);
		const test = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingXApiKeyApi', data: { apiKey: 'k3y42', apiUrl: url } });
		expect(test.status).toBe('Error');
		expect(test.message).not.toMatch(/\bk3y42\b/);
		expect(seen).toHaveLength(2);
	});
});

describe('credential tests', () => {
	it.each([
		['messagingAuthorizationKeyApi', (url: string) => ({ apiKey: TOKEN, dashboardUrl: url })],
		['messagingXApiKeyApi', (url: string) => ({ apiKey: TOKEN, apiUrl: url })],
		['messagingBearerApi', (url: string) => ({ accessToken: TOKEN, templatesBaseUrl: url })],
	] as const)('%s answered 200 {"success":false,…}: a refusal, not "key accepted"', async (credentialType, data) => {
		const { url } = await serve((_req, res) => json(res, 200, { success: false, message: 'Unauthorized', details: 'Invalid API key' }));
		const result = await callCredentialTest({ nodeType: 'messaging', credentialType, data: data(url) });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Invalid API key/);
	});
});
