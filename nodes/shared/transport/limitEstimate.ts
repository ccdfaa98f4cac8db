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
}

export interface Limit {
	count: number;
	windowMs: number;
}

/**
 * Of `windows` (lengths in ms), the limit that fits all of `evidence` with the highest rate, or
 * undefined when none fits (a counter reset on the clock, a limit changed meanwhile, several
 * limits at once: the caller falls back on what the last refusal showed). Several may fit while
 * little is known. Nothing speaks against a long window with everything accepted so far in it,
 * and the slowest would pace a few answers as an hourly limit; the fastest that fits is refused
 * if it is wrong, and that refusal rules it out.
 */
export function estimateLimit(evidence: LimitEvidence, windows: readonly number[]): Limit | undefined {
	if (evidence.refused.length === 0 || evidence.accepted.length === 0) return undefined;
	// Refusals within a millisecond of each other say the same.
	const refused = [...evidence.refused].sort((a, b) => a - b).filter((time, index, all) => index === 0 || time - all[index - 1] >= 1);
	let best: Limit | undefined;
	for (const windowMs of windows) {
		if (!(windowMs > 0)) continue;
		const { least, most: count } = countBounds({ ...evidence, refused }, windowMs);
		if (!(count >= least)) continue;
		if (!best || count * best.windowMs > best.count * windowMs || (count * best.windowMs === best.count * windowMs && windowMs < best.windowMs)) {
			best = { count, windowMs };
		}
	}
	return best;
}

/**
 * The counts a limit over `windowMs` may have and fit `evidence`: at least the most the service
 * took within less than a window; at most the fewest the window before a refusal could have held
 * (it was full at each; Infinity without a refusal). None fits when `most` is below `least`.
 */
export function countBounds({ accepted, refused, toleranceMs }: LimitEvidence, windowMs: number): { least: number; most: number } {
	let most = Infinity;
	for (const time of refused) most = Math.min(most, countWithin(accepted, time - windowMs - toleranceMs, time + toleranceMs));
	return { least: mostWithin(accepted, windowMs - toleranceMs), most };
}

/** How many of the ascending `times` are after `after` and at or before `until`. */
export function countWithin(times: readonly number[], after: number, until: number): number {
	return indexAfter(times, until) - indexAfter(times, after);
}

/** Index of the first of the ascending `times` after `time`. */
function indexAfter(times: readonly number[], time: number): number {
	let low = 0;
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
