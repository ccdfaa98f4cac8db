/* eslint-disable no-console -- not shipped: test code, run by Node outside n8n; prints what it measured (README: Lint) */
/**
 * How the account limit is learned (scheduler rule 5d, 7, and limitEstimate.ts), under simulated
 * time, against services a real account may sit behind: another client of the account, a
 * whole-second Retry-After, a busy n8n reading answers late. Each case comes from a diff review of
 * the limit estimate and failed before its fix.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Account } from '../../nodes/shared/transport/scheduler';
import { lane, sendAll, service } from './limit-service';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('the execution after a run stopped in a pause', () => {
	it.each([
		// Taken up again, the stopped run's pause counted from 10 minutes before: its probe went at Max
		// Wait and taught 10 per 11 minutes; the 30 after it took over 20 minutes.
		{ label: '10 minutes', laterMs: 602_000 },
		// Taken up within a minute, the pause sent its probe at the round minute and taught 10 per 60 s:
		// the 30 took about 3 minutes, and later runs went on at a sixth of the limit (the creep adds
		// 5% per ten minutes of sending).
		{ label: '50 s', laterMs: 50_000 },
	])('a run stopped in a pause, and $label on another client of the account fills the window: the next execution does not take that pause up, nor learn a window longer than 10 s against 10 per 10 s', async ({ laterMs }) => {
		const account = new Account();
		const svc = service([{ count: 10, windowMs: 10_000 }], 50);
		const stop = new AbortController();
		const stopped = lane({}, { signal: stop.signal });
		const first = Array.from({ length: 30 }, () => svc.send(account, stopped).catch(() => undefined));
		await vi.advanceTimersByTimeAsync(2_000);
		stop.abort(new Error('stopped'));
		await Promise.all(first);
		// The other client fills the account's window just before our next execution.
		await vi.advanceTimersByTimeAsync(laterMs - 2_000 - 1_000);
		for (let i = 0; i < 10; i++) svc.other(Date.now());
		await vi.advanceTimersByTimeAsync(1_000);
		const before = svc.log.length;
		const t0 = Date.now();
		const one = svc.send(account, lane());
		await vi.runAllTimersAsync();
		await one;
		const tookOne = Date.now() - t0;
		console.log(`one message: ${tookOne} ms, ${svc.log.slice(before).filter(({ accepted }) => !accepted).length} refused, learned ${JSON.stringify(account.state.learned)}`);
		// The other client's window reopens 9 s after our message came: probes from this refusal find it within a round length.
		expect(tookOne).toBeLessThanOrEqual(15_000);
		// Then 30 more: a limit of 10 per 10 s takes about 20 s.
		const { took } = await sendAll(account, svc, 30);
		console.log(`30 more: ${took} ms, learned ${JSON.stringify(account.state.learned)}`);
		expect(took).toBeLessThanOrEqual(40_000);
	});
});

describe('the limit estimate against a plain sliding limit', () => {
	it('10 per second with a whole-second Retry-After, two minutes of sending: the limit stays 10 per second, no storm of refusals', async () => {
		// A creep to 11 is refused; the probe, late by the whole-second Retry-After, finds a window of
		// 1.5 s. Judged over windows of 1.5 s or longer, the fastest that fit was 20 per 1.5 s: every
		// burst of 20 was refused for half, and each pause learned it again (its tolerance kept it
		// fitting): 1,005 refusals for 1,200 messages, 148 s. The learned window is kept while it fits.
		const account = new Account();
		const svc = service([{ count: 10, windowMs: 1_000 }], 50, { retryAfter: true });
		const { took } = await sendAll(account, svc, 1_200);
		const refused = svc.log.filter(({ accepted }) => !accepted).length;
		console.log(`10/s with Retry-After: ${took} ms for 1200, ${refused} refused, learned ${JSON.stringify(account.state.learned)}`);
		expect(account.state.learned).toMatchObject({ count: 10, windowMs: 1_000 });
		expect(refused).toBeLessThanOrEqual(100);
		expect(took).toBeLessThanOrEqual(1.1 * 120_000);
	});

	it('10 per second, a busy n8n reading a fifth of the answers up to 800 ms late: the next run is not paced far below the limit', async () => {
		// With a tolerance of the 90th percentile of round trips, the later answers fell outside it and
		// ruled out 10 per second; the fastest long window that fit was learned (70 per 7.5 s), and under
		// a learned window each later pause's window is at least that long: it grew to 30 s, 60 s,
		// 120 s, then 20 per 90 s. The next run of 600 took 43 minutes. The tolerance is now the
		// longest round trip of the latest ones.
		const account = new Account();
		const svc = service([{ count: 10, windowMs: 1_000 }], 40, { readLateMs: (n) => ((n * 7_919) % 1_000 < 200 ? (n * 104_729) % 800 : 0) });
		await sendAll(account, svc, 600);
		await vi.advanceTimersByTimeAsync(60_000);
		const { took } = await sendAll(account, svc, 600);
		console.log(`next run: ${took} ms for 600, learned ${JSON.stringify(account.state.learned)}`);
		expect(took).toBeLessThanOrEqual(2 * 60_000);
	});
});
