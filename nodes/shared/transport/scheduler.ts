import { sleep } from 'n8n-workflow';

export interface Pacing {
	/** Requests in flight at once. */
	maxConcurrent: number;
	/** 0 = no limit. */
	maxPerSecond: number;
	/** 0 = no limit. */
	maxPerMinute: number;
}

/** Given to requests that had not started when another item's failure stopped the run. */
export class RunStoppedError extends Error {
	constructor() {
		super('Not sent: the run stopped at an earlier failure');
	}
}

interface Waiter {
	resolve: () => void;
	reject: (error: Error) => void;
}

interface Window {
	limit: number;
	lengthMs: number;
	/** Start times of the latest `limit` requests, ascending. */
	starts: number[];
}

/**
 * Decides when each request of one node run may start: at most `maxConcurrent` at once, in
 * the order they asked, never more than the per-second or per-minute limit in any window
 * (requests are also spaced evenly, so there are no bursts at window edges), and not while
 * the service has asked us to wait (a 429's Retry-After pauses every request, not just one).
 *
 * A gate holds sends back until every item of the run has been read and checked, so bad
 * input stops the run before any message leaves.
 */
export class RequestScheduler {
	private active = 0;

	private readonly slotWaiters: Waiter[] = [];

	private readonly gateWaiters: Waiter[] = [];

	private gateOpen = true;

	private stoppedWith?: Error;

	private pausedUntil = 0;

	private nextStart = 0;

	private readonly spacingMs: number;

	private readonly windows: Window[] = [];

	/** Told when a held send reaches the gate, with its item index. */
	onGateArrival?: (itemIndex: number) => void;

	/** Whether an item's failure ends the run (n8n without "Continue On Fail"). */
	stopOnFailure = false;

	constructor(readonly pacing: Pacing) {
		const perSecondSpacing = pacing.maxPerSecond > 0 ? 1000 / pacing.maxPerSecond : 0;
		const perMinuteSpacing = pacing.maxPerMinute > 0 ? 60_000 / pacing.maxPerMinute : 0;
		this.spacingMs = Math.max(perSecondSpacing, perMinuteSpacing);
		if (pacing.maxPerSecond > 0) this.windows.push({ limit: pacing.maxPerSecond, lengthMs: 1000, starts: [] });
		if (pacing.maxPerMinute > 0) this.windows.push({ limit: pacing.maxPerMinute, lengthMs: 60_000, starts: [] });
	}

	get stopped(): Error | undefined {
		return this.stoppedWith;
	}

	holdGate(): void {
		this.gateOpen = false;
	}

	openGate(): void {
		this.gateOpen = true;
		for (const waiter of this.gateWaiters.splice(0)) waiter.resolve();
	}

	/** Nothing more starts; everyone waiting is rejected with `error`. In-flight requests finish. */
	stop(error: Error): void {
		if (this.stoppedWith) return;
		this.stoppedWith = error;
		for (const waiter of [...this.gateWaiters.splice(0), ...this.slotWaiters.splice(0)]) waiter.reject(error);
	}

	/**
	 * An item failed for good. Without Continue On Fail nothing more may start, and this must
	 * happen before the failing request gives up its slot. Returns the error, for `throw`.
	 */
	failed<E extends Error>(error: E): E {
		if (this.stopOnFailure) this.stop(new RunStoppedError());
		return error;
	}

	/** The service asked us to wait: no request starts before `until` (epoch ms). */
	pauseUntil(until: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, until);
	}

	/**
	 * Waits for the gate (sends only), a free slot and the pacing; returns the function that
	 * frees the slot once the request has its answer.
	 */
	async acquire(itemIndex: number, { gated }: { gated: boolean }): Promise<() => void> {
		if (gated && !this.gateOpen) {
			await new Promise<void>((resolve, reject) => {
				this.gateWaiters.push({ resolve, reject });
				this.onGateArrival?.(itemIndex);
			});
		}
		await this.takeSlot();
		let started = false;
		try {
			await this.waitForStartTime();
			started = true;
		} finally {
			// Stopped while waiting for its start time: give the slot back.
			if (!started) this.releaseSlot();
		}
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.releaseSlot();
		};
	}

	/**
	 * For a retry that kept its slot: waits for its start time again (spacing, windows, and any
	 * pause the service asked for). When stopped it throws, and the caller gives the slot back.
	 */
	async waitForTurn(): Promise<void> {
		await this.waitForStartTime();
	}

	private async takeSlot(): Promise<void> {
		if (this.stoppedWith) throw this.stoppedWith;
		if (this.active < this.pacing.maxConcurrent) {
			this.active++;
			return;
		}
		// The slot is handed over by releaseSlot(); `active` does not change in between.
		await new Promise<void>((resolve, reject) => this.slotWaiters.push({ resolve, reject }));
	}

	private releaseSlot(): void {
		const next = this.slotWaiters.shift();
		if (next) next.resolve();
		else this.active--;
	}

	private async waitForStartTime(): Promise<void> {
		let spaced = false;
		for (;;) {
			if (this.stoppedWith) throw this.stoppedWith;
			const now = Date.now();
			if (!spaced) {
				// Take the next evenly spaced start time now, so parallel waiters keep their order.
				spaced = true;
				const start = Math.max(now, this.nextStart);
				if (this.spacingMs > 0) this.nextStart = start + this.spacingMs;
				if (start > now) {
					await sleep(start - now);
					continue;
				}
			}
			// Windows count actual start times: a timer that fires late must not let one more in.
			const freeAt = Math.max(this.pausedUntil, this.windowsFreeAt());
			if (freeAt > now) {
				await sleep(freeAt - now);
				continue;
			}
			this.recordStart(now);
			return;
		}
	}

	private windowsFreeAt(): number {
		let freeAt = 0;
		for (const window of this.windows) {
			if (window.starts.length < window.limit) continue;
			// A small margin keeps the count under the limit where arrival times jitter.
			const margin = Math.max(5, window.lengthMs * 0.01);
			freeAt = Math.max(freeAt, window.starts[window.starts.length - window.limit] + window.lengthMs + margin);
		}
		return freeAt;
	}

	private recordStart(start: number): void {
		for (const window of this.windows) {
			window.starts.push(start);
			if (window.starts.length > window.limit) window.starts.splice(0, window.starts.length - window.limit);
		}
	}
}
