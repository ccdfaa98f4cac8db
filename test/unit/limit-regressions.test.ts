/* eslint-disable no-console -- not shipped: test code (README: Lint) */
/**
 * Learned limits a fourth diff review found worse than before the limit estimate, on the simulated
 * service of limit-sim.ts; each failed before its fix:
 * 1. A plan raised from 30 a minute to 10 a second (whole-second Retry-After). The node sent its
 *    learned 30 at the start of each minute; 10 went, 20 were refused, and that pattern is what 30
 *    per minute would give too, so 30/60 s "still fit" and was kept; every window had a refusal,
 *    so it never crept. Runs of 200 took ~350-415 s each against an ideal of 20 s. A learned window
 *    is now kept only when the refusal came with it full.
 * 2. 60 per minute (sliding, whole-second Retry-After), answers read up to 1.2 s late now and then
 *    (15%), latency 120 +/- 60 ms: 120 per 90-120 s was learned (the fastest that fit), and half of
 *    every burst of it was refused (675 refusals over runs 2-6 of 200). The shortest that fits is
 *    learned now.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { run, sim } from './limit-sim';
import type { RunResult } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000, loopLimit: 10_000_000 }));
afterEach(() => vi.useRealTimers());

const brief = (r: RunResult) => `${(r.took / 1000).toFixed(1)} s/${r.refused} refused`;

it('a plan raised from 30 per minute to 10 per second (Retry-After in seconds): within five runs of 200 after the raise, a run takes under 60 s (ideal 20 s)', async () => {
	const account = new Account();
	const kinds = [{ kind: 'sliding' as const, count: 30, windowMs: 60_000 }];
	const svc = sim(kinds, { retryAfter: 'sec' });
	for (let k = 0; k < 3; k++) {
		await run(account, svc, 200);
		await vi.advanceTimersByTimeAsync(3_000);
	}
	kinds[0] = { kind: 'sliding', count: 10, windowMs: 1_000 };
	const after: RunResult[] = [];
	for (let k = 0; k < 5; k++) {
		after.push(await run(account, svc, 200));
		await vi.advanceTimersByTimeAsync(3_000);
	}
	console.log(`after the raise: ${after.map(brief).join(', ')}; learned ${JSON.stringify(account.state.learned)}`);
	// Before the fix: 416.9, 407.5, 348.9, 401.3, 392.4 s, learned 30 per ~56-60 s throughout. Before the limit estimate: 93.0, 25.1, 19.7, 19.7, 19.7 s (10 per 1 s).
	expect(after.every((r) => r.sent === 200)).toBe(true);
	expect(Math.min(...after.map((r) => r.took))).toBeLessThan(60_000);
	expect(after.at(-1)!.took).toBeLessThan(60_000);
});

it('60 per minute, answers read up to 1.2 s late now and then (Retry-After in seconds): runs 2-6 of 200 have fewer than 60 refusals in all', async () => {
	const account = new Account();
	const svc = sim([{ kind: 'sliding', count: 60, windowMs: 60_000 }], {
		retryAfter: 'sec',
		latencyMs: 120,
		jitterMs: 60,
		readLate: (_, r) => (r() < 0.15 ? Math.floor(r() * 1200) : 0),
	});
	const runs: RunResult[] = [];
	for (let k = 0; k < 6; k++) {
		runs.push(await run(account, svc, 200));
		await vi.advanceTimersByTimeAsync(3_000);
	}
	console.log(`${runs.map(brief).join(', ')}; learned ${JSON.stringify(account.state.learned)}`);
	// Before the fix: 122, 220, 161, 138, 34 refused (learned 120 per 90-120 s); before the limit estimate: 0, 0, 3, 0, 0 (60 per 60 s). Wall time about the same (~185-235 s a run).
	expect(runs.every((r) => r.sent === 200)).toBe(true);
	expect(runs.slice(1).reduce((sum, r) => sum + r.refused, 0)).toBeLessThan(60);
});
