/* eslint-disable no-console -- not shipped: test code, run by Node outside n8n; prints what it measured (README: Lint) */
/**
 * The limit learned when the account changes under it: a plan raised, another client of the
 * account for a while (a stopped run's pause and another's window: limit-learning.test.ts).
 * Under simulated time, against a sliding-window service (limit-service.ts). From a second diff
 * review of the limit estimate; each case failed before its fix (evidence kept for an hour, long
 * windows chosen at the pace the account was sent at).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { sendAll, sendAllWithOther, service } from './limit-service';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('a plan raised from a per-minute limit to a per-second one', () => {
	// The answers of the old plan (bursts of 100 within a second) stayed evidence for an hour: every
	// window up to a second "held more than the new limit", so neither the kept window (1 s) nor any
	// short one fit, and the fastest long one that did was learned: a burst of hundreds against it.
	it.each([
		// Before the fix: 181, 1, 481 refused (learned 760 per 45 s), 0.
		{ before: 100, after: 20, runs: 4 },
		// Before the fix: 62, 649 refused (learned 240 per 29.9 s), ...
		{ before: 60, after: 10, runs: 3 },
	])('$before per minute, then $after per second, with Retry-After: once the new limit is learned, later runs of 300 are not refused hundreds of times', async ({ before, after, runs: count }) => {
		const account = new Account();
		const limits = [{ count: before, windowMs: 60_000 }];
		const svc = service(limits, 50, { retryAfter: true });
		await sendAll(account, svc, 200);
		limits[0] = { count: after, windowMs: 1_000 };
		const runs = [];
		for (let k = 0; k < count; k++) runs.push({ ...(await sendAll(account, svc, 300)), learned: account.state.learned });
		console.log(runs.map((run) => `${run.took} ms, ${run.refused} refused, ${JSON.stringify(run.learned)}`).join('\n'));
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
