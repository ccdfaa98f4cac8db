/**
 * The limit estimate (nodes/shared/transport/limitEstimate.ts) on its own: which sliding limits
 * fit what a service accepted and refused. The property is the one the scheduler relies on: the
 * service's own limit is never ruled out, whatever the schedule of requests and round trips, as
 * long as the tolerance covers the round trips.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { countBounds, countWithin, estimateLimit, mostWithin } from '../../nodes/shared/transport/limitEstimate';

/** The count learned is the most that fits (what the window held is not known here). */
const asMuchAsFits = () => Infinity;

const ROUND = [250, 500, 1_000, 2_000, 3_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000, 60_000];

describe('the limit estimate', () => {
	it('counts answers in a window (after its start, up to its end) and the most within less than a span', () => {
		expect(countWithin([1, 2, 3, 5, 8], 2, 5)).toBe(2);
		expect(countWithin([1, 2, 3, 5, 8], 0, 8)).toBe(5);
		expect(countWithin([], 0, 8)).toBe(0);
		expect(mostWithin([0, 1, 2, 10, 11, 12, 13], 4)).toBe(4);
		expect(mostWithin([0, 1, 2, 10, 11, 12, 13], 3)).toBe(3);
		expect(mostWithin([0, 1, 2, 10, 11, 12, 13], 2)).toBe(2);
		expect(mostWithin([0, 1], 0)).toBe(1);
		expect(mostWithin([], 5)).toBe(0);
	});

	it('a window that filled in steps (1 answer at 0 s, 2 at 6.9 s, 8 at 14 s, refused until a probe was accepted at 17 s; 10 per 10 s): the burst per 3 s fits only at its edge, and the next refusal leaves 10 per 10 s', () => {
		const accepted = [0, 6_900, 6_900, ...Array.from({ length: 8 }, () => 14_050), 17_050];
		const refused = [14_050, 14_300, 14_550, 15_050, 15_550, 16_050];
		const windows = [3_000, 5_000, 7_500, 10_000, 15_000, 20_000];
		const evidence = { accepted, refused, toleranceMs: 50 };
		// The fastest that fits is taken: 8 per 3 s, the burst per the time to the probe.
		expect(countBounds(evidence, 3_000)).toEqual({ least: 8, most: 8 });
		expect(estimateLimit(evidence, { windows, heldIn: asMuchAsFits })).toEqual({ count: 8, windowMs: 3_000 });
		// Longer windows: the probe and the steps before the burst were taken within less than one.
		expect(countBounds(evidence, 15_000).least).toBeGreaterThan(countBounds(evidence, 15_000).most);
		// Shorter ones: refusals came when the burst had left such a window.
		expect(countBounds(evidence, 1_000).most).toBe(0);
		// Sent at 8 per 3 s: one more is taken at 17.1 s and the rest refused, which 8 per 3 s cannot explain.
		expect(estimateLimit({ ...evidence, accepted: [...accepted, 17_100], refused: [...refused, 17_150] }, { windows, heldIn: asMuchAsFits })).toEqual({ count: 10, windowMs: 10_000 });
	});

	it('nothing refused, or nothing accepted, estimates nothing; nor does evidence no sliding window fits (a counter reset on the clock, a limit lowered)', () => {
		expect(estimateLimit({ accepted: [100, 200], refused: [], toleranceMs: 20 }, { windows: ROUND, heldIn: asMuchAsFits })).toBeUndefined();
		expect(estimateLimit({ accepted: [], refused: [100], toleranceMs: 20 }, { windows: ROUND, heldIn: asMuchAsFits })).toBeUndefined();
		// 20 taken within 200 ms, then refusals: any of the windows fits, and the shortest is the fastest.
		const twenty = { accepted: [...Array.from({ length: 10 }, () => 59_900), ...Array.from({ length: 10 }, () => 60_100)], refused: [60_150, 61_000], toleranceMs: 20 };
		expect(estimateLimit(twenty, { windows: [5_000, 10_000, 60_000], heldIn: asMuchAsFits })).toEqual({ count: 20, windowMs: 5_000 });
		// Refused 5 s later, with nothing taken since: not 5 s.
		expect(estimateLimit({ ...twenty, refused: [...twenty.refused, 65_150] }, { windows: [5_000, 10_000, 60_000], heldIn: asMuchAsFits })).toEqual({ count: 20, windowMs: 10_000 });
		// Refused 70 s later still: no sliding window of these had anything in it.
		expect(estimateLimit({ ...twenty, refused: [...twenty.refused, 65_150, 130_000] }, { windows: [5_000, 10_000, 60_000], heldIn: asMuchAsFits })).toBeUndefined();
	});

	it('a window learned before is kept while it fits; the count is what the window held, within the bounds that fit', () => {
		// 10 per second, sent at it: a creep to 11 refused, the probe late by a whole-second Retry-After.
		const accepted = Array.from({ length: 40 }, (_, index) => 1_000 + Math.floor(index / 10) * 1_000 + (index % 10) * 10);
		const evidence = { accepted, refused: [4_095], toleranceMs: 50 };
		expect(estimateLimit(evidence, { windows: [1_500, 2_000], keepMs: 1_000, heldIn: () => 10 })).toEqual({ count: 10, windowMs: 1_000 });
		// Not kept, the late probe's window and longer ones: the fastest that fits is 20 per 1.5 s (a storm of refusals).
		expect(estimateLimit(evidence, { windows: [1_500, 2_000], heldIn: asMuchAsFits })).toEqual({ count: 20, windowMs: 1_500 });
		// What the window held is learned when it fits (10 in its last second), clamped when it does not.
		expect(estimateLimit(evidence, { windows: [1_000], heldIn: () => 10 })).toEqual({ count: 10, windowMs: 1_000 });
		expect(estimateLimit(evidence, { windows: [1_000], heldIn: () => 3 })).toEqual({ count: 10, windowMs: 1_000 });
		// At most what the window before the refusal could have held, the tolerance's edges included.
		expect(estimateLimit(evidence, { windows: [1_000], heldIn: () => 30 })).toEqual({ count: 15, windowMs: 1_000 });
	});

	it('never rules out the limit of a service counting a sliding window, whatever the requests and round trips (1,000 schedules)', () => {
		fc.assert(
			fc.property(
				fc.record({
					count: fc.integer({ min: 1, max: 20 }),
					windowMs: fc.constantFrom(...ROUND),
					maxRoundTripMs: fc.integer({ min: 1, max: 2_000 }),
					requests: fc.array(
						fc.record({
							startMs: fc.integer({ min: 0, max: 180_000 }),
							roundTripMs: fc.double({ min: 0, max: 1, noNaN: true }),
							countedAt: fc.double({ min: 0, max: 1, noNaN: true }),
						}),
						{ minLength: 1, maxLength: 200 },
					),
				}),
				({ count, windowMs, maxRoundTripMs, requests }) => {
					// Each request is counted somewhere within its round trip and answered at its end.
					const timed = requests
						.map(({ startMs, roundTripMs, countedAt }) => {
							const trip = Math.round(roundTripMs * maxRoundTripMs);
							return { counted: startMs + Math.round(countedAt * trip), answered: startMs + trip };
						})
						.sort((a, b) => a.counted - b.counted);
					const taken: number[] = [];
					const accepted: number[] = [];
					const refused: number[] = [];
					for (const { counted, answered } of timed) {
						if (taken.filter((time) => time > counted - windowMs).length < count) {
							taken.push(counted);
							accepted.push(answered);
						} else {
							refused.push(answered);
						}
					}
					accepted.sort((a, b) => a - b);
					const bounds = countBounds({ accepted, refused, toleranceMs: maxRoundTripMs }, windowMs);
					expect(bounds.least).toBeLessThanOrEqual(count);
					expect(bounds.most).toBeGreaterThanOrEqual(count);
					// So the estimate exists once anything was refused, and is at least as fast as the limit
					// among the windows at least as long as it.
					if (refused.length > 0) {
						const evidence = { accepted, refused, toleranceMs: maxRoundTripMs };
						const estimate = estimateLimit(evidence, { windows: ROUND.filter((length) => length >= windowMs), heldIn: asMuchAsFits });
						expect(estimate).toBeDefined();
						expect(estimate!.count / estimate!.windowMs).toBeGreaterThanOrEqual(count / windowMs);
						// And a window learned before is kept: the service's own is never given up.
						expect(estimateLimit(evidence, { windows: ROUND, keepMs: windowMs, heldIn: () => count })).toEqual({ count, windowMs });
					}
				},
			),
			{ numRuns: 1_000 },
		);
	});
});
