/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import { call, clientFor, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator({ seed: 7 });
const api = clientFor(emulator);

const text = (n: number) => ({ phone: PHONE, text: `message ${n}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('latency', () => {
	it('delays every answer without blocking concurrent requests', async () => {
		// A latency long beside a busy machine's stalls: one after another, the four would take 4 s
		// (150 ms answers once took 677 ms with the cores kept busy, against a bound of 450).
		emulator.setFaults({ latencyMs: 1_000 });
		const started = performance.now();
		const answers = await Promise.all([api.send(text(1)), api.listTemplates(), api.listPlants(), api.dashboard({ to: PHONE, text: 'x' })]);
		const elapsed = performance.now() - started;
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
		expect(elapsed).toBeGreaterThanOrEqual(995);
		expect(elapsed).toBeLessThan(2 * 1_000);
	});

	it('the startup latency is the baseline resetFaults returns to', async () => {
		const slow = await startEmulator({ latencyMs: 80 });
		try {
			expect(slow.faults.latencyMs).toBe(80);
			slow.setFaults({ latencyMs: 0 });
			slow.resetFaults();
			const started = performance.now();
			await clientFor(slow).listPlants();
			expect(performance.now() - started).toBeGreaterThanOrEqual(75);
		} finally {
			await slow.close();
		}
	});
});

describe('rate limit', () => {
	it('429 + Retry-After in seconds over the limit, request not processed, per API shape', async () => {
		emulator.setFaults({ rateLimit: { limit: 2, windowMs: 60_000, retryAfterSeconds: 7 } });
		expect((await api.send(text(1))).status).toBe(200);
		expect((await api.dashboard({ to: PHONE, text: 'x' })).status).toBe(200); // all send APIs share the window
		const direct = await api.send(text(2));
		expect(direct.status).toBe(429);
		expect(direct.headers.get('retry-after')).toBe('7');
		expect(direct.body).toEqual({ message: 'Message sending failed | Reason: Rate limit exceeded (messages per minute)' });
		const template = await api.sendTemplate({ template: emulator.templates[0].template_id, phone_number: PHONE, variables: { body1: 'a', body2: 'b' } });
		expect(template.status).toBe(429);
		expect(template.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
		const dashboard = await api.dashboard({ to: PHONE, text: 'y' });
		expect(dashboard.body).toMatchObject({ success: false, message: 'Rate limit exceeded' });
		const alternative = await api.alternative({ to: PHONE, message: 'z' });
		expect(alternative.body.error.code).toBe('RATE_LIMITED');
		expect(emulator.deliveries).toHaveLength(2);
		expect(emulator.requests.filter((r) => r.outcome === 'rate-limited')).toHaveLength(4);
		// Non-send APIs are not limited.
		expect((await api.listTemplates()).status).toBe(200);
	});

	it('computes Retry-After from the window when no fixed value is set', async () => {
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 3_000 } });
		await api.send(text(1));
		const answer = await api.send(text(2));
		expect(answer.status).toBe(429);
		expect(answer.headers.get('retry-after')).toBe('3');
	});

	it("answer 'reason': the spec's form of a rate refusal, a 400 in each API's error body with no Retry-After", async () => {
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 60_000, answer: 'reason' } });
		expect((await api.send(text(1))).status).toBe(200);
		const direct = await api.send(text(2));
		expect(direct.status).toBe(400);
		expect(direct.headers.get('retry-after')).toBeNull();
		expect(direct.body).toEqual({ message: 'Message sending failed | Reason: Rate limit exceeded (messages per minute or per hour)' });
		expect(emulator.deliveries).toHaveLength(1);
		expect(emulator.requests.at(-1)?.outcome).toBe('rate-limited');
	});

	it('Retry-After as an HTTP-date', async () => {
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 60_000, retryAfterFormat: 'date' } });
		await api.send(text(1));
		const answer = await api.send(text(2));
		const header = answer.headers.get('retry-after')!;
		expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
		const waitMs = Date.parse(header) - Date.now();
		expect(waitMs).toBeGreaterThan(58_000);
		expect(waitMs).toBeLessThanOrEqual(61_000);
	});

	it('the window slides: after windowMs the next send goes through', async () => {
		emulator.setFaults({ rateLimit: { limit: 2, windowMs: 250 } });
		expect((await Promise.all([api.send(text(1)), api.send(text(2)), api.send(text(3))])).map((a) => a.status).sort()).toEqual([200, 200, 429]);
		await sleep(270);
		expect((await api.send(text(4))).status).toBe(200);
		expect(emulator.maxRequestsInWindow(250, (r) => r.outcome === 'delivered')).toBe(2);
	});

	it("counting: 'clock' resets the count when the clock passes a multiple of the window, whenever the last send was; Retry-After names that time", async () => {
		// 60 s windows: started in the clock's last 500 ms of a minute, the reset would come between the sends.
		while (Date.now() % 60_000 > 59_500) await sleep(100);
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 60_000, counting: 'clock' } });
		expect((await api.send(text(1))).status).toBe(200);
		const refused = await api.send(text(2));
		expect(refused.status).toBe(429);
		const toReset = 60_000 - (Date.now() % 60_000);
		// The time to the clock's next minute, rounded up to whole seconds; a sliding window would say a minute.
		expect(Number(refused.headers.get('retry-after')) * 1000).toBeGreaterThanOrEqual(toReset);
		expect(Number(refused.headers.get('retry-after')) * 1000).toBeLessThan(toReset + 1_500);
		// 250 ms windows of the clock: the next one admits again, though no 250 ms passed since the first send of this one.
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 250, counting: 'clock' } });
		while (Date.now() % 250 > 150) await sleep(10);
		expect((await api.send(text(3))).status).toBe(200);
		await sleep(250 - (Date.now() % 250) + 5);
		expect((await api.send(text(4))).status).toBe(200);
	});

	it("counting: 'every' logs refused sends too (a sliding log that records each request before it checks): a client that keeps asking keeps the window shut", async () => {
		for (const counting of ['sliding', 'every'] as const) {
			emulator.setFaults({ rateLimit: { limit: 1, windowMs: 1_500, answer: 'reason', counting } });
			const first = performance.now();
			expect((await api.send(text(1))).status).toBe(200);
			await sleep(700 - (performance.now() - first));
			expect((await api.send(text(2))).status).toBe(400);
			// The accepted send has left the window; the refused one (at 700 ms) has not.
			await sleep(1_600 - (performance.now() - first));
			const third = performance.now();
			expect((await api.send(text(3))).status).toBe(counting === 'every' ? 400 : 200);
			// Refused again, the window stays shut a whole window from that refusal.
			await sleep(1_600 - (performance.now() - third));
			expect((await api.send(text(4))).status).toBe(200);
		}
	});

	it('gateway: a shorter limit in front, answered 429 with the time it frees; the service behind keeps its own limit and answer', async () => {
		emulator.setFaults({ rateLimit: { limit: 3, windowMs: 60_000, answer: 'reason', gateway: { limit: 2, windowMs: 500 } } });
		expect((await api.send(text(1))).status).toBe(200);
		expect((await api.send(text(2))).status).toBe(200);
		const atGateway = await api.send(text(3));
		expect(atGateway.status).toBe(429);
		expect(atGateway.headers.get('retry-after')).toBe('1');
		await sleep(550);
		expect((await api.send(text(3))).status).toBe(200);
		// The gateway lets it through (one in its window); the service's window holds 3.
		const atService = await api.send(text(4));
		expect(atService.status).toBe(400);
		expect(atService.headers.get('retry-after')).toBeNull();
		expect(emulator.deliveries).toHaveLength(3);
		expect(() => emulator.setFaults({ rateLimit: { limit: 1, windowMs: 1_000, gateway: { limit: 1, windowMs: 0 } } })).toThrow(/gateway/);
	});

		it('rateLimit: null switches it off', async () => {
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 1000 } });
		expect((await api.send(text(1))).status).toBe(429);
		emulator.setFaults({ rateLimit: null });
		expect((await api.send(text(1))).status).toBe(200);
	});
});

describe('script', () => {
	it('consumes one step per API request, in order, before anything else', async () => {
		emulator.setFaults({ script: ['429', '5xx-before', 'ok', 'success-false', '5xx-after'] });
		const statuses: number[] = [];
		for (let i = 0; i < 6; i++) statuses.push((await api.send(text(i))).status);
		expect(statuses).toEqual([429, 503, 200, 200, 500, 200]);
		expect(emulator.requests.map((r) => r.outcome)).toEqual(['rate-limited', '5xx-before', 'delivered', 'success-false', '5xx-after', 'delivered']);
		expect(emulator.deliveries.map((d) => d.content)).toEqual(['message 2', 'message 4', 'message 5']);
		expect(emulator.faults.script).toEqual([]);
	});

	it('429 carries Retry-After: 1; 5xx-before keeps the API shape and delivers nothing', async () => {
		emulator.setFaults({ script: ['429', '5xx-before'] });
		const limited = await api.listTemplates();
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('1');
		const before = await api.createPlant({ name: 'X', id: 50 });
		expect(before.status).toBe(503);
		expect(before.body).toEqual({ error: 503, message: expect.any(String) });
		expect(emulator.plants()).toHaveLength(3);
	});

	it('5xx-after processes fully: delivery recorded, credit charged, then 500', async () => {
		const credits = emulator.account.credits;
		emulator.setFaults({ script: ['5xx-after'] });
		const answer = await api.dashboard({ to: PHONE, text: 'lost answer' });
		expect(answer.status).toBe(500);
		expect(answer.body).toEqual({ success: false, message: 'Internal server error', details: expect.any(String) });
		expect(emulator.deliveries).toMatchObject([{ api: 'dashboard', content: 'lost answer' }]);
		expect(emulator.account.credits).toBe(credits - 1);
	});

	it('success-false answers 200 with a failure body per send API and delivers nothing', async () => {
		emulator.setFaults({ script: ['success-false', 'success-false', 'success-false', 'success-false', 'success-false'] });
		expect((await api.send(text(1))).body).toEqual({ message: 'Message sending failed | Reason: Internal delivery error' });
		const template = await api.sendTemplate({ template: emulator.templates[0].template_id, phone_number: PHONE, variables: { body1: 'a', body2: 'b' } });
		expect(template.status).toBe(200);
		expect(template.body).toEqual({ success: false, error: { code: 'DELIVERY_FAILED', message: expect.any(String) } });
		const dashboard = await api.dashboard({ to: PHONE, text: 'x' });
		expect(dashboard).toMatchObject({ status: 200, body: { success: false, message: 'Delivery failed', details: expect.any(String) } });
		expect((await api.alternative({ to: PHONE, message: 'x' })).body.success).toBe(false);
		// Not a send: served normally.
		expect((await api.listPlants()).body).toHaveLength(3);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('reset destroys the socket without answering or processing', async () => {
		emulator.setFaults({ script: ['reset'] });
		await expect(api.send(text(1))).rejects.toThrow();
		expect(emulator.requests).toHaveLength(1); // fetch did not retry on its own
		expect(emulator.requests[0]).toMatchObject({ outcome: 'reset', status: 0 });
		expect(emulator.deliveries).toHaveLength(0);
		expect((await api.send(text(2))).status).toBe(200);
	});

	it('hang never answers: the client gives up; nothing is processed', async () => {
		emulator.setFaults({ script: ['hang'] });
		const url = `${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`;
		const started = performance.now();
		await expect(call(url, { json: text(1), headers: api.bearer, signal: AbortSignal.timeout(200) })).rejects.toThrow();
		expect(performance.now() - started).toBeGreaterThanOrEqual(190);
		expect(emulator.requests[0]).toMatchObject({ outcome: 'hang', status: 0 });
		expect(emulator.deliveries).toHaveLength(0);
		expect((await api.send(text(2))).status).toBe(200);
	});

	it('hangMs bounds a hang: the socket is destroyed after it', async () => {
		emulator.setFaults({ script: ['hang'], hangMs: 100 });
		const started = performance.now();
		await expect(api.send(text(1))).rejects.toThrow();
		expect(performance.now() - started).toBeLessThan(1000);
		emulator.setFaults({ hangMs: 600_000 });
		expect(emulator.faults.hangMs).toBe(60_000);
	});
});

describe('random faults', () => {
	const run = async (n: number) => {
		const outcomes: string[] = [];
		for (let i = 0; i < n; i++) {
			await api.send(text(i)).catch(() => undefined);
		}
		for (const r of emulator.requests) outcomes.push(r.outcome);
		return outcomes;
	};

	it('are deterministic for a seed and mix every kind', async () => {
		const faults = { seed: 42, p429: 0.2, pResetBeforeProcessing: 0.1, p5xxAfterProcessing: 0.2, pSuccessFalse: 0.2 };
		emulator.setFaults(faults);
		const first = await run(60);
		emulator.reset();
		emulator.setFaults(faults);
		const second = await run(60);
		expect(second).toEqual(first);
		expect(new Set(first)).toEqual(new Set(['delivered', 'rate-limited', 'reset', '5xx-after', 'success-false']));
		// 5xx-after delivered; success-false and 429 did not.
		const delivered = emulator.requests.filter((r) => r.outcome === 'delivered' || r.outcome === '5xx-after').map((r) => r.seq);
		expect(emulator.deliveries.map((d) => d.seq)).toEqual(delivered);
		const fiveXx = emulator.requests.filter((r) => r.outcome === '5xx-after').map((r) => r.status);
		expect(fiveXx.every((s) => s === 500 || s === 502)).toBe(true);
		const limited = emulator.requests.filter((r) => r.outcome === 'rate-limited');
		expect(limited.every((r) => r.status === 429)).toBe(true);
		emulator.reset();
		emulator.setFaults({ ...faults, seed: 43 });
		expect(await run(60)).not.toEqual(first);
	});

	it('apply to every API route, success-false only to sends', async () => {
		emulator.setFaults({ pSuccessFalse: 1 });
		expect((await api.listTemplates()).status).toBe(200);
		expect((await api.createPlant({ name: 'Y', id: 77 })).body).toEqual({ name: 'Y' });
		emulator.setFaults({ pSuccessFalse: 0, p429: 1 });
		expect((await api.listPlants()).status).toBe(429);
		expect((await api.listPlants()).headers.get('retry-after')).toBe('1');
	});

	it('resetFaults turns everything off', async () => {
		emulator.setFaults({ p429: 1, latencyMs: 50, rateLimit: { limit: 0, windowMs: 1000 }, script: ['reset'] });
		emulator.resetFaults();
		expect(emulator.faults).toMatchObject({ p429: 0, latencyMs: 0, rateLimit: null, script: [] });
		expect((await api.send(text(1))).status).toBe(200);
	});

	it('setFaults rejects unknown or malformed settings', () => {
		expect(() => emulator.setFaults({ p5xx: 0.1 } as never)).toThrow(/Unknown fault 'p5xx'/);
		expect(() => emulator.setFaults({ p429: 2 })).toThrow(/probability/);
		expect(() => emulator.setFaults({ script: ['boom' as never] })).toThrow(/script/);
		expect(() => emulator.setFaults({ rateLimit: { limit: 1, windowMs: 0 } })).toThrow(/rateLimit/);
	});
});
