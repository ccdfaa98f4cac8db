/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The limiter's windows under simulated time: a request counts in a window from its start
 * until a window length (plus margin) after its answer, so no window at the service can see more
 * than the limit; starts are evenly spaced; and a request starts as soon as the rule allows.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Limiter, type Pacing } from '../../nodes/shared/transport/limiter';

interface Sent {
	start: number;
	answer: number;
}

/** Sends `n` requests through a fresh limiter; the "service" answers each after `latencyMs`. */
async function simulate(n: number, pacing: Pacing, latencyMs: number): Promise<Sent[]> {
	const limiter = new Limiter();
	const signal = new AbortController().signal;
	const sent: Sent[] = [];
	const all = Promise.all(
		Array.from({ length: n }, async () => {
			const permit = await limiter.acquire(pacing, signal);
			const record = { start: Date.now(), answer: Infinity };
			sent.push(record);
			await new Promise((resolve) => setTimeout(resolve, latencyMs));
			record.answer = Date.now();
			permit.done();
		}),
	);
	await vi.runAllTimersAsync();
	await all;
	return sent;
}

/** The most requests counted at any start: started at or before it, answered less than `countedMs` before it. */
function maxCounted(sent: Sent[], countedMs: number): number {
	return Math.max(...sent.map(({ start }) => sent.filter((other) => other.start <= start && other.answer + countedMs > start).length));
}

describe('Limiter windows', () => {
	beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
	afterEach(() => vi.useRealTimers());

	it('per second: never more than the limit counted, evenly spaced, each start as early as the rule allows', async () => {
		const sent = await simulate(35, { maxConcurrent: 4, maxPerSecond: 10, maxPerMinute: 0 }, 30);
		expect(sent).toHaveLength(35);
		expect(maxCounted(sent, 1_000)).toBeLessThanOrEqual(10);
		for (let i = 1; i < sent.length; i++) expect(sent[i].start - sent[i - 1].start).toBeGreaterThanOrEqual(100);
		// The 11th waits for the 1st to leave its window (answer + 1 s + 10 ms margin), no longer.
		expect(sent[10].start).toBe(sent[0].answer + 1_010);
		expect(sent[20].start).toBe(sent[10].answer + 1_010);
		// Between those, spacing alone decides.
		expect(sent[11].start - sent[10].start).toBe(100);
	});

	it('per minute: the same rule over 60 s with a 600 ms margin', async () => {
		const sent = await simulate(45, { maxConcurrent: 8, maxPerSecond: 0, maxPerMinute: 20 }, 50);
		expect(maxCounted(sent, 60_000)).toBeLessThanOrEqual(20);
		expect(sent[20].start).toBe(sent[0].answer + 60_600);
		expect(sent[40].start).toBe(sent[20].answer + 60_600);
	});

	it('both windows and a concurrency of 1 at once', async () => {
		const sent = await simulate(130, { maxConcurrent: 1, maxPerSecond: 50, maxPerMinute: 120 }, 5);
		expect(maxCounted(sent, 1_000)).toBeLessThanOrEqual(50);
		expect(maxCounted(sent, 60_000)).toBeLessThanOrEqual(120);
		for (let i = 1; i < sent.length; i++) expect(sent[i].start).toBeGreaterThanOrEqual(sent[i - 1].answer);
		expect(sent[120].start).toBe(sent[0].answer + 60_600);
	});
});

describe("Limiter abort", () => {
	beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
	afterEach(() => vi.useRealTimers());

	it("an aborted run's waiters leave at once; another run sharing the limiter goes on", async () => {
		const limiter = new Limiter();
		const pacing: Pacing = { maxConcurrent: 1, maxPerSecond: 0, maxPerMinute: 0 };
		const runA = new AbortController();
		const runB = new AbortController();
		const first = await limiter.acquire(pacing, runA.signal);
		const waitingA = Array.from({ length: 3 }, () => limiter.acquire(pacing, runA.signal));
		const waitingB = limiter.acquire(pacing, runB.signal);
		runA.abort(new Error('stopped'));
		for (const waiting of waitingA) await expect(waiting).rejects.toThrow('stopped');
		first.done();
		const permitB = await waitingB;
		permitB.done();
		await expect(limiter.acquire(pacing, runA.signal)).rejects.toThrow('stopped');
	});

	it('a retry that keeps its slot gives it back when its run stops while it waits', async () => {
		const limiter = new Limiter();
		const pacing: Pacing = { maxConcurrent: 1, maxPerSecond: 0, maxPerMinute: 0 };
		const run = new AbortController();
		const attempt = await limiter.acquire(pacing, run.signal);
		attempt.done({ keepSlot: true });
		limiter.pauseUntil(Date.now() + 60_000);
		const retry = limiter.acquire(pacing, run.signal, { hasSlot: true });
		run.abort(new Error('stopped'));
		await expect(retry).rejects.toThrow('stopped');
		limiter.pauseUntil(0);
		const other = new AbortController();
		const next = limiter.acquire(pacing, other.signal);
		// The pause still holds, but the slot is free again: only the pause keeps it waiting.
		await vi.advanceTimersByTimeAsync(60_000);
		await expect(next).resolves.toBeDefined();
	});
});
