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

/** A started request as the rate windows count it: it may reach the service until it is answered. */
interface Counted {
	/** Epoch ms; Infinity while the request is under way. */
	answeredAt: number;
}

interface Window {
	limit: number;
	lengthMs: number;
	/** The latest `limit` requests, in the order they started. */
	counted: Counted[];
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

	/** The requests each item has under way, as the windows count them. */
	private readonly underWay = new Map<number, Counted[]>();

	/** Waiting for an answer: every request the windows count is still under way. */
	private answerWaiters: Array<() => void> = [];

	/** Told when a held send reaches the gate, with its item index. */
	onGateArrival?: (itemIndex: number) => void;

	/** Whether an item's failure ends the run (n8n without "Continue On Fail"). */
	stopOnFailure = false;

	constructor(readonly pacing: Pacing) {
		const perSecondSpacing = pacing.maxPerSecond > 0 ? 1000 / pacing.maxPerSecond : 0;
		const perMinuteSpacing = pacing.maxPerMinute > 0 ? 60_000 / pacing.maxPerMinute : 0;
		this.spacingMs = Math.max(perSecondSpacing, perMinuteSpacing);
		if (pacing.maxPerSecond > 0) this.windows.push({ limit: pacing.maxPerSecond, lengthMs: 1000, counted: [] });
		if (pacing.maxPerMinute > 0) this.windows.push({ limit: pacing.maxPerMinute, lengthMs: 60_000, counted: [] });
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
		for (const wake of this.answerWaiters.splice(0)) wake();
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
			await this.waitForStartTime(itemIndex);
			started = true;
		} finally {
			// Stopped while waiting for its start time: give the slot back.
			if (!started) this.releaseSlot();
		}
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.answered(itemIndex);
			this.releaseSlot();
		};
	}

	/** The item's request has its answer (or failed): it can no longer reach the service. */
	answered(itemIndex: number): void {
		const counted = this.underWay.get(itemIndex);
		if (!counted) return;
		this.underWay.delete(itemIndex);
		// Normally one; should an item ever have two under way, freeing both early beats a stall.
		const now = Date.now();
		for (const request of counted) request.answeredAt = now;
		for (const wake of this.answerWaiters.splice(0)) wake();
	}

	/**
	 * For a retry that kept its slot: waits for its start time again (spacing, windows, and any
	 * pause the service asked for). When stopped it throws, and the caller gives the slot back.
	 */
	async waitForTurn(itemIndex: number): Promise<void> {
		await this.waitForStartTime(itemIndex);
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

	private async waitForStartTime(itemIndex: number): Promise<void> {
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
			const freeAt = Math.max(this.pausedUntil, this.windowsFreeAt());
			if (freeAt === Infinity) {
				await new Promise<void>((resolve) => this.answerWaiters.push(resolve));
				continue;
			}
			if (freeAt > now) {
				await sleep(freeAt - now);
				continue;
			}
			this.recordStart(itemIndex);
			return;
		}
	}

	/**
	 * When one more request fits every window. The service counts a request when it arrives, and
	 * it arrives at the latest when it is answered; how long after its start is unknown (a cold
	 * connection, a busy event loop). So a request counts from its start until a window length
	 * after its answer: a full window frees once its earliest-answered request is that old.
	 * Infinity: every counted request is still under way.
	 */
	private windowsFreeAt(): number {
		let freeAt = 0;
		for (const window of this.windows) {
			if (window.counted.length < window.limit) continue;
			let earliest = Infinity;
			for (const counted of window.counted) earliest = Math.min(earliest, counted.answeredAt);
			// A small margin for clocks and timers.
			const margin = Math.max(5, window.lengthMs * 0.01);
			freeAt = Math.max(freeAt, earliest + window.lengthMs + margin);
		}
		return freeAt;
	}

	private recordStart(itemIndex: number): void {
		if (this.windows.length === 0) return;
		const counted: Counted = { answeredAt: Infinity };
		this.underWay.set(itemIndex, [...(this.underWay.get(itemIndex) ?? []), counted]);
		for (const window of this.windows) {
			window.counted.push(counted);
			if (window.counted.length > window.limit) window.counted.splice(0, window.counted.length - window.limit);
		}
	}
}
