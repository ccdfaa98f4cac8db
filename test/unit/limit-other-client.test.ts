/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: test code (README: Lint) */
/**
 * Another client of the account for one run, against 10 per second (sliding, no
 * Retry-After). While it takes about 3 a second, no 1 s limit fits our answers alone, and the estimate
 * learned a longer window at about our pace then (32 per 5 s). Once the other client was gone that
 * window still fit (it is kept while it fits, rule 5d), and the creep (+5% per ten windows' worth)
 * barely moved it: every later run went at 5.5-6 a second against 10. Before the limit estimate, the node learned what each
 * pause showed (8, then 10 per 1 s) and went back to ~30 s for 300 at once.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { run, sim } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000, loopLimit: 10_000_000 }));
afterEach(() => vi.useRealTimers());

it('10 per second, another client taking a place every 300 ms during one run: the five runs of 300 after it, alone, take at most 40 s each (ideal 30 s)', async () => {
	const account = new Account();
	const svc = sim([{ kind: 'sliding', count: 10, windowMs: 1_000 }]);
	await run(account, svc, 300);
	let other = true;
	const tick = () => {
		if (!other) return;
		svc.other(Date.now());
		setTimeout(tick, 300);
	};
	tick();
	await run(account, svc, 300);
	other = false;
	const learnedWhenItLeft = account.state.learned;
	const after = [];
	for (let k = 0; k < 5; k++) after.push(await run(account, svc, 300));
	console.log(`learned when it left ${JSON.stringify(learnedWhenItLeft)}; alone after: ${after.map((r) => `${r.took} ms/${r.refused} refused`).join(', ')}; learned ${JSON.stringify(account.state.learned)}`);
	// Before the fix: 32 per 5 s when it left; 55.3, 54.0, 53.2, 51.0, 50.2 s. Before the change: 8 per 1 s; 36.5, 30.8, 30.6, 30.5, 30.8 s.
	for (const r of after) expect(r.took).toBeLessThanOrEqual(40_000);
});
