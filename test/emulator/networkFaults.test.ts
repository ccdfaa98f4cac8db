/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The faults real networks, proxies and careless services produce (faults.ts table), seen
 * through a raw node:http client on loopback, so each error is the one a transport sees.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startEmulator,  type ScriptStep } from './index';
import { call, clientFor, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator({ seed: 11 });
const api = clientFor(emulator);

interface RawAnswer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}

/** One request on a connection of its own (no keep-alive, no redirect following). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const req = request(url, { method: options.method ?? 'POST', headers: options.headers, agent: false }, (res) => {
			let text = '';
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => (text += chunk));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(options.body);
	});
}

const sendUrl = () => `${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`;
const sendHeaders = () => ({ authorization: `Bearer ${emulator.tokens.bearer}`, 'content-type': 'application/json' });
const directSend = (text: string, url = sendUrl()) => raw(url, { headers: sendHeaders(), body: JSON.stringify({ phone: PHONE, text }) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('after processing, no answer', () => {
	it('reset-after: delivered once, charged, then RST: the client reads ECONNRESET', async () => {
		const credits = emulator.account.credits;
		emulator.setFaults({ script: ['reset-after'] });
		const error = await directSend('reset me').catch((e: NodeJS.ErrnoException) => e);
		expect(error).toBeInstanceOf(Error);
		expect((error as NodeJS.ErrnoException).code).toBe('ECONNRESET');
		expect((error as Error).message).toBe('read ECONNRESET');
		expect(emulator.requests).toMatchObject([{ outcome: 'reset-after', status: 0 }]);
		expect(emulator.deliveries).toMatchObject([{ api: 'send', content: 'reset me', seq: 1 }]);
		expect(emulator.account.credits).toBe(credits - 1);
		// A client that sends it again makes a duplicate the emulator reports.
		expect((await directSend('reset me')).status).toBe(200);
		expect(emulator.duplicates()).toMatchObject([{ api: 'send', content: 'reset me', count: 2 }]);
	});

	it('close-after: delivered once, then a clean close: the client reads "socket hang up"', async () => {
		emulator.setFaults({ script: ['close-after'] });
		const error = await directSend('closed').catch((e: NodeJS.ErrnoException) => e);
		expect((error as Error).message).toBe('socket hang up');
		expect(emulator.requests).toMatchObject([{ outcome: 'close-after', status: 0 }]);
		expect(emulator.deliveries).toMatchObject([{ content: 'closed' }]);
	});

	it('both process every send API (template send here)', async () => {
		emulator.setFaults({ script: ['reset-after', 'close-after'] });
		const template = { template: emulator.templates[0].template_id, phone_number: PHONE, variables: { body1: 'a', body2: 'b' } };
		await expect(api.sendTemplate(template)).rejects.toThrow();
		await expect(api.sendTemplate(template)).rejects.toThrow();
		expect(emulator.deliveries.map((d) => d.api)).toEqual(['templateSend', 'templateSend']);
		expect(emulator.duplicates()).toHaveLength(1);
	});
});

describe('redirects to the trap', () => {
	const STATUSES = [301, 302, 303, 307, 308] as const;

	it.each(STATUSES)('redirect-%i: Location on the trap origin with path and query; nothing processed', async (status) => {
		emulator.setFaults({ script: [`redirect-${status}` as ScriptStep] });
		const answer = await directSend('moved', `${sendUrl()}?x=1&y=two`);
		expect(answer.status).toBe(status);
		expect(answer.headers.location).toBe(`${emulator.trapUrl}/api:snd7f3a/send?x=1&y=two`);
		expect(emulator.trapUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(emulator.trapUrl).not.toBe(emulator.url);
		expect(emulator.requests).toMatchObject([{ outcome: 'redirected', status }]);
		expect(emulator.deliveries).toEqual([]);
		expect(emulator.trapRequests).toEqual([]); // nothing followed it
	});

	it('a client that follows a 307 hands the trap the key and the body, and is told "sent"', async () => {
		emulator.setFaults({ script: ['redirect-307'] });
		const body = JSON.stringify({ phone: PHONE, text: 'secret text' });
		const first = await raw(sendUrl(), { headers: sendHeaders(), body });
		const followed = await raw(String(first.headers.location), { headers: sendHeaders(), body });
		expect(followed.status).toBe(200);
		expect(JSON.parse(followed.text)).toEqual({ message: 'Message sent successfully' });
		expect(emulator.trapRequests).toEqual([
			{
				method: 'POST',
				path: '/api:snd7f3a/send',
				query: {},
				headers: expect.objectContaining({ authorization: `Bearer ${emulator.tokens.bearer}`, 'content-type': 'application/json' }),
				body,
				at: expect.any(Number),
			},
		]);
		expect(emulator.deliveries).toEqual([]);
	});

	it('fetch following a 303 turns the POST into a GET that the trap answers 200 (a false success)', async () => {
		emulator.setFaults({ script: ['redirect-303'] });
		const answer = await call(sendUrl(), { json: { phone: PHONE, text: 'x' }, headers: api.bearer });
		expect(answer).toMatchObject({ status: 200, body: { message: 'Message sent successfully' } });
		expect(emulator.trapRequests).toMatchObject([{ method: 'GET', path: '/api:snd7f3a/send', body: '' }]);
		expect(emulator.deliveries).toEqual([]);
	});

	it('the trap answers each API with a plausible success body', async () => {
		const trap = (path: string, method = 'POST') => raw(`${emulator.trapUrl}${path}`, { method }).then((a) => JSON.parse(a.text));
		expect(await trap('/api:tsd91bc/send_template_message_by_api')).toMatchObject({ success: true, messaging_response_info: { messages: [{ message_status: 'accepted' }] } });
		expect(await trap('/dashboard/api/messaging/messages/v2.0.0/send')).toMatchObject({ success: true, message: 'Message sent' });
		expect(await trap('/alt/v1/messages')).toMatchObject({ success: true, status: 'queued' });
		expect(await trap('/api:tpl2d4e/get_templates', 'GET')).toHaveLength(emulator.templates.length);
		expect(emulator.trapRequests.map((r) => r.path)).toHaveLength(4);
	});

	it('pRedirect picks every status with the seeded RNG', async () => {
		emulator.setFaults({ pRedirect: 1, seed: 3 });
		const statuses = new Set<number>();
		for (let i = 0; i < 40; i++) statuses.add((await directSend(`r${i}`)).status);
		expect([...statuses].sort()).toEqual([...STATUSES]);
		expect(emulator.requests.every((r) => r.outcome === 'redirected')).toBe(true);
		expect(emulator.deliveries).toEqual([]);
	});

	it('redirectTo names another Location verbatim', async () => {
		emulator.setFaults({ script: ['redirect-308'], redirectTo: 'http://127.0.0.1:9/elsewhere?q=1' });
		expect((await directSend('x')).headers.location).toBe('http://127.0.0.1:9/elsewhere?q=1');
		expect(() => emulator.setFaults({ redirectTo: '/relative' })).toThrow(/redirectTo/);
		expect(() => emulator.setFaults({ redirectTo: 'ftp://127.0.0.1/x' })).toThrow(/redirectTo/);
	});

	it('the control API lists and clears the trap records; reset clears them too', async () => {
		await raw(`${emulator.trapUrl}/anything?k=v`, { headers: { 'x-api-key': 'leaked' }, body: 'payload' });
		const listed = await call(`${emulator.url}/__emulator/trap`);
		expect(listed.body).toMatchObject({ url: emulator.trapUrl, requests: [{ method: 'POST', path: '/anything', query: { k: 'v' }, headers: { 'x-api-key': 'leaked' }, body: 'payload' }] });
		expect((await api.control('state')).body.trap).toEqual({ url: emulator.trapUrl, requestCount: 1 });
		expect((await call(`${emulator.url}/__emulator/trap`, { method: 'DELETE' })).body).toEqual({ ok: true });
		expect(emulator.trapRequests).toEqual([]);
		await raw(`${emulator.trapUrl}/again`);
		emulator.reset();
		expect(emulator.trapRequests).toEqual([]);
		expect(emulator.requests).toEqual([]); // the trap's requests are not the service's
	});
});

describe('2xx answers that are not the service', () => {
	it.each([
		['html-200', /^text\/html/, /<form[^>]*>/],
		['empty-200', /^application\/json/, /^$/],
		['wrong-shape-200', /^application\/json/, /^\{"status":"ok","data":null\}$/],
	] as const)('%s: 200, nothing delivered', async (step, contentType, text) => {
		emulator.setFaults({ script: [step] });
		const answer = await directSend('not delivered');
		expect(answer.status).toBe(200);
		expect(answer.headers['content-type']).toMatch(contentType);
		expect(answer.text).toMatch(text);
		expect(emulator.requests).toMatchObject([{ outcome: step, status: 200 }]);
		expect(emulator.deliveries).toEqual([]);
	});

	it('their probabilities apply to every API', async () => {
		emulator.setFaults({ pHtml200: 1 });
		expect((await api.listTemplates()).body).toMatch(/Sign in/);
		emulator.setFaults({ pHtml200: 0, pEmpty200: 1 });
		expect((await api.dashboard({ to: PHONE, text: 'x' })).body).toBeUndefined();
		emulator.setFaults({ pEmpty200: 0, pWrongShape200: 1 });
		expect((await api.alternative({ to: PHONE, message: 'x' })).body).toEqual({ status: 'ok', data: null });
		expect(emulator.requests.map((r) => r.outcome)).toEqual(['html-200', 'empty-200', 'wrong-shape-200']);
		expect(emulator.deliveries).toEqual([]);
	});
});

describe('careless service texts', () => {
	it('5xx-ratelimit-text: delivered, then 503 whose text names a rate limit, in each API shape', async () => {
		emulator.setFaults({ script: Array<ScriptStep>(4).fill('5xx-ratelimit-text') });
		const direct = await api.send({ phone: PHONE, text: 'a' });
		expect(direct).toMatchObject({ status: 503, body: { message: 'Message sending failed | Reason: Rate limit exceeded' } });
		expect(direct.headers.get('retry-after')).toBeNull();
		const template = await api.sendTemplate({ template: emulator.templates[0].template_id, phone_number: PHONE, variables: { body1: 'a', body2: 'b' } });
		expect(template).toMatchObject({ status: 503, body: { error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded' } } });
		expect((await api.dashboard({ to: PHONE, text: 'b' })).body).toMatchObject({ success: false, message: 'Rate limit exceeded' });
		expect((await api.alternative({ to: PHONE, message: 'c' })).status).toBe(503);
		expect(emulator.deliveries).toHaveLength(4);
		expect(new Set(emulator.requests.map((r) => r.outcome))).toEqual(new Set(['5xx-ratelimit-text']));
	});

	it('echo-key: 401 in the API shape quoting the credential it received; nothing delivered', async () => {
		emulator.setFaults({ script: ['echo-key', 'echo-key', 'echo-key'] });
		const direct = await api.send({ phone: PHONE, text: 'x' });
		expect(direct.status).toBe(401);
		expect(direct.body).toEqual({ message: `Message sending failed | Reason: Invalid token: Bearer ${emulator.tokens.bearer}` });
		expect((await api.dashboard({ to: PHONE, text: 'x' })).body.details).toContain(emulator.tokens.dashboardKey);
		expect((await api.alternative({ to: PHONE, message: 'x' })).body.error.message).toContain(emulator.tokens.alternativeKey);
		expect(emulator.requests.map((r) => r.outcome)).toEqual(['echo-key', 'echo-key', 'echo-key']);
		expect(emulator.deliveries).toEqual([]);
	});

	it('echo-key-html: the credential as a page escapes it, `/`, `+` and `=` as decimal entities', async () => {
		emulator.setFaults({ script: ['echo-key-html'] });
		const direct = await api.send({ phone: PHONE, text: 'x' }, { authorization: 'Bearer sk_live/Ab+cD9=ef1' });
		expect(direct.body).toEqual({ message: 'Message sending failed | Reason: Invalid token: Bearer sk_live&#47;Ab&#43;cD9&#61;ef1' });
		expect(emulator.deliveries).toEqual([]);
	});
});

describe('hostile Retry-After', () => {
	it.each(['-5', 'soon', '259200', 'Wed, 21 Oct 2015 07:28:00 GMT', ''])('retryAfter %j comes through verbatim on script and rate-limit 429s', async (value) => {
		emulator.setFaults({ retryAfter: value, script: ['429'] });
		expect((await directSend('a')).headers['retry-after']).toBe(value);
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 60_000, retryAfterSeconds: 3 } });
		expect((await directSend('b')).headers['retry-after']).toBe(value);
		emulator.setFaults({ rateLimit: null, p429: 1 });
		expect((await directSend('c')).headers['retry-after']).toBe(value);
	});

	it('<date:±N> becomes the HTTP-date N seconds from now (past, or days ahead)', async () => {
		emulator.setFaults({ retryAfter: '<date:-3600>', script: ['429', '429'] });
		const past = Date.parse(String((await directSend('a')).headers['retry-after']));
		expect(past - Date.now()).toBeLessThan(-3_590_000);
		emulator.setFaults({ retryAfter: '<date:+259200>' });
		const ahead = Date.parse(String((await directSend('b')).headers['retry-after']));
		expect(Math.abs(ahead - Date.now() - 259_200_000)).toBeLessThan(5_000);
	});

	it('null restores the normal value; values a header cannot carry are refused', async () => {
		emulator.setFaults({ retryAfter: 'soon' });
		emulator.setFaults({ retryAfter: null, script: ['429'] });
		expect((await directSend('a')).headers['retry-after']).toBe('1');
		expect(() => emulator.setFaults({ retryAfter: 'a\r\nx-injected: 1' })).toThrow(/retryAfter/);
		expect(() => emulator.setFaults({ retryAfter: 5 as never })).toThrow(/retryAfter/);
	});
});

describe('never answers', () => {
	it('hang-forever outlasts hangMs; stopping the emulator drops the socket at once', async () => {
		const own = await startEmulator();
		own.setFaults({ script: ['hang-forever'], hangMs: 50 });
		const pending = raw(`${own.credentials.messagingBearerApi.sendBaseUrl}/send`, { headers: sendHeaders(), body: '{}' }).catch((e: Error) => e);
		await sleep(300);
		expect(own.requests).toMatchObject([{ outcome: 'hang', status: 0 }]);
		const started = performance.now();
		await own.close();
		const error = await pending;
		expect(error).toBeInstanceOf(Error);
		expect(performance.now() - started).toBeLessThan(500);
		expect(own.deliveries).toEqual([]);
	});
});

describe('random mix', () => {
	it('every new probability, deterministic for a seed; deliveries exactly where processed', async () => {
		const faults = {
			seed: 99,
			pResetAfterProcessing: 0.1,
			pCloseAfterProcessing: 0.1,
			pRedirect: 0.1,
			pHtml200: 0.1,
			pEmpty200: 0.1,
			pWrongShape200: 0.1,
			p5xxRateLimitText: 0.1,
			pEchoKey: 0.1,
		};
		const run = async () => {
			emulator.reset();
			emulator.setFaults(faults);
			for (let i = 0; i < 120; i++) await directSend(`m${i}`).catch(() => undefined);
			return emulator.requests.map((r) => r.outcome);
		};
		const first = await run();
		expect(await run()).toEqual(first);
		expect(new Set(first)).toEqual(
			new Set(['delivered', 'reset-after', 'close-after', 'redirected', 'html-200', 'empty-200', 'wrong-shape-200', '5xx-ratelimit-text', 'echo-key']),
		);
		const processed = new Set(['delivered', 'reset-after', 'close-after', '5xx-ratelimit-text']);
		expect(emulator.deliveries.map((d) => d.seq)).toEqual(emulator.requests.filter((r) => processed.has(r.outcome)).map((r) => r.seq));
		expect(emulator.duplicates()).toEqual([]);
	});

	it('setting only the original probabilities gives the sequence they gave before', async () => {
		// Pinned from the emulator before the new faults existed (seed 5, 20 direct sends).
		emulator.setFaults({ seed: 5, p429: 0.2, pResetBeforeProcessing: 0.2, p5xxAfterProcessing: 0.2, pSuccessFalse: 0.2 });
		for (let i = 0; i < 20; i++) await directSend(`s${i}`).catch(() => undefined);
		expect(emulator.requests.map((r) => r.outcome)).toEqual(PINNED_SEED_5);
	});
});

// prettier-ignore
const PINNED_SEED_5 = ['success-false', 'success-false', 'reset', 'success-false', 'rate-limited', '5xx-after', '5xx-after', 'reset', 'success-false', 'success-false', 'success-false', 'rate-limited', '5xx-after', 'delivered', 'reset', 'success-false', 'success-false', 'reset', 'rate-limited', 'success-false'];
