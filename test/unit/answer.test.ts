/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n; node:stream and node:events build and watch bodies (README: Lint) */
/**
 * readBody (nodes/shared/transport/answer.ts) over the kind of stream n8n's request helper
 * hands over: axios wraps the response in Readable.from(an async generator), whose destroy()
 * does not end a read parked on the socket.
 */
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Deadlines, readBody } from '../../nodes/shared/transport/answer';

describe('readBody', () => {
	it('a body that sends a few bytes and then nothing ends when the signal aborts, its listener removed', async () => {
		let silence!: () => void;
		const silent = new Promise<void>((resolve) => (silence = resolve));
		async function* headersThenSilence() {
			yield Buffer.from('{"mess');
			// A socket that never sends another byte, nor closes (released after the test).
			await silent;
		}
		const body = Readable.from(headersThenSilence(), { objectMode: false });
		const deadline = AbortSignal.timeout(50);
		const read = await readBody(body, 1024, deadline);
		expect(read).toEqual({ type: 'ended', reason: deadline.reason });
		expect(getEventListeners(deadline, 'abort')).toHaveLength(0);
		silence();
	});

	it('a body of 2,000 chunks is read whole with one abort listener on the signal throughout', async () => {
		const stop = new AbortController();
		let mostListeners = 0;
		async function* chunks() {
			for (let index = 0; index < 2_000; index++) {
				mostListeners = Math.max(mostListeners, getEventListeners(stop.signal, 'abort').length);
				yield Buffer.from('x');
			}
		}
		const read = await readBody(Readable.from(chunks(), { objectMode: false }), 4_096, stop.signal);
		expect(read).toEqual({ type: 'read', text: 'x'.repeat(2_000) });
		expect(mostListeners).toBe(1);
		expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
	});

	it('a body past maxBytes is cut off as too large', async () => {
		const read = await readBody(Readable.from([Buffer.alloc(600), Buffer.alloc(600)], { objectMode: false }), 1_000, new AbortController().signal);
		expect(read).toEqual({ type: 'tooLarge', maxBytes: 1_000 });
	});
});

describe('Deadlines: one timer for the requests of a run', () => {
	beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
	afterEach(() => vi.useRealTimers());

	it('each deadline ends at its own time, as expired; a cleared one never ends; no timer is left once none is pending', async () => {
		const deadlines = new Deadlines(new AbortController().signal);
		const first = deadlines.start(100);
		const cleared = deadlines.start(100);
		await vi.advanceTimersByTimeAsync(50);
		const later = deadlines.start(100);
		const shorter = deadlines.start(20);
		await vi.advanceTimersByTimeAsync(10);
		cleared.clear();
		await vi.advanceTimersByTimeAsync(9);
		expect([first, cleared, later, shorter].map((deadline) => deadline.signal.aborted)).toEqual([false, false, false, false]);
		await vi.advanceTimersByTimeAsync(1);
		expect([first, cleared, later, shorter].map((deadline) => deadline.signal.aborted)).toEqual([false, false, false, true]);
		await vi.advanceTimersByTimeAsync(29);
		expect(first.signal.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect([first, cleared, later].map((deadline) => deadline.signal.aborted)).toEqual([true, false, false]);
		expect(first.signal.reason).toBe(shorter.signal.reason);
		expect([first.expired, cleared.expired, shorter.expired]).toEqual([true, false, true]);
		await vi.advanceTimersByTimeAsync(49);
		expect(later.signal.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect([later.signal.aborted, later.expired, cleared.signal.aborted]).toEqual([true, true, false]);
		expect(vi.getTimerCount()).toBe(0);

		const again = deadlines.start(100);
		again.clear();
		expect(vi.getTimerCount()).toBe(0);
		await vi.advanceTimersByTimeAsync(200);
		expect(again.signal.aborted).toBe(false);
	});

	it('the run abandoning its requests ends every pending deadline with its reason, not as expired, and one started after at once', async () => {
		const abandon = new AbortController();
		const deadlines = new Deadlines(abandon.signal);
		const pending = [deadlines.start(100), deadlines.start(200)];
		const answered = deadlines.start(300);
		answered.clear();
		const stopped = new Error('stopped');
		abandon.abort(stopped);
		expect(pending.map((deadline) => [deadline.signal.reason, deadline.expired])).toEqual([
			[stopped, false],
			[stopped, false],
		]);
		expect(answered.signal.aborted).toBe(false);
		expect(deadlines.start(100).signal.reason).toBe(stopped);
		await vi.advanceTimersByTimeAsync(0);
		expect(vi.getTimerCount()).toBe(0);
	});
});
