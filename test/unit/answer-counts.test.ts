/**
 * A direct send's counts of none sent, and a rate refusal that says this very message went: from
 * a second diff review of those rules; each case failed before its fix.
 */
import { describe, expect, it } from 'vitest';

import { alsoSaysSent, readFailureOfSuccess } from '../../nodes/shared/errors';
import type { ServiceApi } from '../../nodes/shared/transport/apis';

/** As in errors.test.ts: a direct send's 200 is sent, failed, or says both (may have been delivered, not sent again). */
const judged = (body: Record<string, unknown>) => {
	if (!readFailureOfSuccess('send', body)) return 'sent';
	return alsoSaysSent('send', body, 200) ? 'says both' : 'failed';
};

describe("a direct send's 200 that counts none sent beside a success word about the request, not the message", () => {
	// With the none-sent count cut out, what was left ("successfully", "Success") counted as a claim
	// that the message went: each was reported as sent, and the message lost.
	it.each([
		'Request processed successfully. 0 messages sent',
		'0 messages sent successfully',
		'0 of 1 messages sent successfully',
		'Successfully sent: 0',
		'Success: true, sent: 0',
		'Request successful, no message sent',
		'API call successful. 0 SMS sent',
	])('%s: not reported as sent', (message) => {
		expect(judged({ message })).not.toBe('sent');
	});
});

describe('none-sent counts the rule does not cover (reported as sent, the message lost)', () => {
	// The commit names 'Sent 0 messages' and 'Successfully sent 0 of 1 messages'; the same count with
	// the success word after it, with "message(s)", or with the count after a colon still reads as sent.
	it.each(['Sent 0 messages successfully', 'Sent 0/1 successfully', '0 message(s) sent', 'Messages sent successfully: 0', 'SMS sent successfully: 0'])(
		'%s: not reported as sent',
		(message) => {
			expect(judged({ message })).not.toBe('sent');
		},
	);
});

describe('a rate refusal that says this very message went, worded other than at the start of a sentence (it was waited out and sent again)', () => {
	// With "message sent" counted only right after the start or a '.', '!', ';' or '|' (with "your" or
	// "the"), each was waited out and the message sent a second time.
	it.each([
		['send', 400, { message: 'WhatsApp message sent. Per minute limit now reached.' }],
		['send', 400, { message: 'Text message sent. Per minute limit now reached.' }],
		['send', 400, { message: 'Your WhatsApp message has been sent. Rate limit: 60 per minute' }],
		['send', 400, { message: 'This message was sent; per minute limit now reached' }],
		['send', 400, { message: 'Per minute limit now reached: message sent' }],
		['send', 400, { message: 'Per minute limit now reached\nMessage sent' }],
		['dashboard', 200, { success: false, message: 'Success - message sent. Rate limit: 60 per minute' }],
		['dashboard', 200, { success: false, message: 'OK, message sent. Rate limit: 60 per minute' }],
	] as Array<[ServiceApi, number, Record<string, unknown>]>)('%s %s %j: says both', (api, status, body) => {
		expect(alsoSaysSent(api, body, status)).toBe(true);
	});
});
