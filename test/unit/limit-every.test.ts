/* eslint-disable no-console -- not shipped: test code, run by Node outside n8n; prints what it measured (README: Lint) */
/**
 * A limit that counts the requests it refuses (a sliding log that records each request before it
 * checks it), under simulated time: the pause's own probes fill its window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { run, sim } from './limit-sim';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('a limit that counts refused requests', () => {
	it.each([
		{ count: 10, windowMs: 60_000, items: 20, maxWaitMs: 60_000 },
		{ count: 20, windowMs: 60_000, items: 60, maxWaitMs: 60_000 },
		{ count: 5, windowMs: 60_000, items: 15, maxWaitMs: 60_000 },
		{ count: 5, windowMs: 5_000, items: 15, maxWaitMs: 5_000 },
		{ count: 3, windowMs: 5_000, items: 9, maxWaitMs: 5_000 },
		{ count: 10, windowMs: 5_000, items: 30, maxWaitMs: 5_000 },
		{ count: 10, windowMs: 1_000, items: 30, maxWaitMs: 60_000 },
	])('$count per $windowMs ms, $items items, Max Wait $maxWaitMs ms', async ({ count, windowMs, items, maxWaitMs }) => {
		const account = new Account();
		const svc = sim([{ kind: 'every', count, windowMs }]);
		const first = await run(account, svc, items, { maxWaitMs });
		const later = await run(account, svc, items, { maxWaitMs });
		console.log(`every ${count}/${windowMs}: first ${JSON.stringify(first)}, later ${JSON.stringify(later)}, learned ${JSON.stringify(account.state.learned)}`);
		expect(first.gaveUp + later.gaveUp).toBe(0);
	});
});
