/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n; node:stream and node:events build and watch bodies (README: Lint) */
/**
 * readBody (nodes/shared/transport/answer.ts) over the kind of stream n8n's request helper
 * hands over: axios wraps the response in Readable.from(an async generator), whose destroy()
 * does not end a read parked on the socket.
 */
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { readBody } from '../../nodes/shared/transport/answer';

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
