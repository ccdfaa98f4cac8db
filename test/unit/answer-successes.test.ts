/**
 * Direct-send 200 texts that are plain successes, from a fourth diff review; each failed before
 * its fix. Words added to the failure words (undeliverable, discarded, opted out, unsubscribed,
 * queue full) were taken for a failure wherever they stood: with no word of sending ("Accepted for
 * delivery ...") the item was reported failed, and a re-run of the failed items sent it twice;
 * with one ("1 sent, 0 undeliverable") a sent item was reported as may have been delivered. They
 * are no failure words now. "0 sent so far, 1 pending" beside a message taken is a success, as "0
 * delivered, 1 pending" is.
 */
import { describe, expect, it } from 'vitest';

import { alsoSaysSent, readFailureOfSuccess } from '../../nodes/shared/errors';

const verdict = (message: string) => {
	const body = { message };
	const failure = readFailureOfSuccess('send', body);
	return failure === undefined ? 'sent' : alsoSaysSent('send', body, 200) ? 'may have been delivered' : 'failed';
};

describe('a 200 that accepts the message and only mentions what happens to undeliverable, discarded or opted-out ones is a success', () => {
	it.each([
		// Before the fix: failed (not sent, so re-run and sent twice); before this session: sent.
		'Accepted for delivery. Undeliverable messages are refunded automatically.',
		'Message accepted; you will be notified if it is undeliverable',
		// Before the fix: may have been delivered; before this session: sent.
		'1 sent, 0 undeliverable',
		'1 queued, 0 discarded',
		'Message sent. 0 recipients opted out',
		'Message sent. Reply STOP to be unsubscribed.',
		'Message queued. Undeliverable messages are not charged.',
	])('%j is sent', (message) => {
		expect(verdict(message)).toBe('sent');
	});
});

describe('a fresh send that counts none sent yet beside its acceptance is a success (as "0 delivered, 1 pending" is)', () => {
	it.each(['Message accepted, 0 sent so far, 1 pending', 'Accepted: 1, Sent: 0 (pending)'])('%j is sent', (message) => {
		expect(verdict(message)).toBe('sent');
	});
});
