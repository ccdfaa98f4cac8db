/**
 * Which account limits fit everything the service said. A sliding limit of `count` per `windowMs`
 * must have held two kinds of evidence at once:
 * - every set of accepted requests counted within less than a window of each other: at most
 *   `count` of them (the service took them all);
 * - every rate refusal: the window before it held at least `count` accepted requests (it was full).
 * Each refusal and each accepted request narrows the pairs that fit. Learned from the last
 * refusal alone, an account whose window filled in steps (a webhook, two more 7 s later, then a
 * burst) taught only the burst's part of it, and paced 2 per 7.5 s against 10 per 10 s.
 *
 * Times are when the answers came; the service counted each request somewhere within its round
 * trip, so up to `toleranceMs` (the longest round trip) before its answer: accepted requests are
 * surely within one window only when their answers span less than a window less that much, and
 * possibly inside the window before a refusal when they are within that much of its edges.
 */

export interface LimitEvidence {
	/** When accepted requests were answered, oldest first. */
	accepted: readonly number[];
	/** When rate refusals that found the window full were answered. */
	refused: readonly number[];
	/** How far two answer times may be off from the times the service counted them (ms). */
	toleranceMs: number;
	/**
	 * What the service took from a window before this time on bounds the count from below (default:
	 * the first refusal). Earlier than the refusals judged, when those are only some of them (a limit
	 * beside another is judged by the refusals the other does not explain).
	 */
	takenFrom?: number;
}

export interface Limit {
	count: number;
	windowMs: number;
}

/** Which windows to judge, and how the count learned for one is read. */
export interface LimitChoice {
	/** Window lengths (ms) to judge. */
	windows: readonly number[];
	/**
	 * A window kept whenever it still fits (the one learned before): a refusal it explains (a creep
	 * refused, a probe made late by a whole-second Retry-After) teaches no other. Judged only among
	 * `windows`, a probe that came late moved the window up a round length each time.
	 */
	keepMs?: number;
	/**
	 * What the window before the refusal held, counted as the answers came (no tolerance): the count
	 * learned, within the bounds that fit. The bounds alone are as loose as the tolerance: the upper
	 * one learned 11 for 10 when an answer came near a window's edge.
	 */
	heldIn(windowMs: number): number;
}

/**
 * The limit learned from `evidence`: the window kept when it still fits, else the shortest of
 * `choice.windows` that fits; undefined when none fits (a counter reset on the clock, a limit
 * changed meanwhile, several limits at once: the caller falls back on what the last refusal
 * showed). Several may fit while little is known. Nothing speaks against a long window with
 * everything accepted so far in it, and the longest would pace a few answers as an hourly limit;
 * a shorter one that is wrong is refused, and that refusal rules it out.
 */
export function estimateLimit(evidence: LimitEvidence, choice: LimitChoice): Limit | undefined {
	if (evidence.refused.length === 0 || evidence.accepted.length === 0) return undefined;
	const refused = distinctTimes(evidence.refused);
	const judged = (windowMs: number): Limit | undefined => {
		if (!(windowMs > 0)) return undefined;
		const { least, most } = countBounds({ ...evidence, refused }, windowMs);
		if (!(most >= least && most >= 1)) return undefined;
		return { count: Math.min(most, Math.max(least, 1, Math.round(choice.heldIn(windowMs)))), windowMs };
	};
	const kept = choice.keepMs === undefined ? undefined : judged(choice.keepMs);
	if (kept) return kept;
	// The shortest that fits: the window the probe found when it does, else the least growth that
	// explains the evidence. Taken as the fastest that fits, a window of 90 s fitted 60 a minute as
	// well (answers read late widen what fits), and half of every burst of 120 was refused.
	for (const windowMs of [...choice.windows].sort((a, b) => a - b)) {
		const limit = judged(windowMs);
		if (limit) return limit;
	}
	return undefined;
}

/**
 * The counts a limit over `windowMs` may have and fit `evidence`: at least the most the service
 * took within less than a window; at most the fewest the window before a refusal could have held
 * (it was full at each; Infinity without a refusal). None fits when `most` is below `least`.
 */
export function countBounds({ accepted, refused, toleranceMs, takenFrom }: LimitEvidence, windowMs: number): { least: number; most: number } {
	let most = Infinity;
	let first = Infinity;
	for (const time of refused) {
		most = Math.min(most, countWithin(accepted, time - windowMs - toleranceMs, time + toleranceMs));
		first = Math.min(first, time);
	}
	// What was taken from a window before the first refusal on: the same time as the refusals speak
	// for. Bursts of an hour before (100 at once on a plan of 100 a minute) ruled out the 20 per
	// second the plan was raised to, and a long window was learned: hundreds of refusals.
	first = Math.min(first, takenFrom ?? Infinity);
	const since = Number.isFinite(first) ? indexAfter(accepted, first - windowMs - toleranceMs) : 0;
	return { least: mostWithin(accepted.slice(since), windowMs - toleranceMs), most };
}

/** `times` in order, those within a millisecond of the one before left out: refusals that close say the same. */
export function distinctTimes(times: readonly number[]): number[] {
	return [...times].sort((a, b) => a - b).filter((time, index, all) => index === 0 || time - all[index - 1] >= 1);
}

/** How many of the ascending `times` are after `after` and at or before `until`. */
export function countWithin(times: readonly number[], after: number, until: number): number {
	return indexAfter(times, until) - indexAfter(times, after);
}

/** Index of the first of the ascending `times` after `time`, from index `from` on. */
export function indexAfter(times: readonly number[], time: number, from = 0): number {
	let low = from;
	let high = times.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if (times[mid] <= time) low = mid + 1;
		else high = mid;
	}
	return low;
}

/** The most of the ascending `times` that lie within less than `spanMs` of each other (at least one, when there are any). */
export function mostWithin(times: readonly number[], spanMs: number): number {
	let most = Math.min(1, times.length);
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= spanMs && first < last) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}
