/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n; it watches the event loop's turns (README: Lint) */
/**
 * Checking items gives n8n's event loop its turns (router.ts, forEachItem): how many items are
 * checked between two turns in which the loop reads its sockets (a Stop, a webhook, the editor),
 * counted, not timed. Each check takes a millisecond; a busy machine makes fewer fit, never more.
 */
import { expect, it } from 'vitest';

import { forEachItem } from '../../nodes/shared/router';
import type { Run } from '../../nodes/shared/transport';

const run = { signal: new AbortController().signal } as Run;

/** A check that takes a millisecond, counted in `checked`. */
function slowCheck(checked: { count: number }) {
	return () => {
		const until = Date.now() + 1;
		while (Date.now() < until) {
			// a millisecond of n8n's expression evaluation
		}
		checked.count++;
		return true;
	};
}

/**
 * The most items checked (by all runs together) between two turns that read sockets, once all
 * runs are checking and while none has ended: each starts in the turn the one before it gives up
 * (its first 50 ms were checked alone), and in the turn a run ends, one still checking may begin
 * a slice of its own after that run's last items (a clean-clone CI counted 61 for two).
 */
async function mostBetweenTurns(runs: number, items: number): Promise<number> {
	const checked = { count: 0 };
	let most = 0;
	let seen = 0;
	let ended = 0;
	let done = false;
	// Once per turn of the event loop, right after it read its sockets (the check phase).
	const everyTurn = () => {
		if (seen > 0 && ended === 0) most = Math.max(most, checked.count - seen);
		seen = checked.count;
		if (!done) setImmediate(everyTurn);
	};
	setImmediate(everyTurn);
	await Promise.all(Array.from({ length: runs }, async () => (await forEachItem(run, items, slowCheck(checked)), ended++)));
	done = true;
	return most;
}

it('one run checking gives the loop a turn every 50 ms of checks; two or three at once share those 50 ms (a Stop took 1.2-2.1 s with two or three)', async () => {
	expect(await mostBetweenTurns(1, 300)).toBeLessThanOrEqual(52);
	// Before: each run checked 50 ms in the same turn, 100 and 150 items.
	expect(await mostBetweenTurns(2, 300)).toBeLessThanOrEqual(56);
	expect(await mostBetweenTurns(3, 300)).toBeLessThanOrEqual(58);
}, 20_000);
