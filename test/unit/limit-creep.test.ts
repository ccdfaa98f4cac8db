/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n on fake timers; prints what it measured (README: Lint) */
/**
 * A learned limit creeps up now and then (scheduler rule 5e: a plan may be raised), and a creep the
 * service refuses pauses the account. Under simulated time, against services that never raise it.
 * An outside review found that pause probing at every round length shorter than the learned window
 * (0.25 s, 0.5 s, 1 s, ... 45 s for a minute), each refused: the count learned before the creep
 * explained the refusal, so the window reopened only as that count freed a place.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { run, sim } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000, loopLimit: 10_000_000 }));
afterEach(() => vi.useRealTimers());

describe('a refused creep of a limit that holds', () => {
	it.each([
		// Before: 18 refused in every later run (three per creep: the creep, then probes at 0.25 s and
		// 0.5 s). Now 10: the creep, and at two creeps of three one shorter length.
		{ count: 10, windowMs: 1_000, first: 600, later: 600, most: 12 },
		{ count: 1, windowMs: 1_000, first: 60, later: 60, most: 12 },
		// Before: 19 and 38 refused in the later runs (the creep, then 17 round lengths under a minute).
		{ count: 30, windowMs: 60_000, first: 90, later: 450, most: 8 },
	])('$count per $windowMs ms, no Retry-After (the spec\'s reason): a later run of $later costs about one refusal per creep, and takes the ideal time', async ({ count, windowMs, first, later: n, most }) => {
		const account = new Account();
		const svc = sim([{ kind: 'sliding', count, windowMs }]);
		await run(account, svc, first);
		const runs = [await run(account, svc, n), await run(account, svc, n)];
		console.log(`creep refused, ${count}/${windowMs}: ${runs.map((one) => JSON.stringify(one)).join('; ')}`);
		for (const later of runs) {
			expect(later).toMatchObject({ sent: n, gaveUp: 0 });
			expect(later.refused).toBeLessThanOrEqual(most);
			expect(later.took).toBeLessThanOrEqual(1.05 * (n / count) * windowMs + 1_000);
		}
		expect(account.state.learned).toMatchObject({ count, windowMs });
	});
});

describe('a window learned too long', () => {
	it.each([
		// The first pause's probes skip 2 s (a budget of three lengths: 1 s, 5 s, 10 s), and 1 per 5 s is
		// learned. A creep refused probes one length under the window first: 2 s is found. (Probing only
		// once the learned count frees a place, a review's first try, kept 1 per 5 s: 146 s and 151 s.)
		{ kind: 'sliding' as const, count: 1, windowMs: 2_000, n: 30 },
		// Refused requests counted too: 3 s was learned, and later runs took 45 s where 30 s are allowed
		// (the creep's probes refused at every shorter length held the window shut, and taught nothing).
		{ kind: 'every' as const, count: 4, windowMs: 2_000, n: 60 },
		{ kind: 'every' as const, count: 5, windowMs: 2_000, n: 60 },
	])('$count per $windowMs ms ($kind), no Retry-After: a creep refused finds the shorter window, and the third run takes about the ideal time', async ({ kind, count, windowMs, n }) => {
		const account = new Account();
		const svc = sim([{ kind, count, windowMs }], { latencyMs: 50 });
		const runs = [await run(account, svc, n), await run(account, svc, n), await run(account, svc, n)];
		console.log(`too long, ${kind} ${count}/${windowMs}: ${runs.map((one) => JSON.stringify(one)).join('; ')}, learned ${JSON.stringify(account.state.learned)}`);
		expect(runs.map((one) => one.sent)).toEqual([n, n, n]);
		expect(runs[2].took).toBeLessThanOrEqual(1.1 * (n / count) * windowMs + 1_000);
		expect(account.state.learned).toMatchObject({ count, windowMs });
	});
});

describe('a window learned too long by an outage', () => {
	// An outside review of the first form of this rule: lengths a probe had found shut were left out
	// of the creep's probes for good. An outage's refused probes shut every length up to twice the
	// window, the window was learned that long, and each creep after found only the learned window
	// open: later runs took 121 s (10 per second) and 600 s (30 a minute), for good. The length at
	// half the learned window is probed first now, and none is left out for good.
	it.each([
		{ count: 10, windowMs: 1_000, n: 600, outageMs: 1_500 },
		{ count: 20, windowMs: 30_000, n: 100, outageMs: 45_000 },
		{ count: 30, windowMs: 60_000, n: 150, outageMs: 90_000 },
	])('$count per $windowMs ms, no Retry-After, everything refused for $outageMs ms during the second run: from the fourth run on, each takes the ideal time', async ({ count, windowMs, n, outageMs }) => {
		const limit = { kind: 'sliding' as const, count, windowMs };
		const account = new Account();
		const svc = sim([limit]);
		const runs = [await run(account, svc, n)];
		setTimeout(() => {
			limit.count = 0;
			setTimeout(() => (limit.count = count), outageMs);
		}, 5_000);
		for (let k = 0; k < 7; k++) runs.push(await run(account, svc, n));
		console.log(`outage ${count}/${windowMs}: ${runs.map((one) => `${one.took} ms, ${one.refused} refused`).join('; ')}; learned ${JSON.stringify(account.state.learned)}`);
		expect(runs.map((one) => one.sent)).toEqual(Array(8).fill(n));
		for (const later of runs.slice(3)) expect(later.took).toBeLessThanOrEqual(1.1 * (n / count) * windowMs + 1_000);
	});

	it('1 per 2 s counting refused requests: its refused probes do not leave a longer window for good', async () => {
		// The first form: 1 per 10 s kept, 200-300 s a run of 30 (before the rule, 150-200 s).
		const account = new Account();
		const svc = sim([{ kind: 'every', count: 1, windowMs: 2_000 }]);
		const runs = [];
		for (let k = 0; k < 8; k++) runs.push(await run(account, svc, 30));
		console.log(`every 1/2000: ${runs.map((one) => `${one.took} ms, ${one.refused} refused`).join('; ')}`);
		expect(runs.slice(2).reduce((sum, one) => sum + one.took, 0)).toBeLessThanOrEqual(1_300_000);
	});
});

describe('a plan lowered under a learned limit', () => {
	it('10 per second learned, then the plan is 5 per second: the next run learns 5, not stuck probing where 10 reopened', async () => {
		const account = new Account();
		const limit = { kind: 'sliding' as const, count: 10, windowMs: 1_000 };
		const svc = sim([limit]);
		await run(account, svc, 300);
		limit.count = 5;
		const lowered = await run(account, svc, 150);
		const after = await run(account, svc, 150);
		console.log(`plan lowered: ${JSON.stringify(lowered)}; ${JSON.stringify(after)}; learned ${JSON.stringify(account.state.learned)}`);
		expect([lowered.sent, after.sent]).toEqual([150, 150]);
		expect(after.took).toBeLessThanOrEqual(1.05 * 30_000 + 1_000);
		expect(account.state.learned).toMatchObject({ count: 5, windowMs: 1_000 });
	});
});
