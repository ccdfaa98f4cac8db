/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The limiter (nodes/shared/transport/limiter.ts) on its own, with real timers: who starts,
 * when, and in which order. Timings are measured with Date.now() (the limiter's own clock);
 * bounds leave room for a busy two-core machine.
 */
import { describe, expect, it } from 'vitest';

import { interruptibleSleep, Limiter, sharedLimiter } from '../../nodes/shared/transport/limiter';
import type { Pacing, Permit } from '../../nodes/shared/transport/limiter';

const pacing = (overrides: Partial<Pacing> = {}): Pacing => ({ maxConcurrent: 1, maxPerSecond: 0, maxPerMinute: 0, ...overrides });
const never = new AbortController().signal;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` requests through `limiter`, each under way for `workMs`: when each started (by request
 * index), and the most at once. `since`: when their run started (default: now).
 */
async function runRequests(limiter: Limiter, count: number, workMs: number, limits: Pacing, since?: number) {
	const starts: number[] = [];
	const order: number[] = [];
	let active = 0;
	let maxActive = 0;
	await Promise.all(
		Array.from({ length: count }, async (_, index) => {
			const permit = await limiter.acquire(limits, never, since === undefined ? {} : { since });
			starts[index] = Date.now();
			order.push(index);
			active++;
			maxActive = Math.max(maxActive, active);
			await delay(workMs);
			active--;
			permit.done();
		}),
	);
	return { starts, order, maxActive };
}

/** The most of `starts` (ms) in any one-second window. */
const mostInAnySecond = (starts: number[]) => Math.max(...starts.map((from) => starts.filter((at) => at >= from && at < from + 1000).length));

/**
 * `starts` (in order) keep a schedule of one every `intervalMs` from `from`: the k-th never before
 * `from + k × intervalMs`. The limiter reads the same clock and never grants before a start is due.
 */
function expectOnSchedule(starts: number[], from: number, intervalMs: number) {
	starts.forEach((at, k) => expect(at - from, `start ${k}`).toBeGreaterThanOrEqual(k * intervalMs));
}

/** Whether a promise has settled after the event loop had a moment. */
async function settled(promise: Promise<unknown>, ms = 20): Promise<boolean> {
	let done = false;
	void promise.then(
		() => (done = true),
		() => (done = true),
	);
	await delay(ms);
	return done;
}

describe('Limiter', () => {
	it('never has more than maxConcurrent under way, and grants in the order asked (FIFO)', async () => {
		const { order, maxActive } = await runRequests(new Limiter(), 12, 10, pacing({ maxConcurrent: 3 }));
		expect(maxActive).toBe(3);
		expect(order).toEqual([...Array(12).keys()]);
	});

	it('with one slot, each request waits for the one before to be done', async () => {
		const limiter = new Limiter();
		const first = await limiter.acquire(pacing(), never);
		const second = limiter.acquire(pacing(), never);
		expect(await settled(second)).toBe(false);
		first.done();
		(await second).done();
	});

	it('spaces starts evenly by maxPerSecond (20/s: one every 50 ms), not in bursts', async () => {
		const began = Date.now();
		const { starts } = await runRequests(new Limiter(), 10, 1, pacing({ maxConcurrent: 8, maxPerSecond: 20 }));
		const sorted = [...starts].sort((a, b) => a - b);
		expect(sorted[0] - began).toBeLessThan(40);
		// One every 50 ms from the start, never ahead of that (the spacing is kept from when each
		// start was due, so one after a late timer may follow it sooner than 50 ms).
		expectOnSchedule(sorted, began, 50);
		expect(sorted.at(-1)! - began).toBeLessThan(9 * 50 + 300);
	});

	it("paces from the run's start: the starts due while the run checked its items go at once, then evenly", async () => {
		// 20/s from a run that began 200 ms ago: starts were due at 0, 50, ..., 200 ms: five now.
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 8, maxPerSecond: 20 });
		const since = Date.now() - 200;
		const { starts } = await runRequests(limiter, 10, 1, limits, since);
		const now = starts[0];
		expect(starts.filter((at) => at - now < 25)).toHaveLength(5);
		// On the run's schedule, never ahead of it: the tenth was due 450 ms after the run began.
		expectOnSchedule(starts, since, 50);
		// A later run on the same limiter gets no head start from a time the limiter was busy: its
		// start is due after the tenth's (500 ms after the first run began), not 50 ms after its own.
		const next = await limiter.acquire(limits, never, { since: since + 100 });
		expect(Date.now() - since).toBeGreaterThanOrEqual(500);
		next.done();
	});

	it('keeps the run on its schedule when a window holds starts back, and begins afresh after a pause', async () => {
		// 20/s from a run that began 200 ms ago, answers after 10 ms: 5 start at once. Starts 20-24
		// wait for a second after the answers of 0-4 (~1.22 s); 25-29 are then due on the run's
		// schedule (1.25-1.45 s), not 50 ms apart from 1.22 s (up to 1.67 s).
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 8, maxPerSecond: 20 });
		const since = Date.now() - 200;
		const { starts } = await runRequests(limiter, 30, 10, limits, since);
		expect(mostInAnySecond(starts)).toBeLessThanOrEqual(20);
		expect(starts[29] - since).toBeGreaterThanOrEqual(1_445);
		expect(starts[29] - since).toBeLessThan(1_600);
		// A Retry-After: nothing is made up after it, the next starts are an interval apart.
		const pausedAt = Date.now();
		limiter.pauseUntil(pausedAt + 300);
		const { starts: after } = await runRequests(limiter, 4, 1, limits, since);
		expect(after[0] - pausedAt).toBeGreaterThanOrEqual(300);
		expectOnSchedule(after, pausedAt + 300, 50);
	});

	it('makes up at most one window of a run that waited long before its first start', async () => {
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 50, maxPerSecond: 10 });
		const { starts } = await runRequests(limiter, 14, 1, limits, Date.now() - 10_000);
		// Due within the last second: 11 (at -1000, -900, ..., 0 ms); the window allows 10.
		expect(starts.filter((at) => at - starts[0] < 25)).toHaveLength(10);
		expect(mostInAnySecond(starts)).toBeLessThanOrEqual(10);
	});

	it('never starts more than maxPerSecond in any one-second window, measured by start times', async () => {
		const began = Date.now();
		const { starts } = await runRequests(new Limiter(), 30, 1, pacing({ maxConcurrent: 8, maxPerSecond: 20 }));
		expect(mostInAnySecond(starts)).toBeLessThanOrEqual(20);
		// 30 requests at 20/s need a little over 1.45 s, and not much more.
		const elapsed = Date.now() - began;
		expect(elapsed).toBeGreaterThanOrEqual(1400);
		expect(elapsed).toBeLessThan(2500);
	});

	it('a request still under way keeps counting in the window (the service counts it when it arrives)', async () => {
		// 2 per second, 4 slots: the first two take 1.2 s. The third may not start until a second
		// after the first answer: before that the service may still count both.
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 4, maxPerSecond: 2 });
		const began = Date.now();
		const long = [await limiter.acquire(limits, never), await limiter.acquire(limits, never)];
		const third = limiter.acquire(limits, never).then((permit) => ({ permit, at: Date.now() }));
		await delay(1_200);
		const answeredAt = Date.now();
		long.forEach((permit) => permit.done());
		const { permit, at } = await third;
		permit.done();
		expect(at - answeredAt).toBeGreaterThanOrEqual(1_000);
		expect(at - began).toBeLessThan(3_000);
	});

	it('pauseUntil holds every request until then, also those of other pacings', async () => {
		const limiter = new Limiter();
		const began = Date.now();
		limiter.pauseUntil(began + 300);
		const { starts } = await runRequests(limiter, 4, 1, pacing({ maxConcurrent: 4 }));
		for (const at of starts) expect(at - began).toBeGreaterThanOrEqual(295);
		// An earlier pause does not shorten a later one.
		limiter.pauseUntil(Date.now() + 200);
		limiter.pauseUntil(Date.now() + 50);
		const from = Date.now();
		(await limiter.acquire(pacing({ maxConcurrent: 4 }), never)).done();
		expect(Date.now() - from).toBeGreaterThanOrEqual(190);
	});

	it('a retry that kept its slot goes before everyone waiting, and nobody takes its slot meanwhile', async () => {
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 1 });
		const granted: string[] = [];
		const first = await limiter.acquire(limits, never);
		const others = ['b', 'c'].map((name) =>
			limiter.acquire(limits, never).then((permit) => {
				granted.push(name);
				permit.done();
			}),
		);
		first.done({ keepSlot: true });
		// The slot is still the retry's: b and c keep waiting while it backs off.
		expect(await settled(Promise.all(others), 30)).toBe(false);
		const retry = await limiter.acquire(limits, never, { hasSlot: true });
		granted.push('a (retry)');
		retry.done();
		await Promise.all(others);
		expect(granted).toEqual(['a (retry)', 'b', 'c']);
	});

	it('an abort while waiting for a slot rejects at once with the reason; the others go on', async () => {
		const limiter = new Limiter();
		const limits = pacing({ maxConcurrent: 1 });
		const first = await limiter.acquire(limits, never);
		const stopper = new AbortController();
		const reason = new Error('stopped');
		const waiting = limiter.acquire(limits, stopper.signal);
		const after = limiter.acquire(limits, never);
		const abortedAt = Date.now();
		stopper.abort(reason);
		await expect(waiting).rejects.toBe(reason);
		expect(Date.now() - abortedAt).toBeLessThan(50);
		// Aborted before it got the slot, it took none: the next in line gets the first's slot.
		first.done();
		(await after).done();
		// An already aborted signal is refused before queueing.
		await expect(limiter.acquire(limits, stopper.signal)).rejects.toBe(reason);
	});

	it('an abort while a retry waits for its start time rejects at once and frees the slot it kept', async () => {
		const limiter = new Limiter();
		// 1 per second: the retry may not start until a second after the first attempt.
		const limits = pacing({ maxConcurrent: 1, maxPerSecond: 1 });
		const first = await limiter.acquire(limits, never);
		first.done({ keepSlot: true });
		const stopper = new AbortController();
		const retry = limiter.acquire(limits, stopper.signal, { hasSlot: true });
		// Another run's request, without a per-second limit, waits only for the slot.
		const other = limiter.acquire(pacing({ maxConcurrent: 1 }), never).then((permit: Permit) => {
			permit.done();
			return Date.now();
		});
		await delay(20);
		const abortedAt = Date.now();
		stopper.abort(new Error('stopped'));
		await expect(retry).rejects.toThrow('stopped');
		expect(Date.now() - abortedAt).toBeLessThan(50);
		// The kept slot was given back: the other request starts now, not a second later.
		expect((await other) - abortedAt).toBeLessThan(200);
	});
});

describe('interruptibleSleep', () => {
	it('sleeps, and ends at once with the reason when aborted', async () => {
		const from = Date.now();
		await interruptibleSleep(30, never);
		expect(Date.now() - from).toBeGreaterThanOrEqual(25);
		const stopper = new AbortController();
		const sleeping = interruptibleSleep(60_000, stopper.signal);
		const abortedAt = Date.now();
		stopper.abort(new Error('cancelled'));
		await expect(sleeping).rejects.toThrow('cancelled');
		expect(Date.now() - abortedAt).toBeLessThan(50);
		await expect(interruptibleSleep(10, stopper.signal)).rejects.toThrow('cancelled');
	});
});

describe('sharedLimiter', () => {
	it('one limiter per key, shared by everyone asking with that key; other keys are independent', async () => {
		const key = `unit-test:${Math.random()}`;
		expect(sharedLimiter(key)).toBe(sharedLimiter(key));
		expect(sharedLimiter(`${key}:other`)).not.toBe(sharedLimiter(key));
		// Two "executions" with the same key: one slot between them.
		const limits = pacing({ maxConcurrent: 1 });
		const held = await sharedLimiter(key).acquire(limits, never);
		const sameKey = sharedLimiter(key).acquire(limits, never);
		const otherKey = sharedLimiter(`${key}:other`).acquire(limits, never);
		expect(await settled(sameKey)).toBe(false);
		(await otherKey).done();
		held.done();
		(await sameKey).done();
	});
});
