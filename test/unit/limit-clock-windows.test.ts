/* eslint-disable no-console -- not shipped: test code (README: Lint) */
/**
 * Against a service counting clock windows (a counter reset each whole second) or a token
 * bucket, answering its refusals with a whole-second Retry-After, the limit estimate learned ever
 * longer windows across the pauses of one run (10 per 1 s -> 20 per 1.5 s -> 78 per 7.5 s -> 190
 * per 20 s -> 428 per 45 s ...): MAX_WINDOW_GROWTH bounds each pause's step, not their sum, since
 * under a learned window a pause's oldest answer is taken a learned window back, and the kept
 * sliding window never fits a clock window (20 are taken within a second across its edge). The
 * pace stays right on average, but each burst of the learned count is refused past the first few:
 * thousands of refusals. Before the limit estimate, the node learned what each pause showed (10
 * per 1 s) and was refused about once per 100 messages. Now a learned window within which the
 * service took more than its count is no sliding limit, and no longer one is estimated from it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { run, sim } from './limit-sim';
import type { Kind } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000, loopLimit: 10_000_000 }));
afterEach(() => vi.useRealTimers());

describe('one long run against a clock window or a token bucket, Retry-After in whole seconds', () => {
	it.each([
		// name, limits, round trip, what it did before the fix (refusals, learned), what the node did before the limit estimate
		['a token bucket of 10 refilled at 5 per second (round trip 50 ms)', [{ kind: 'bucket', capacity: 10, perSec: 5 }], 50], // before the fix 5,052 refused (50 per 9.95 s); before the estimate 100 (5 per 1 s)
		['10 per clock second (round trip 120 ms)', [{ kind: 'fixed', count: 10, windowMs: 1_000 }], 120], // before the fix 787 refused (360 per 40 s); before the estimate 55 (10 per 1 s)
		['5 per clock second (round trip 120 ms)', [{ kind: 'fixed', count: 5, windowMs: 1_000 }], 120], // before the fix 1,207 refused (2,699 per 600 s); before the estimate 95 (5 per 1 s)
	] as Array<[string, Kind[], number]>)('%s, 3,000 messages: refused at most once per 10 messages, the learned window within 4 s', async (_name, kinds, latencyMs) => {
		const account = new Account();
		const svc = sim(kinds, { retryAfter: 'sec', latencyMs });
		const { took, refused, sent } = await run(account, svc, 3_000);
		console.log(`${_name}: ${took} ms, ${sent} sent, ${refused} refused, learned ${JSON.stringify(account.state.learned)}`);
		expect(sent).toBe(3_000);
		expect(refused).toBeLessThanOrEqual(300);
		expect(account.state.learned?.windowMs).toBeLessThanOrEqual(4_000);
	}, 120_000);
});
