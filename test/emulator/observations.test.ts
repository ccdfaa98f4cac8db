/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call, clientFor, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator();
const api = clientFor(emulator);

describe('emulator object', () => {
	it('exposes the URL, base URLs and credentials in the credential types’ fields', () => {
		const { url, credentials, tokens } = emulator;
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(credentials).toEqual({
			messagingBearerApi: {
				accessToken: tokens.bearer,
				sendBaseUrl: `${url}/api:snd7f3a`,
				templateSendBaseUrl: `${url}/api:tsd91bc`,
				templatesBaseUrl: `${url}/api:tpl2d4e`,
				sandboxBaseUrl: `${url}/sandbox`,
			},
			messagingAuthorizationKeyApi: { apiKey: tokens.dashboardKey, dashboardUrl: `${url}/dashboard` },
			messagingXApiKeyApi: { apiKey: tokens.alternativeKey, apiUrl: `${url}/alt` },
		});
		expect(new Set(Object.values(tokens)).size).toBe(4);
		expect(tokens.bearer).toMatch(/^emu_/);
	});
});

describe('routing', () => {
	it('404 JSON for unknown paths, in the shape of the API whose prefix they carry', async () => {
		const unknown = await call(`${emulator.url}/nothing/here`);
		expect(unknown.status).toBe(404);
		expect(unknown.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for GET /nothing/here' } });
		// A trailing slash or a doubled one is a different path: base URLs must be joined cleanly.
		const trailing = await call(`${emulator.url}/api:snd7f3a/send/`, { json: { phone: PHONE, text: 'x' }, headers: api.bearer });
		expect(trailing.status).toBe(404);
		const slashy = await call(`${emulator.url}/api:snd7f3a//send`, { json: { phone: PHONE, text: 'x' }, headers: api.bearer });
		expect(slashy.status).toBe(404);
		expect(slashy.body.message).toMatch(/^Message sending failed \| Reason: No route/);
		expect((await call(`${emulator.url}/dashboard/api/messaging/messages/v1/send`, { json: {} })).body).toMatchObject({ success: false, message: 'Not found' });
		expect(emulator.requests.filter((r) => r.api === 'unknown')).toHaveLength(4);
	});

	it('405 with Allow for a known path and the wrong method', async () => {
		const answer = await call(`${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`, { headers: api.bearer });
		expect(answer.status).toBe(405);
		expect(answer.headers.get('allow')).toBe('POST');
		expect(answer.body.message).toMatch(/^Message sending failed \| Reason: Method GET not allowed/);
		const list = await call(`${emulator.credentials.messagingBearerApi.templatesBaseUrl}/get_templates`, { json: {}, headers: api.bearer });
		expect(list.status).toBe(405);
		expect(list.body.error.code).toBe('METHOD_NOT_ALLOWED');
	});

	it('a percent-encoded colon in the group segment routes the same', async () => {
		const answer = await call(`${emulator.url}/api%3Asnd7f3a/send`, { json: { phone: PHONE, text: 'x' }, headers: api.bearer });
		expect(answer.status).toBe(200);
	});
});

describe('observations', () => {
	it('records each request compactly with lower-case headers, parsed body and outcome', async () => {
		await api.send({ phone: PHONE, text: 'hello' }, { Authorization: `Bearer ${emulator.tokens.bearer}`, 'X-Trace': 't1' });
		await api.listPlants('?limit=1');
		const [send, list] = emulator.requests;
		expect(send).toEqual({
			seq: 1,
			api: 'send',
			method: 'POST',
			path: '/api:snd7f3a/send',
			query: {},
			headers: expect.objectContaining({ authorization: `Bearer ${emulator.tokens.bearer}`, 'x-trace': 't1', 'content-type': 'application/json' }),
			body: { phone: PHONE, text: 'hello' },
			at: expect.any(Number),
			outcome: 'delivered',
			status: 200,
		});
		expect(list).toMatchObject({ seq: 2, api: 'plantsList', query: { limit: '1' }, body: undefined, outcome: 'ok', status: 200 });
		expect(list.at).toBeGreaterThan(send.at);
		expect(Math.abs(send.at - Date.now())).toBeLessThan(5_000);
		await call(`${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`, { raw: 'not json', headers: { ...api.bearer, 'content-type': 'application/json' } });
		expect(emulator.requests[2].body).toBe('not json');
	});

	it('deliveryCounts and duplicates key deliveries by api|recipient|content', async () => {
		await api.send({ phone: PHONE, text: 'same' });
		await api.send({ phone: PHONE, text: 'same' });
		await api.send({ phone: PHONE, text: 'same', attachment: 'https://cdn.example.com/a.png' });
		await api.dashboard({ to: PHONE, text: 'same' });
		await api.alternative({ to: PHONE, message: 'same' });
		await api.alternative({ to: PHONE, message: 'same' });
		await api.alternative({ to: PHONE, message: 'same' });
		const counts = emulator.deliveryCounts();
		expect(counts.get(`send|${PHONE}|same`)).toBe(2);
		expect(counts.get(`send|${PHONE}|same [attachment: https://cdn.example.com/a.png]`)).toBe(1);
		expect(counts.get(`dashboard|${PHONE}|same`)).toBe(1);
		expect(emulator.duplicates()).toEqual([
			{ key: `send|${PHONE}|same`, api: 'send', recipient: PHONE, content: 'same', count: 2 },
			{ key: `alternative|${PHONE}|same`, api: 'alternative', recipient: PHONE, content: 'same', count: 3 },
		]);
	});

	it('maxRequestsInWindow finds the busiest window, optionally filtered', async () => {
		for (let i = 0; i < 3; i++) await api.send({ phone: PHONE, text: `a${i}` });
		await new Promise((resolve) => setTimeout(resolve, 120));
		for (let i = 0; i < 5; i++) await api.listPlants();
		expect(emulator.maxRequestsInWindow(100)).toBe(5);
		expect(emulator.maxRequestsInWindow(100, (r) => r.api === 'send')).toBe(3);
		expect(emulator.maxRequestsInWindow(60_000)).toBe(8);
	});

	it('reset() clears requests, deliveries, faults, account and plants in place', async () => {
		const { requests, account } = emulator;
		await api.send({ phone: PHONE, text: 'x' });
		await api.deletePlant(1);
		emulator.setFaults({ latencyMs: 20 });
		emulator.account.credits = 3;
		emulator.reset();
		expect(requests).toHaveLength(0);
		expect(emulator.deliveries).toHaveLength(0);
		expect(emulator.faults.latencyMs).toBe(0);
		expect(account.credits).toBe(1_000_000);
		expect(emulator.account).toBe(account);
		expect(emulator.plants()).toHaveLength(3);
		await api.send({ phone: PHONE, text: 'y' });
		expect(emulator.requests[0].seq).toBe(1);
	});

	// How fast is the benchmark's business (bench/run.ts measures the emulator's CPU per request);
	// here only that 20 concurrent clients lose and double nothing.
	it('takes 2,000 requests from 20 concurrent clients, each delivered once', async () => {
		const workers = Array.from({ length: 20 }, async (_, w) => {
			for (let i = 0; i < 100; i++) await api.send({ phone: PHONE, text: `bulk ${w}-${i}` });
		});
		await Promise.all(workers);
		expect(emulator.deliveries).toHaveLength(2_000);
		expect(emulator.duplicates()).toEqual([]);
	});
});

describe('control API', () => {
	it('GET state shows requests, delivery count, duplicates, account and faults', async () => {
		await api.send({ phone: PHONE, text: 'twice' });
		await api.send({ phone: PHONE, text: 'twice' });
		const state = await api.control('state');
		expect(state.status).toBe(200);
		expect(state.body).toMatchObject({
			requestCount: 2,
			deliveries: 2,
			duplicates: [{ api: 'send', recipient: PHONE, content: 'twice', count: 2 }],
			account: { notOnPlatform: ['+15550000000'], subscriptionExpired: false },
			faults: { latencyMs: 0, script: [] },
		});
		expect(state.body.requests).toHaveLength(2);
		expect((await call(`${emulator.url}/__emulator/state?requests=none`)).body.requests).toBeUndefined();
		expect((await api.control('deliveries')).body).toHaveLength(2);
		expect(emulator.requests).toHaveLength(2); // control calls are not recorded
	});

	it('POST faults, account, attachments and reset switch the emulator', async () => {
		const faults = await api.control('faults', { script: ['429'], rateLimit: { limit: 5, windowMs: 1000 } });
		expect(faults.status).toBe(200);
		expect(faults.body).toMatchObject({ script: ['429'], rateLimit: { limit: 5, windowMs: 1000 } });
		expect((await api.send({ phone: PHONE, text: 'x' })).status).toBe(429);

		const account = await api.control('account', { credits: 0, notOnPlatform: ['+14155550999'] });
		expect(account.body).toMatchObject({ credits: 0, notOnPlatform: ['+14155550999'] });
		expect(emulator.account.notOnPlatform.has('+14155550999')).toBe(true);
		expect((await api.send({ phone: PHONE, text: 'x' })).status).toBe(403);

		await api.control('account', { credits: 10 });
		await api.control('attachments', { url: 'https://cdn.example.com/huge.png', bytes: 6 * 1024 * 1024 });
		expect((await api.send({ phone: PHONE, text: 'x', attachment: 'https://cdn.example.com/huge.png' })).body.message).toMatch(/File size or type/);

		expect((await api.control('reset', {})).body).toEqual({ ok: true });
		expect(emulator.requests).toHaveLength(0);
		expect(emulator.account.credits).toBe(1_000_000);
		expect(emulator.faults.rateLimit).toBeNull();
	});

	it('400 for bad control bodies, 404/405 for unknown actions', async () => {
		expect((await api.control('faults', { p429: 'often' })).status).toBe(400);
		expect((await api.control('account', { credit: 5 })).body.error.message).toMatch(/Unknown account field 'credit'/);
		expect((await call(`${emulator.url}/__emulator/faults`, { raw: '{', headers: { 'content-type': 'application/json' } })).status).toBe(400);
		expect((await api.control('nope')).status).toBe(404);
		expect((await call(`${emulator.url}/__emulator/reset`)).status).toBe(405);
	});
});

describe('cli', () => {
	it('starts, prints the URL and credentials, serves, and stops on SIGTERM', async () => {
		const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
		const child = spawn(tsx, [fileURLToPath(new URL('./cli.ts', import.meta.url)), '--port', '0', '--latency', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.setEncoding('utf8');
		const url = await new Promise<string>((resolve, reject) => {
			child.stdout.on('data', (chunk: string) => {
				output += chunk;
				const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
				if (match && output.includes('Press Ctrl+C')) resolve(match[1]);
			});
			child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${output}`)));
		});
		expect(output).toContain(`"sendBaseUrl": "${url}/api:snd7f3a"`);
		expect(output).toContain(`"dashboardUrl": "${url}/dashboard"`);
		expect(output).toContain(`"apiUrl": "${url}/alt"`);
		expect((await call(`${url}/__emulator/state?requests=none`)).status).toBe(200);
		child.kill('SIGTERM');
		const [code] = await once(child, 'exit');
		expect(code).toBe(0);
	}, 20_000);
});
