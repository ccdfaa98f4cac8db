import { sleep } from 'n8n-workflow';

export interface Pacing {
	/** Requests in flight at once. */
	maxConcurrent: number;
	/** 0 = no limit. */
	maxPerSecond: number;
	/** 0 = no limit. */
	maxPerMinute: number;
}

/**
 * Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted.
 * n8n-workflow's sleep takes the signal in n8n 2.x; the race keeps waits interruptible on
 * versions whose sleep ignores it.
 */
export async function interruptibleSleep(ms: number, signal: AbortSignal): Promise<void> {
	if (signal.aborted) throw signal.reason;
	let onAbort!: () => void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(signal.reason as Error);
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

interface Waiter {
	pacing: Pacing;
	/** A retry keeps the slot it had; it only waits for its start time. */
	hasSlot: boolean;
	signal: AbortSignal;
	grant: () => void;
	fail: (error: unknown) => void;
}

/** A started request: the service counts it when it arrives, at the latest when it is answered. */
interface Started {
	startedAt: number;
	/** Infinity while under way. */
	answeredAt: number;
}

/** One request let through. `done()` once its answer (or failure) is in; `keepSlot` for a retry. */
export interface Permit {
	done(options?: { keepSlot?: boolean }): void;
}

const WINDOWS = [
	{ lengthMs: 1_000, limitOf: (pacing: Pacing) => pacing.maxPerSecond },
	{ lengthMs: 60_000, limitOf: (pacing: Pacing) => pacing.maxPerMinute },
] as const;

/** A margin for clocks and timers when a window frees up. */
const marginMs = (lengthMs: number) => Math.max(5, lengthMs * 0.01);

/**
 * Decides when each request may start, first come first served: at most `maxConcurrent` under
 * way, starts spaced evenly by the per-second/per-minute limits, never more than the limit in
 * any window at the service, and nothing while the service asked us to wait (Retry-After).
 *
 * A request counts in a window from its start until a window length after its answer: it
 * reaches the service somewhere in between, and only then is it sure to have left every
 * window the service keeps. One limiter serves one run, or, with "Share Limits Across
 * Executions", every run of one credential and API group in this process; each waiter
 * brings its own pacing, checked against the shared history.
 */
export class Limiter {
	private readonly queue: Waiter[] = [];

	private active = 0;

	private started: Started[] = [];

	private lastStart = 0;

	private pausedUntil = 0;

	/** Wakes the pump when something changed (a release, a pause, a waiter leaving). */
	private wake?: AbortController;

	private pumping = false;

	/** True when nothing is queued, under way or still counted in a window: safe to forget. */
	get idle(): boolean {
		return this.queue.length === 0 && this.active === 0 && this.started.every((s) => s.answeredAt + 60_000 < Date.now());
	}

	/** The service asked us to wait: no request of anyone sharing this limiter starts before `until`. */
	pauseUntil(until: number): void {
		if (until <= this.pausedUntil) return;
		this.pausedUntil = until;
		this.poke();
	}

	/**
	 * Waits for a free slot (unless `hasSlot`: a retry keeps the slot of its first attempt) and
	 * the start time. Rejects with the signal's reason, at once, when the signal is aborted while
	 * waiting; a kept slot is then given back.
	 */
	async acquire(pacing: Pacing, signal: AbortSignal, { hasSlot = false } = {}): Promise<Permit> {
		if (signal.aborted) throw signal.reason;
		await new Promise<void>((grant, fail) => {
			const waiter: Waiter = { pacing, hasSlot, signal, grant, fail };
			const onAbort = () => {
				const index = this.queue.indexOf(waiter);
				if (index >= 0) this.queue.splice(index, 1);
				if (hasSlot) this.active--;
				fail(signal.reason);
				this.poke();
			};
			signal.addEventListener('abort', onAbort, { once: true });
			waiter.grant = () => {
				signal.removeEventListener('abort', onAbort);
				grant();
			};
			// A retry goes first: it had its turn, and with one slot the input order holds.
			if (hasSlot) this.queue.unshift(waiter);
			else this.queue.push(waiter);
			this.poke();
		});
		const record: Started = { startedAt: Date.now(), answeredAt: Infinity };
		this.started.push(record);
		let done = false;
		return {
			done: ({ keepSlot = false } = {}) => {
				if (done) return;
				done = true;
				record.answeredAt = Date.now();
				if (!keepSlot) this.active--;
				this.poke();
			},
		};
	}

	private poke(): void {
		this.wake?.abort();
		if (!this.pumping) void this.pump();
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		try {
			for (;;) {
				const head = this.queue[0];
				if (!head) return;
				const now = Date.now();
				const at = this.startTime(head, now);
				if (at === undefined) return; // waits for a slot or an answer: poke() resumes
				if (at <= now) {
					this.queue.shift();
					if (!head.hasSlot) this.active++;
					this.lastStart = now;
					this.prune(now);
					head.grant();
					continue;
				}
				this.wake = new AbortController();
				// Woken early (a release, a pause, a waiter leaving): look again.
				await interruptibleSleep(at - now, this.wake.signal).catch(() => undefined);
				this.wake = undefined;
			}
		} finally {
			this.pumping = false;
		}
	}

	/** When `waiter` may start (epoch ms), or undefined while it must wait for a slot or an answer. */
	private startTime(waiter: Waiter, now: number): number | undefined {
		const { pacing } = waiter;
		if (!waiter.hasSlot && this.active >= pacing.maxConcurrent) return undefined;
		let at = Math.max(now, this.pausedUntil);
		for (const { lengthMs, limitOf } of WINDOWS) {
			const limit = limitOf(pacing);
			if (limit <= 0) continue;
			at = Math.max(at, this.lastStart + lengthMs / limit);
			// Requests that may still be in a window ending now: under way, or answered less than a window ago.
			const counted = this.started
				.map((s) => s.answeredAt)
				.filter((answeredAt) => answeredAt + lengthMs + marginMs(lengthMs) > now)
				.sort((a, b) => a - b);
			if (counted.length < limit) continue;
			const freeAt = counted[counted.length - limit];
			if (freeAt === Infinity) return undefined;
			at = Math.max(at, freeAt + lengthMs + marginMs(lengthMs));
		}
		return at;
	}

	/** Forgets requests that no window can count any more. */
	private prune(now: number): void {
		if (this.started.length > 64 && this.started[0].answeredAt + 61_000 < now) {
			this.started = this.started.filter((s) => s.answeredAt + 61_000 >= now);
		}
	}
}

/**
 * Limiters shared by every execution in this process, one per credential and API group. In
 * memory only: nothing outlives the process, and a limiter is dropped once it is idle.
 */
const shared = new Map<string, Limiter>();

export function sharedLimiter(key: string): Limiter {
	for (const [other, limiter] of shared) if (other !== key && limiter.idle) shared.delete(other);
	let limiter = shared.get(key);
	if (!limiter) {
		limiter = new Limiter();
		shared.set(key, limiter);
	}
	return limiter;
}
