/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: test code, run by Node outside n8n; prints what it measured (README: Lint) */
/**
 * The limit learned when the account changes under it: a plan raised, another client of the
 * account for a while, a stopped run's pause and another's window. Under simulated time, against
 * a sliding-window service (limit-service.ts). From a second diff review of the limit estimate;
 * each case failed before its fix (evidence kept for an hour, long windows chosen at the pace the
 * account was sent at, a stopped run's pause taken up a minute on).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { lane, sendAll, sendAllWithOther, service } from './limit-service';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('a plan raised from a per-minute limit to a per-second one', () => {
	it('100 per minute, then 20 per second, with Retry-After: once 20 per second is learned, later runs of 300 are not refused hundreds of times', async () => {
		// The answers of the old plan (bursts of 100 within a second) stay evidence for an hour: every
		// window up to a second "held more than 20", so neither the kept window (1 s) nor any short
		// one fits, and the fastest long one that does is learned: 760 per 45 s, a burst of hundreds
		// against 20 per second.
		const account = new Account();
		const limits = [{ count: 100, windowMs: 60_000 }];
		const svc = service(limits, 50, { retryAfter: true });
		await sendAll(account, svc, 200);
		limits[0] = { count: 20, windowMs: 1_000 };
		const runs = [];
		for (let k = 0; k < 4; k++) runs.push({ ...(await sendAll(account, svc, 300)), learned: account.state.learned });
		console.log(runs.map((run) => `${run.took} ms, ${run.refused} refused, ${JSON.stringify(run.learned)}`).join('\n'));
		// Before the fix: 181, 1, 481 refused (learned 760 per 45 s), 0.
		for (const run of runs.slice(1)) expect(run.refused).toBeLessThanOrEqual(30);
	});

	it('60 per minute, then 10 per second, with Retry-After: the same', async () => {
		const account = new Account();
		const limits = [{ count: 60, windowMs: 60_000 }];
		const svc = service(limits, 50, { retryAfter: true });
		await sendAll(account, svc, 200);
		limits[0] = { count: 10, windowMs: 1_000 };
		const runs = [];
		for (let k = 0; k < 3; k++) runs.push({ ...(await sendAll(account, svc, 300)), learned: account.state.learned });
		console.log(runs.map((run) => `${run.took} ms, ${run.refused} refused, ${JSON.stringify(run.learned)}`).join('\n'));
		// Before the fix: 62, 649 refused (learned 240 per 29.9 s), ...
		for (const run of runs.slice(1)) expect(run.refused).toBeLessThanOrEqual(30);
	});
});

describe('another client of the account for a while', () => {
	it('20 per 10 s, another client taking a place every 2 s during one run: the runs after it, alone, are not refused dozens of times for a limit learned as ~230 per 2 minutes', async () => {
		const account = new Account();
		const svc = service([{ count: 20, windowMs: 10_000 }], 50);
		await sendAll(account, svc, 200);
		await sendAllWithOther(account, svc, 200, 2_000);
		const runs = [];
		for (let k = 0; k < 3; k++) runs.push({ ...(await sendAll(account, svc, 200)), learned: account.state.learned });
		console.log(runs.map((run) => `${run.took} ms, ${run.refused} refused, ${JSON.stringify(run.learned)}`).join('\n'));
		// Before the fix: 0, 76 refused (learned 229 per 120 s), 14.
		for (const run of runs) expect(run.refused).toBeLessThanOrEqual(20);
		expect(account.state.learned?.windowMs).toBeLessThanOrEqual(10_000);
	});
});

describe('a stopped run\'s pause and another client\'s window', () => {
	it('a run stopped in a pause, and 50 s on another client fills the window: the next execution does not take that pause up, nor learn 10 per minute against 10 per 10 s', async () => {
		const account = new Account();
		const svc = service([{ count: 10, windowMs: 10_000 }], 50);
		const stop = new AbortController();
		const stopped = lane({}, { signal: stop.signal });
		const first = Array.from({ length: 30 }, () => svc.send(account, stopped).catch(() => undefined));
		await vi.advanceTimersByTimeAsync(2_000);
		stop.abort(new Error('stopped'));
		await Promise.all(first);
		// 49 s on, another client of the account fills its window just before our next execution.
		await vi.advanceTimersByTimeAsync(49_000 - 2_000);
		for (let i = 0; i < 10; i++) svc.other(Date.now());
		await vi.advanceTimersByTimeAsync(1_000);
		const t0 = Date.now();
		const one = svc.send(account, lane());
		await vi.runAllTimersAsync();
		await one;
		const tookOne = Date.now() - t0;
		const { took } = await sendAll(account, svc, 30);
		console.log(`one message: ${tookOne} ms; 30 more: ${took} ms, learned ${JSON.stringify(account.state.learned)}`);
		// The window the other client filled reopens 9 s after our message; 30 more at 10 per 10 s take
		// about 20 s. Taken up within a minute, the stopped run's pause sent its probe at the round
		// minute and taught 10 per 60 s: the 30 took about 3 minutes, and later runs went on at a
		// sixth of the limit (creep: +5% per ten minutes of sending).
		expect(tookOne).toBeLessThanOrEqual(15_000);
		expect(took).toBeLessThanOrEqual(40_000);
	});
});
