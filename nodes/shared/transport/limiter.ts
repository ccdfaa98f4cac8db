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

/** The requests under way that count against one Max Concurrent Requests. */
export interface Slots {
	active: number;
}

interface Waiter {
	pacing: Pacing;
	slots: Slots;
	/** When the waiter's run started (epoch ms): its first start may be paced from then (see pump). */
	since: number;
	/** A retry keeps the slot it had; it only waits for its start time. */
	hasSlot: boolean;
	signal: AbortSignal;
	grant: () => void;
	fail: (error: unknown) => void;
}

/** One request let through. `done()` once its answer (or failure) is in; `keepSlot` for a retry. */
export interface Permit {
	done(options?: { keepSlot?: boolean }): void;
}

/** A margin for clocks and timers when a window frees up. */
const marginMs = (lengthMs: number) => Math.max(5, lengthMs * 0.01);

const WINDOWS = [
	{ lengthMs: 1_000, limitOf: (pacing: Pacing) => pacing.maxPerSecond },
	{ lengthMs: 60_000, limitOf: (pacing: Pacing) => pacing.maxPerMinute },
].map((window) => ({ ...window, countedMs: window.lengthMs + marginMs(window.lengthMs) }));

/** How far the pacing schedule may fall behind and still be made up (see pump): one per-second window. */
const CATCH_UP_MS = 1_000;

/** How long an answer can still count in some window. */
const LONGEST_COUNTED_MS = Math.max(...WINDOWS.map((window) => window.countedMs));

/**
 * Decides when each request may start, first come first served: at most `maxConcurrent` under
 * way, starts spaced evenly by the per-second/per-minute limits from the run's start, never
 * more than the limit in any window at the service, and nothing while the service asked us to
 * wait (Retry-After).
 *
 * A request counts in a window from its start until a window length after its answer: it
 * reaches the service somewhere in between, and only then is it sure to have left every
 * window the service keeps. One limiter serves one run, or, with "Share Limits Across
 * Executions", every run of one credential and API group in this process; each waiter
 * brings its own pacing, checked against the shared history.
 */
export class Limiter {
	private queue: Waiter[] = [];

	/** Signals this limiter listens to (see watch()). */
	private readonly watched = new WeakSet<AbortSignal>();

	/** The slots everyone sharing this limiter counts against (see acquire's `slots`). */
	private readonly slots: Slots = { active: 0 };

	/** Requests started and not yet answered: each still counts in every window. */
	private underway = 0;

	/**
	 * When the answered requests were answered, in order (answers come in time order), from
	 * `firstKept` on; older ones can no longer count in any window. `firstCounted[w]` is the first
	 * still counted in WINDOWS[w]. Time only moves forward, so each index only moves forward: a
	 * window check is O(1) amortised however many requests a minute holds.
	 */
	private answered: number[] = [];

	private firstKept = 0;

	private readonly firstCounted = WINDOWS.map(() => 0);

	private lastStart = 0;

	private pausedUntil = 0;

	/** Wakes the pump when something changed (a release, a pause, a waiter leaving). */
	private wake?: AbortController;

	private pumping = false;

	/** True when nothing is queued, under way or still counted in a window: safe to forget. */
	get idle(): boolean {
		const lastAnswer = this.answered.length > this.firstKept ? this.answered[this.answered.length - 1] : -Infinity;
		return this.queue.length === 0 && this.underway === 0 && lastAnswer + LONGEST_COUNTED_MS < Date.now();
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
	 * waiting; a kept slot is then given back. `slots`: whose Max Concurrent Requests the request
	 * counts against, this limiter's (everyone sharing it) unless a run brings its own. `since`:
	 * when the request's run started.
	 */
	async acquire(pacing: Pacing, signal: AbortSignal, { hasSlot = false, slots = this.slots, since = Date.now() } = {}): Promise<Permit> {
		if (signal.aborted) {
			// A retry whose run stopped before it came back: its kept slot is given back here, or no one would.
			if (hasSlot) this.giveBack(slots);
			throw signal.reason;
		}
		this.watch(signal);
		await new Promise<void>((grant, fail) => {
			const waiter: Waiter = { pacing, slots, hasSlot, since, signal, grant, fail };
			// A retry goes first: it had its turn, and with one slot the input order holds.
			if (hasSlot) this.queue.unshift(waiter);
			else this.queue.push(waiter);
			this.poke();
		});
		let done = false;
		return {
			done: ({ keepSlot = false } = {}) => {
				if (done) return;
				done = true;
				this.underway--;
				// Never before the last one: the clock may step back, a window must not shrink.
				this.answered.push(Math.max(Date.now(), this.answered.at(-1) ?? 0));
				if (!keepSlot) slots.active--;
				this.poke();
			},
		};
	}

	/** A retry that kept its slot gives up without starting again (its run stopped while it waited). */
	giveBack(slots: Slots = this.slots): void {
		slots.active--;
		this.poke();
	}

	/**
	 * One abort listener per signal, not one per waiter: a run queues all its requests at once,
	 * and adding a listener to a signal costs O(listeners) in Node (quadratic in the run's size).
	 * On abort, that signal's waiters leave the queue; kept slots are given back.
	 */
	private watch(signal: AbortSignal): void {
		if (this.watched.has(signal)) return;
		this.watched.add(signal);
		const onAbort = () => {
			const leaving = this.queue.filter((waiter) => waiter.signal === signal);
			this.queue = this.queue.filter((waiter) => waiter.signal !== signal);
			for (const waiter of leaving) {
				if (waiter.hasSlot) waiter.slots.active--;
				waiter.fail(signal.reason);
			}
			this.poke();
		};
		signal.addEventListener('abort', onAbort, { once: true });
	}

	private poke(): void {
		this.wake?.abort();
		if (!this.pumping) void this.pump();
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		try {
			for (;;) {
				// First come first served among those with a free slot: a run waiting for its own
				// slots does not hold up another run's requests behind it.
				const index = this.queue.findIndex((waiter) => waiter.hasSlot || waiter.slots.active < waiter.pacing.maxConcurrent);
				if (index < 0) return; // everyone waits for a slot: a release pokes
				const head = this.queue[index];
				const now = Date.now();
				const due = this.dueTime(head.pacing);
				const at = this.startTime(head, now, due);
				if (at === undefined) return; // waits for an answer: poke() resumes
				if (at <= now) {
					this.queue.splice(index, 1);
					if (!head.hasSlot) head.slots.active++;
					// The schedule goes on from when this start was due, not from when it went out:
					// a run that checked its items first, or that a window or a slot held back,
					// makes the time up (the windows still hold: startTime checks every start), so it
					// keeps the rate it was given from its start. Never from before the run began
					// or more than a window back; after a Retry-After (no start since the pause
					// began) it begins afresh.
					const firstAfterPause = this.lastStart < this.pausedUntil;
					this.lastStart = firstAfterPause ? now : Math.min(now, Math.max(due, head.since, now - CATCH_UP_MS));
					this.prune(now);
					// Counted now, not when the waiter resumes: the next start may be decided in
					// this same turn, and must see this one in every window.
					this.underway++;
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

	/** When the next start is due by `pacing`'s spacing alone (the last start when it has no rate limit). */
	private dueTime(pacing: Pacing): number {
		let due = this.lastStart;
		for (const { lengthMs, limitOf } of WINDOWS) {
			const limit = limitOf(pacing);
			if (limit > 0) due = Math.max(due, this.lastStart + lengthMs / limit);
		}
		return due;
	}

	/**
	 * When `waiter`, which has a slot, may start (epoch ms; in the past when it may start now),
	 * or undefined while it must wait for an answer. `due`: dueTime of its pacing.
	 */
	private startTime(waiter: Waiter, now: number, due: number): number | undefined {
		const { pacing } = waiter;
		let at = Math.max(this.pausedUntil, due);
		for (let w = 0; w < WINDOWS.length; w++) {
			const { countedMs, limitOf } = WINDOWS[w];
			const limit = limitOf(pacing);
			if (limit <= 0) continue;
			// Requests that may still be in a window ending now: under way, or answered less than a window ago.
			const first = this.advance(w, now - countedMs);
			const answeredInWindow = this.answered.length - first;
			const counted = answeredInWindow + this.underway;
			if (counted < limit) continue;
			// Counted in answer order (those under way last): the one whose leaving makes room.
			const leaving = counted - limit;
			if (leaving >= answeredInWindow) return undefined; // only an answer makes room
			at = Math.max(at, this.answered[first + leaving] + countedMs);
		}
		return at;
	}

	/** The first answer of WINDOWS[w] still counted after `horizon`. */
	private advance(w: number, horizon: number): number {
		let first = Math.max(this.firstCounted[w], this.firstKept);
		// Should the clock step back, answers already passed count again.
		while (first > this.firstKept && this.answered[first - 1] > horizon) first--;
		while (first < this.answered.length && this.answered[first] <= horizon) first++;
		this.firstCounted[w] = first;
		return first;
	}

	/** Forgets answers that no window can count any more (in chunks, so each is moved once on average). */
	private prune(now: number): void {
		while (this.firstKept < this.answered.length && this.answered[this.firstKept] + LONGEST_COUNTED_MS <= now) this.firstKept++;
		if (this.firstKept < 1024 || this.firstKept * 2 < this.answered.length) return;
		this.answered = this.answered.slice(this.firstKept);
		for (let w = 0; w < WINDOWS.length; w++) this.firstCounted[w] = Math.max(0, this.firstCounted[w] - this.firstKept);
		this.firstKept = 0;
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
