/* eslint-disable no-console -- not shipped: test code, run by Node outside n8n; prints what it measured (README: Lint) */
/**
 * Two account limits at once (rule 5f): a short one (a gateway's per-second limit, or a burst
 * limit) and a longer one (the plan's per-minute limit). Learned as one limit, the pause behind the
 * longer one taught its long window with the short one's count: 300 messages at 5 per second and
 * 100 per minute took 941 s against an ideal of 140 s, and every later run as long (80 and 50
 * refusals); with Retry-After the learned limit flipped between the two windows at each pause, and
 * later runs were refused 70 to 140 times. Under simulated time, against a sliding-window service
 * (limit-service.ts) that enforces both.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import type { Limit } from './limit-service';
import { sendAll, service } from './limit-service';
import { run, sim } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

/**
 * When each of `n` more messages could be taken at the soonest, from `start` on, after those
 * `before` (times the service took them): a sliding window frees as its oldest leaves, a clock one
 * (`fixed`) when the next begins.
 */
function idealEnd(limits: Limit[], before: readonly number[], start: number, n: number): number {
	const taken = [...before];
	let time = start;
	for (let k = 0; k < n; k++) {
		for (let moved = true; moved; ) {
			moved = false;
			for (const { count, windowMs, fixed } of limits) {
				const windowStart = fixed ? time - (time % windowMs) : time - windowMs + 1;
				const inWindow = taken.filter((other) => other >= windowStart);
				if (inWindow.length >= count) {
					time = (fixed ? windowStart : inWindow[inWindow.length - count]) + windowMs;
					moved = true;
				}
			}
		}
		taken.push(time);
	}
	return time;
}

/** `times` runs of `n` messages against `limits` (clock windows when `fixed`) from a new account, each with its ideal time. */
async function runsAgainst(limits: Limit[], n: number, times: number) {
	const account = new Account();
	const svc = sim(limits.map(({ count, windowMs, fixed }) => ({ kind: fixed ? ('fixed' as const) : ('sliding' as const), count, windowMs })));
	const runs = [];
	for (let k = 0; k < times; k++) {
		const before = svc.log.filter((entry) => entry.accepted).map((entry) => entry.at);
		const start = Date.now();
		const one = await run(account, svc, n);
		runs.push({ ...one, ideal: idealEnd(limits, before, start, n) - start, learnedLonger: account.state.learnedLonger });
	}
	return { account, runs };
}

describe('two account limits at once', () => {
	it.each([
		{ label: '5 per second and 100 per minute', limits: [{ count: 5, windowMs: 1_000 }, { count: 100, windowMs: 60_000 }], n: 300 },
		{ label: '10 per second and 50 per minute', limits: [{ count: 10, windowMs: 1_000 }, { count: 50, windowMs: 60_000 }], n: 150 },
		{ label: '20 per 10 s and 60 per minute', limits: [{ count: 20, windowMs: 10_000 }, { count: 60, windowMs: 60_000 }], n: 180 },
		// A gateway names the time of its own refusals; the service behind it gives its reason only.
		{ label: "5 per second at a gateway (429 + Retry-After) and 100 per minute (the spec's reason)", limits: [{ count: 5, windowMs: 1_000, named: true }, { count: 100, windowMs: 60_000 }], n: 300 },
		// Answers in 30 ms: each second's 5 go a window after the last 5 answers, so the minute's
		// refusal finds the learned second empty, and that pause taught nothing (an outside review's
		// case in a real n8n: 136.7 s against 125, 95 refusals, every minute refused again).
		{ label: '5 per second at a gateway and 30 per minute, answers in 30 ms', limits: [{ count: 5, windowMs: 1_000, named: true }, { count: 30, windowMs: 60_000 }], n: 90, latencyMs: 30 },
	])('$label (with and without Retry-After on every refusal): both are learned, the first run takes about the ideal time, and later runs are not refused', async ({ limits, n, latencyMs = 50 }) => {
		for (const retryAfter of [false, true]) {
			const account = new Account();
			const svc = service(limits, latencyMs, { retryAfter });
			const runs = [];
			for (let k = 0; k < 3; k++) {
				const before = [...svc.admitted];
				const start = Date.now();
				const run = await sendAll(account, svc, n);
				runs.push({ ...run, ideal: idealEnd(limits, before, start, n) - start, taken: svc.admitted.length - before.length });
			}
			console.log(`Retry-After ${retryAfter}: ${runs.map((run) => `${run.took} ms (ideal ${run.ideal}), ${run.refused} refused`).join('; ')}`);
			expect(runs.map((run) => run.taken)).toEqual([n, n, n]);
			const [first, ...later] = runs;
			// The ideal sends at once what each window lets; the node learns the limits from refusals first.
			expect(first.took).toBeLessThanOrEqual(1.06 * first.ideal);
			for (const run of later) {
				expect(run.refused).toBeLessThanOrEqual(2);
				expect(run.took).toBeLessThanOrEqual(1.05 * run.ideal + 1_000);
			}
			expect(account.state.learned).toMatchObject({ windowMs: limits[0].windowMs });
			expect(account.state.learnedLonger).toMatchObject({ count: limits[1].count, windowMs: limits[1].windowMs });
		}
	});
});

describe('one limit that only looks like two', () => {
	// A counter reset on every clock window, first seen in part (10 per 3 s learned 2 s into a clock
	// window of 5 s), then the whole window: that pause fits no one sliding limit either, and taken
	// for a second limit beside the part (20 per 7.5 s beside 10 per 3 s, or 20 per 6 s beside 10
	// per second 4 s into it), a later run sent a few seconds after a full window and was refused 12
	// to 16 times. What the pause showed (10 per 5 s) is learned, as for one limit.
	it.each([0, 1_000, 2_000, 3_000, 4_000, 4_500])('10 per clock window of 5 s, the first run begun %i ms into one: later runs are not refused', async (phaseMs) => {
		vi.setSystemTime(1_000_000 + phaseMs);
		const account = new Account();
		const limits = [{ count: 10, windowMs: 5_000, fixed: true }];
		const svc = service(limits, 50);
		const start = Date.now();
		const first = await sendAll(account, svc, 30);
		const ideal = idealEnd(limits, [], start, 30) - start;
		console.log(`clock window of 5 s, begun ${phaseMs} ms into one: first run ${first.took} ms (ideal ${ideal}), ${first.refused} refused`);
		// The time the engine test (test/bulk/limit-seeking.test.ts) cannot hold a busy machine to:
		// the first pause is learned short (the reset came before a whole window), and the next refusal
		// corrects it within the window after.
		expect(first.took).toBeLessThanOrEqual(1.2 * ideal);
		for (let k = 0; k < 3; k++) expect((await sendAll(account, svc, 10)).refused).toBe(0);
		expect(account.state.learned).toMatchObject({ count: 10, windowMs: 5_000 });
		expect(account.state.learnedLonger).toBeUndefined();
	});
});

describe('a fifth review of the two limits', () => {
	it('10 per clock window of 5 s, Retry-After in ms, begun 1 s before a reset: not learned as two limits (10 per 0.5 s and 20 per 6 s refused every later send once)', async () => {
		vi.setSystemTime(1_000_000 + 4_000);
		const account = new Account();
		const svc = sim([{ kind: 'fixed', count: 10, windowMs: 5_000 }], { retryAfter: 'ms' });
		const refused: number[] = [];
		for (let k = 0; k < 5; k++) refused.push((await run(account, svc, 60)).refused);
		console.log(`clock window, ms Retry-After: ${refused.join(', ')} refused`);
		// Before: 62, 60, 60, 60, 60.
		expect(refused.slice(1).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(60);
		expect(account.state.learnedLonger).toBeUndefined();
	});

	it('5 per second and 100 per minute with whole-second Retry-After, 2,500 messages twice: the second is not lost while the minute paces and creeps', async () => {
		// A limit learned between (10 per 2 s, after the second crept to 15) dropped the first burst's
		// refusals, and 100 a minute took the place of 5 a second: bursts of 90, 280 and 192 refused.
		const account = new Account();
		const svc = service([{ count: 5, windowMs: 1_000 }, { count: 100, windowMs: 60_000 }], 50, { retryAfter: true });
		const runs = [await sendAll(account, svc, 2_500), await sendAll(account, svc, 2_500)];
		console.log(`creep under two limits: ${runs.map((one) => `${one.took} ms, ${one.refused} refused`).join('; ')}`);
		expect(runs[0].refused + runs[1].refused).toBeLessThanOrEqual(100);
		expect(account.state.learned).toMatchObject({ windowMs: 1_000 });
		expect(account.state.learnedLonger).toMatchObject({ windowMs: 60_000 });
	}, 60_000);

	it('5 per second and 100 per minute, each refusal naming its whole window (Retry-After: 60 however soon the minute frees), answers 200 ms with up to 300 ms of jitter each way: the minute is learned beside the second, never in its place', async () => {
		// No one limit fitted the refusals (the minute named as full when it held 3), and the pause
		// behind the minute taught its window with the second's count (5 to 12 per minute): runs of 300
		// took 1,974, 1,932 and 1,511 s.
		const account = new Account();
		const svc = sim(
			[
				{ kind: 'sliding', count: 5, windowMs: 1_000 },
				{ kind: 'sliding', count: 100, windowMs: 60_000 },
			],
			{ retryAfter: 'window', latencyMs: 200, jitterMs: 300, seed: 3 },
		);
		const runs = [await run(account, svc, 300), await run(account, svc, 300), await run(account, svc, 300)];
		console.log(`whole-window Retry-After, jitter: ${runs.map((one) => `${one.took} ms, ${one.refused} refused`).join('; ')}; learned ${JSON.stringify(account.state.learned)} beside ${JSON.stringify(account.state.learnedLonger)}`);
		// Ideal: 100 in the first minute's first 20 s, 100 more a minute later, the last 100 a minute after (about 140 s); later runs 180 s.
		expect(runs[0].took).toBeLessThanOrEqual(210_000);
		for (const later of runs.slice(1)) expect(later.took).toBeLessThanOrEqual(200_000);
		expect(account.state.learned?.windowMs).toBeLessThanOrEqual(2_000);
		expect(account.state.learnedLonger).toMatchObject({ windowMs: 60_000 });
	}, 60_000);
});

describe('two limits, both counted per clock window', () => {
	// A clock second lets 10 through across its edge (the end of one and the start of the next), so
	// the 5 per second learned first seemed not to hold, and a later pause behind the minute was
	// learned in its place with its count: 5 per 45 s. Four runs begun 20, 10 and 55 s into a
	// minute took 593 s, then 180 (20 and 10 s), and 530 and 550 s (55 s), against about 180.
	it.each([20_000, 10_000, 55_000])('5 per clock second and 100 per clock minute, the first run begun %i ms into a minute: every later run takes about the ideal time', async (intoMinuteMs) => {
		vi.setSystemTime(1_000_000 - (1_000_000 % 60_000) + 60_000 + intoMinuteMs);
		const limits = [
			{ count: 5, windowMs: 1_000, fixed: true },
			{ count: 100, windowMs: 60_000, fixed: true },
		];
		const { account, runs } = await runsAgainst(limits, 300, 4);
		console.log(`both per clock window, ${intoMinuteMs} ms into a minute: ${runs.map((one) => `${one.took} ms (ideal ${one.ideal}), ${one.refused} refused`).join('; ')}`);
		expect(runs.map((one) => one.sent)).toEqual([300, 300, 300, 300]);
		for (const later of runs.slice(1)) expect(later.took).toBeLessThanOrEqual(1.05 * later.ideal + 1_000);
		expect(account.state.learnedLonger).toMatchObject({ windowMs: 60_000 });
	}, 60_000);
});

describe('a creep of the limit learned beside, refused', () => {
	// The probes after it went at round lengths from the shorter window's answers (45 s, then 60 s),
	// not when the minute let one go: a later run of 40 took 249 s and 250 s against 240 (and in a
	// real n8n the probe came 13 s after a clock minute had reset).
	it('1 per second and 10 per minute, no Retry-After, six runs of 40: once both are learned, every run takes the ideal time within a second', async () => {
		const limits = [
			{ count: 1, windowMs: 1_000 },
			{ count: 10, windowMs: 60_000 },
		];
		const { runs } = await runsAgainst(limits, 40, 6);
		console.log(`creep beside refused: ${runs.map((one) => `${one.took} ms (ideal ${one.ideal}), ${one.refused} refused`).join('; ')}`);
		expect(runs.map((one) => one.sent)).toEqual([40, 40, 40, 40, 40, 40]);
		for (const later of runs.slice(1)) {
			expect(later.learnedLonger).toMatchObject({ windowMs: 60_000 });
			expect(later.took).toBeLessThanOrEqual(later.ideal + 1_000);
		}
	}, 60_000);
});
