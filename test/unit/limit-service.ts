/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/** A service counting sliding (or clock-fixed) windows for the scheduler's simulated-time tests, with another client of the account and answers read late. */
import { vi } from 'vitest';

import { Account, Counts, monotonicNow } from '../../nodes/shared/transport/scheduler';
import type { Outcome, RunLane, UserLimits } from '../../nodes/shared/transport/scheduler';

export const NO_LIMITS: UserLimits = { maxConcurrent: undefined, maxPerSecond: 0, maxPerMinute: 0, maxWaitMs: 60_000 };

export function lane(limits: Partial<UserLimits> = {}, { signal = new AbortController().signal } = {}): RunLane {
	return { limits: { ...NO_LIMITS, ...limits }, shareLimits: true, signal, since: monotonicNow(), own: new Counts() };
}

export interface Limit {
	count: number;
	windowMs: number;
	fixed?: boolean;
	/** Refusals for this limit name the time (Retry-After) whatever `retryAfter` says: a gateway's limit in front of the service's. */
	named?: boolean;
}

/** As in limit-learning.test.ts; `limits` may be changed in place (a plan change); `extraMs(n)` delays the n-th request's answer (a slow answer). */
export function service(
	limits: Limit[],
	latencyMs: number,
	{ retryAfter = false, readLateMs = undefined as ((tries: number) => number) | undefined, jitterMs = 0, seed = 1 } = {},
) {
	let state = seed;
	const rand = () => ((state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
	const admitted: number[] = [];
	const log: Array<{ start: number; at: number; accepted: boolean }> = [];
	const full = (at: number) =>
		limits.some(({ count, windowMs, fixed }) => {
			const windowStart = fixed ? at - (at % windowMs) : at - windowMs + 1;
			return admitted.filter((time) => time >= windowStart).length >= count;
		});
	const reopensIn = (at: number, only?: (limit: Limit) => boolean) => {
		let wait = 0;
		for (const limit of limits) {
			if (only && !only(limit)) continue;
			const { count, windowMs, fixed } = limit;
			const windowStart = fixed ? at - (at % windowMs) : at - windowMs + 1;
			const inWindow = admitted.filter((time) => time >= windowStart);
			if (inWindow.length >= count) wait = Math.max(wait, (fixed ? windowStart : inWindow[inWindow.length - count]) + windowMs - at);
		}
		return wait;
	};
	return {
		log,
		admitted,
		limits,
		other(at: number): boolean {
			if (full(at)) return false;
			admitted.push(at);
			admitted.sort((a, b) => a - b);
			return true;
		},
		async send(account: Account, run: RunLane): Promise<void> {
			for (let place: number | undefined; ; ) {
				const ticket = await account.acquire(run, { place });
				place = ticket.place;
				const start = Date.now();
				await new Promise((resolve) => setTimeout(resolve, latencyMs / 2 + Math.floor(rand() * jitterMs)));
				const at = Date.now();
				const accepted = !full(at);
				if (accepted) admitted.push(at);
				log.push({ start, at, accepted });
				const wait = reopensIn(Date.now() + latencyMs / 2);
				// A limit that names the time refused it when its window is full.
				const namedWait = reopensIn(Date.now() + latencyMs / 2, (limit) => limit.named === true);
				await new Promise((resolve) => setTimeout(resolve, latencyMs / 2 + Math.floor(rand() * jitterMs) + (readLateMs?.(log.length) ?? 0)));
				const named = retryAfter ? wait : namedWait > 0 ? namedWait : undefined;
				const outcome: Outcome = accepted ? { type: 'answered' } : { type: 'refused', retryAfterMs: named === undefined ? undefined : Math.max(1_000, Math.ceil(named / 1000) * 1000) };
				ticket.finish(outcome);
				if (accepted) return;
			}
		},
	};
}

export type Svc = ReturnType<typeof service>;

export async function sendAll(account: Account, svc: Svc, n: number, limits: Partial<UserLimits> = {}) {
	const run = lane(limits);
	const before = svc.log.length;
	const started = Date.now();
	const all = Promise.all(Array.from({ length: n }, async () => await svc.send(account, run)));
	await vi.runAllTimersAsync();
	await all;
	return { took: Date.now() - started, refused: svc.log.slice(before).filter(({ accepted }) => !accepted).length };
}

/** Sends `n` with the other client taking a place every `everyMs` while they go. */
export async function sendAllWithOther(account: Account, svc: Svc, n: number, everyMs: number, limits: Partial<UserLimits> = {}) {
	const run = lane(limits);
	const before = svc.log.length;
	const started = Date.now();
	let done = false;
	const all = Promise.all(Array.from({ length: n }, async () => await svc.send(account, run))).then(() => {
		done = true;
	});
	while (!done) {
		svc.other(Date.now());
		await vi.advanceTimersByTimeAsync(everyMs);
		if (Date.now() - started > 24 * 3_600_000) break;
	}
	await all;
	return { took: Date.now() - started, refused: svc.log.slice(before).filter(({ accepted }) => !accepted).length };
}
