/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code */
/** a general simulated account service (sliding, clock, token bucket; several at once; plan changes; another client). */
import { vi } from 'vitest';

import { Account, Counts, monotonicNow } from '../../nodes/shared/transport/scheduler';
import type { Outcome, RunLane, UserLimits } from '../../nodes/shared/transport/scheduler';

export const NO_LIMITS: UserLimits = { maxConcurrent: undefined, maxPerSecond: 0, maxPerMinute: 0, maxWaitMs: 60_000 };

export function mkLane(limits: Partial<UserLimits> = {}, signal = new AbortController().signal): RunLane {
	return { limits: { ...NO_LIMITS, ...limits }, shareLimits: true, signal, since: monotonicNow(), own: new Counts() };
}

export type Kind =
	| { kind: 'sliding'; count: number; windowMs: number }
	| { kind: 'fixed'; count: number; windowMs: number }
	/** A sliding log that records each request before it checks it: refused requests fill the window too. */
	| { kind: 'every'; count: number; windowMs: number }
	| { kind: 'bucket'; capacity: number; perSec: number };

export interface SvcOptions {
	latencyMs?: number;
	/** none; sec: whole seconds, rounded up; ms; window: always the whole window of the limit that refused, whatever is left of it. */
	retryAfter?: 'none' | 'sec' | 'ms' | 'window';
	jitterMs?: number;
	readLate?: (n: number, rand: () => number) => number;
	seed?: number;
}

export function sim(kinds: Kind[], { latencyMs = 50, retryAfter = 'none', jitterMs = 0, readLate, seed = 7 }: SvcOptions = {}) {
	let state = seed;
	const rand = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
	const admitted: number[] = [];
	/** Every request's arrival, refused ones too (kind 'every'). */
	const arrived: number[] = [];
	const buckets = new Map<Kind, { tokens: number; at: number }>();
	const bucket = (k: Kind & { kind: 'bucket' }, at: number) => {
		let b = buckets.get(k);
		if (!b) buckets.set(k, (b = { tokens: k.capacity, at }));
		b.tokens = Math.min(k.capacity, b.tokens + ((at - b.at) / 1000) * k.perSec);
		b.at = at;
		return b;
	};
	const log: Array<{ start: number; at: number; accepted: boolean; mine: boolean }> = [];
	const countIn = (k: Kind & { windowMs: number }, at: number) => {
		const windowStart = k.kind === 'fixed' ? at - (at % k.windowMs) : at - k.windowMs + 1;
		const counted = k.kind === 'every' ? arrived : admitted;
		let n = 0;
		for (let i = counted.length - 1; i >= 0 && counted[i] >= windowStart; i--) n++;
		return n;
	};
	const full = (at: number) => kinds.some((k) => (k.kind === 'bucket' ? bucket(k, at).tokens < 1 : countIn(k, at) >= k.count));
	const admit = (at: number) => {
		admitted.push(at);
		for (const k of kinds) if (k.kind === 'bucket') bucket(k, at).tokens -= 1;
	};
	const reopensIn = (at: number) => {
		let wait = 0;
		for (const k of kinds) {
			if (k.kind === 'bucket') {
				const b = bucket(k, at);
				if (b.tokens < 1) wait = Math.max(wait, ((1 - b.tokens) / k.perSec) * 1000);
				continue;
			}
			const windowStart = k.kind === 'fixed' ? at - (at % k.windowMs) : at - k.windowMs + 1;
			const inWindow = (k.kind === 'every' ? arrived : admitted).filter((time) => time >= windowStart);
			if (inWindow.length >= k.count) wait = Math.max(wait, (k.kind === 'fixed' ? windowStart : inWindow[inWindow.length - k.count]) + k.windowMs - at);
		}
		return wait;
	};
	/** The longest window among the limits full at `at` (a bucket's: the time one token takes). */
	const fullWindow = (at: number) => {
		let window = 0;
		for (const k of kinds) if ((k.kind === 'bucket' ? bucket(k, at).tokens < 1 : countIn(k, at) >= k.count)) window = Math.max(window, k.kind === 'bucket' ? 1000 / k.perSec : k.windowMs);
		return window;
	};
	const stats = { gaveUp: 0, sent: 0, aborted: 0 };
	return {
		kinds,
		log,
		stats,
		other(at: number): boolean {
			const accepted = !full(at);
			if (accepted) admit(at);
			arrived.push(at);
			return accepted;
		},
		/** One message: resolves 'sent', 'gaveUp' (LimitNotReopenedError or other error), 'aborted'. */
		async send(account: Account, run: RunLane): Promise<string> {
			for (let place: number | undefined; ; ) {
				let ticket;
				try {
					ticket = await account.acquire(run, { place });
				} catch (error) {
					if (run.signal.aborted) {
						stats.aborted++;
						return 'aborted';
					}
					stats.gaveUp++;
					return `gaveUp:${(error as Error).name}`;
				}
				place = ticket.place;
				const start = Date.now();
				await new Promise((resolve) => setTimeout(resolve, latencyMs / 2 + Math.floor(rand() * jitterMs)));
				const at = Date.now();
				const accepted = !full(at);
				if (accepted) admit(at);
				arrived.push(at);
				log.push({ start, at, accepted, mine: true });
				const wait = reopensIn(at + latencyMs / 2);
				const named = accepted ? 0 : fullWindow(at);
				await new Promise((resolve) => setTimeout(resolve, latencyMs / 2 + Math.floor(rand() * jitterMs) + (readLate?.(log.length, rand) ?? 0)));
				if (run.signal.aborted) {
					ticket.finish({ type: 'abandoned' });
					if (accepted) stats.sent++;
					stats.aborted++;
					return accepted ? 'sent' : 'aborted';
				}
				const ra =
					retryAfter === 'sec'
						? Math.max(1_000, Math.ceil(wait / 1000) * 1000)
						: retryAfter === 'ms'
							? Math.max(1, Math.ceil(wait))
							: retryAfter === 'window'
								? Math.ceil(named / 1000) * 1000
								: undefined;
				const outcome: Outcome = accepted ? { type: 'answered' } : { type: 'refused', retryAfterMs: ra };
				ticket.finish(outcome);
				if (accepted) {
					stats.sent++;
					return 'sent';
				}
			}
		},
	};
}

export type Sim = ReturnType<typeof sim>;

/** Runs `body` to completion in simulated time. */
export async function settle<T>(p: Promise<T>, capMs = 48 * 3_600_000): Promise<T> {
	let done = false;
	const wrapped = p.finally(() => {
		done = true;
	});
	const t0 = Date.now();
	while (!done && Date.now() - t0 < capMs) await vi.advanceTimersByTimeAsync(500);
	return await wrapped;
}

export interface RunResult {
	took: number;
	refused: number;
	gaveUp: number;
	sent: number;
}

export async function run(account: Account, svc: Sim, n: number, limits: Partial<UserLimits> = {}): Promise<RunResult> {
	const lane = mkLane(limits);
	const before = svc.log.length;
	const t0 = Date.now();
	let end = t0;
	const outcomes = await settle(Promise.all(Array.from({ length: n }, async () => await svc.send(account, lane))).then((o) => ((end = Date.now()), o)));
	return { took: end - t0, refused: svc.log.slice(before).filter((e) => !e.accepted).length, gaveUp: outcomes.filter((o) => o.startsWith('gaveUp')).length, sent: outcomes.filter((o) => o === 'sent').length };
}
