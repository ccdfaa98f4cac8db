import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { alsoSaysSent, classifyFailure, FAILURE_KINDS, readFailure, readFailureOfSuccess, saysDone, serviceError } from '../../nodes/shared/errors';
import type { ServiceApi } from '../../nodes/shared/transport/apis';

const node: INode = {
	id: '1',
	name: 'Messaging',
	type: 'n8n-nodes-messaging.messaging',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

describe('readFailure: the four error bodies of spec part 7', () => {
	it('direct send: the text after "Reason:"', () => {
		expect(readFailure({ message: 'Message sending failed | Reason: Insufficient credits' }, true)).toEqual({
			reason: 'Insufficient credits',
		});
	});

	it('direct send: a 200 whose message says sending failed is a failure', () => {
		expect(readFailure({ message: 'Message sending failed | Reason: Internal delivery error' }, false)).toEqual({
			reason: 'Internal delivery error',
		});
		expect(readFailure({ message: 'Message sent successfully' }, false)).toBeUndefined();
	});

	it("the service's words come as one clean line: no terminal escapes, control characters or direction overrides (log or editor injection)", () => {
		expect(readFailure({ message: 'Message sending failed | Reason: \u001b[31mNo credits\u001b[0m\r\n2026-11-25 INFO all sent\u202e' }, true)).toEqual({
			reason: 'No credits 2026-11-25 INFO all sent',
		});
		expect(readFailure({ error: { code: 'E\u0007', message: 'Bad\ttemplate\u0000' } }, true)).toEqual({ reason: 'Bad template', code: 'E' });
	});

	it('template send and list templates: {error: {code, message}}', () => {
		expect(readFailure({ error: { code: 'INVALID_VARIABLES', message: 'body2 is missing' } }, true)).toEqual({
			reason: 'body2 is missing',
			code: 'INVALID_VARIABLES',
		});
	});

	it('dashboard: {success: false, message, details}, also on a 200', () => {
		expect(readFailure({ success: false, message: 'Invalid request', details: 'to is required' }, false)).toEqual({
			reason: 'Invalid request: to is required',
		});
		expect(readFailure({ success: false, message: 'Unauthorized', details: 'Unauthorized' }, true)).toEqual({ reason: 'Unauthorized' });
		expect(readFailure({ success: false, details: 'Delivery failed' }, false)).toEqual({ reason: 'Delivery failed' });
		expect(readFailure({ success: true, message: 'Message sent', details: { messages: [] } }, false)).toBeUndefined();
	});

	it('sandbox: {error: <integer>, message}', () => {
		expect(readFailure({ error: 404, message: 'Plant not found' }, true)).toEqual({ reason: 'Plant not found', code: '404' });
		// The error as text and no message: that text is the reason, not also its code ("(code Insufficient credits)").
		expect(readFailure({ error: 'Insufficient credits' }, true)).toEqual({ reason: 'Insufficient credits' });
	});

	it('an error status with a body of another shape, or plain text', () => {
		expect(readFailure({ reason: 'x', info: { detail: 'y' } }, true)).toEqual({ reason: 'The service reported an error', unexplained: true });
		expect(readFailure('Bad Gateway', true)).toEqual({ reason: 'Bad Gateway' });
		expect(readFailure('', false)).toBeUndefined();
		expect(readFailure([{ id: 1 }], false)).toBeUndefined();
	});
});

describe('readFailure: the error bodies a gateway or framework in front of the service writes, on an error status', () => {
	it.each([
		[{ type: 'about:blank', title: 'Too Many Requests', status: 400, detail: 'Rate limit exceeded' }, { reason: 'Too Many Requests: Rate limit exceeded' }],
		[{ title: 'Bad Request' }, { reason: 'Bad Request' }],
		[{ detail: 'Insufficient credits' }, { reason: 'Insufficient credits' }],
		[{ errors: [{ code: 'RATE_LIMITED', message: 'Too many requests' }] }, { reason: 'Too many requests', code: 'RATE_LIMITED' }],
		[{ errors: [{ code: 404 }, { detail: 'Plant not found' }] }, { reason: 'Plant not found' }],
		[{ errors: ['Insufficient credits'] }, { reason: 'Insufficient credits' }],
		[{ errors: [{ code: 'RATE_LIMITED' }] }, { reason: 'The service reported an error', unexplained: true, code: 'RATE_LIMITED' }],
		[{ errors: [] }, { reason: 'The service reported an error', unexplained: true }],
		[{ error: 'invalid_token', error_description: 'The access token expired' }, { reason: 'The access token expired', code: 'invalid_token' }],
	])('%j -> %j', (body, failure) => {
		expect(readFailure(body, true)).toEqual(failure);
	});

	it('the service\'s own fields come first, and a 2xx of such a shape is no failure', () => {
		expect(readFailure({ message: 'Rate limit exceeded', title: 'Bad Request' }, true)).toEqual({ reason: 'Rate limit exceeded' });
		expect(readFailure({ details: 'to is required', errors: ['x'] }, true)).toEqual({ reason: 'to is required' });
		expect(readFailure({ title: 'Bad Request', errors: ['x'] }, false)).toBeUndefined();
	});

	it('a reason that is one code-like word is read as words', () => {
		expect(classifyFailure('too_many_requests', 400)).toBe('rateLimit');
		expect(classifyFailure('invalid_token', 400)).toBe('authentication');
		expect(classifyFailure('insufficientCredits', 400)).toBe('credits');
	});
});

const EVERY_API: ServiceApi[] = ['send', 'templateSend', 'templates', 'dashboard', 'alternative', 'sandbox'];

describe('readFailureOfSuccess: a 2xx body that says it failed, for every API', () => {
	// The contract: any of the four error bodies of spec part 7, or `success: false`, is a failure
	// whatever the status; a service rarely keeps each API to its own error body.
	const FAILED: Array<[string, unknown, { reason: string; code?: string }]> = [
		['success: false', { success: false, message: 'Insufficient credits' }, { reason: 'Insufficient credits' }],
		['success: "false"', { success: 'false', message: 'Insufficient credits' }, { reason: 'Insufficient credits' }],
		['success: false with details', { success: false, message: 'Payment required', details: 'Insufficient credits' }, { reason: 'Payment required: Insufficient credits' }],
		['an error object', { message: 'Accepted', error: { code: 'NO_CREDITS', message: 'Insufficient credits' } }, { reason: 'Insufficient credits', code: 'NO_CREDITS' }],
		['error: 1', { error: 1, message: 'Insufficient credits' }, { reason: 'Insufficient credits', code: '1' }],
		['error: "1"', { error: '1', message: 'Insufficient credits' }, { reason: 'Insufficient credits', code: '1' }],
		['error: "404"', { error: '404', message: 'Plant not found' }, { reason: 'Plant not found', code: '404' }],
		['error: true', { error: true, message: 'Insufficient credits' }, { reason: 'Insufficient credits' }],
		['error: a text and no message', { error: 'Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the direct-send failure text', { message: 'Message sending failed | Reason: Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the failure text with "." before Reason', { message: 'Message sending failed. Reason: Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the failure text with ":" and lower case', { message: 'message sending failed: reason: Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the failure text with "-" and upper case', { message: 'MESSAGE SENDING FAILED - REASON: Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the failure text without a reason', { message: 'Message sending failed' }, { reason: 'Message sending failed' }],
		['the failure text without "Reason:"', { message: 'Message sending failed: Insufficient credits' }, { reason: 'Insufficient credits' }],
		['the failure text in other words', { message: 'Message sending failed because of insufficient credits' }, { reason: 'Message sending failed because of insufficient credits' }],
	];

	for (const api of EVERY_API) {
		it.each(FAILED)(`${api}: %s is a failure carrying the service's words`, (_name, body, failure) => {
			expect(readFailureOfSuccess(api, body)).toEqual(failure);
		});
	}

	// The direct send's own form, further on in its result text (its success and failure are both `{message}`).
	it.each([
		['the failure text after a prefix', { message: 'Error: Message sending failed | Reason: Insufficient credits' }],
		['"not sent" with a reason', { message: 'Message not sent | Reason: Insufficient credits' }],
		["\"wasn't sent\" with a reason", { message: "Message wasn't sent | Reason: Insufficient credits" }],
	])('send: %s is a failure for that reason', (_name, body) => {
		expect(readFailureOfSuccess('send', body)).toEqual({ reason: 'Insufficient credits' });
	});

	const SUCCEEDED: Array<[string, unknown]> = [
		['error: 0', { message: 'Message sent successfully', error: 0 }],
		['error: "0"', { message: 'Message sent successfully', error: '0' }],
		['error: ""', { message: 'Message sent successfully', error: '' }],
		['error: null', { message: 'Message sent successfully', error: null }],
		['error: false', { message: 'Message sent successfully', error: false }],
		['error: "false"', { message: 'Message sent successfully', error: 'false' }],
		['a success text that mentions credits', { message: 'Message sent successfully. Credits left: 12' }],
		['a success text that mentions a reason', { message: 'Message sent successfully | Reason: scheduled for 9:00' }],
		['success: true', { success: true, message: 'Message sent', details: { messages: [] } }],
		['a list', [{ name: 'Monstera' }]],
		['no body', undefined],
	];

	for (const api of EVERY_API) {
		it.each(SUCCEEDED)(`${api}: %s is not a failure`, (_name, body) => {
			expect(readFailureOfSuccess(api, body)).toBeUndefined();
		});
	}

	it.each(['alternative', 'sandbox'] as const)('%s (answer undocumented or empty): status "error" or "failed" is a failure', (api) => {
		expect(readFailureOfSuccess(api, { status: 'error', message: 'Plant not found' })).toEqual({ reason: 'Plant not found' });
		expect(readFailureOfSuccess(api, { status: 'failed' })).toEqual({ reason: 'The service answered status "failed"' });
		expect(readFailureOfSuccess(api, { status: 'sent' })).toBeUndefined();
	});

	it('a failure without words of the service is marked as such: the node adds who answered and how', () => {
		expect(readFailureOfSuccess('send', { error: 1 })).toEqual({ reason: 'The service reported an error', code: '1', unexplained: true });
		expect(readFailureOfSuccess('dashboard', { success: false })).toEqual({ reason: 'The service reported a failure', unexplained: true });
		expect(readFailure([], true)).toEqual({ reason: 'The service answered with an error and no explanation', unexplained: true });
		expect(readFailureOfSuccess('send', { error: 1, message: 'Insufficient credits' })).not.toHaveProperty('unexplained');
	});

	it('direct send: a stray status is not read (its answer is documented as {message})', () => {
		expect(readFailureOfSuccess('send', { message: 'Message sent successfully', status: 'error' })).toBeUndefined();
	});
});

describe('saysDone: whether a 2xx answer says the request was carried out', () => {
	it.each([
		['send', { message: 'Message sent successfully' }, true],
		['send', { message: 'Sent on retry; first message sending failed' }, true],
		['send', { message: 'Message queued' }, true],
		['send', { message: 'Message not sent' }, false],
		['send', { message: 'Message was unsuccessful' }, false],
		['send', { message: 'Message sending failed | Reason: sent too often' }, false],
		['send', { message: 'Insufficient credits' }, false],
		['send', { message: 'Accepted' }, false],
		['send', { success: true }, true],
		['send', { message: "Message couldn't be sent" }, false],
		['send', { message: 'Message cannot be sent' }, false],
		['send', { message: 'Message failed to be sent' }, false],
		['send', { message: 'Unable to send' }, false],
		['send', { message: "Message won't be delivered" }, false],
		// Outside the service's own form the reason's words count too: beside a failure, this says both.
		['send', { message: 'Message not sent | Reason: too many messages sent' }, true],
		['send', { message: 'Message sending failed | Reason: too many messages sent' }, false],
		['send', { message: 'Error: Message sending failed | Reason: too many messages sent' }, false],
		['send', { message: 'Message couldn’t be sent' }, false],
		['send', { message: 'Message has not yet been sent' }, false],
		['send', { message: 'Message sent successfully. You cannot send more messages to this number today' }, true],
		['send', { message: 'Message queued; it will not be sent before 09:00' }, true],
		['send', { message: 'Message sent successfully | Reason: scheduled' }, true],
		['dashboard', { success: true, message: 'Queued' }, true],
		['dashboard', { success: 'true' }, true],
		['dashboard', { message: 'Message sent' }, false],
	] as Array<[ServiceApi, unknown, boolean]>)('%s %j: %s', (api, body, done) => {
		expect(saysDone(api, body)).toBe(done);
	});
});

describe('a direct send\'s 2xx result text: sent, failed, or says both (may have been delivered, not sent again)', () => {
	// As judge() in attempt.ts reads a 2xx direct send: no failure is sent; a failure beside a claim that it went says both.
	const judged = (body: Record<string, unknown>) => {
		if (!readFailureOfSuccess('send', body)) return 'sent';
		return alsoSaysSent('send', body, 200) ? 'says both' : 'failed';
	};
	it.each([
		[{ message: 'Message sent successfully' }, 'sent'],
		[{ message: 'Message sent successfully | Reason: scheduled for 9:00' }, 'sent'],
		[{ message: 'Message sending failed | Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Error: Message sending failed | Reason: Insufficient credits for messages sent today' }, 'failed'],
		[{ message: 'Message not sent. Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Message could not be sent - Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Message couldn’t be sent | Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Message wasn’t delivered | Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Message has not yet been sent | Reason: Insufficient credits' }, 'failed'],
		[{ message: 'Message couldn’t be sent', error: 'Insufficient credits' }, 'failed'],
		// Words that cannot be weighed: neither a success nor a plain refusal.
		[{ message: 'No message sent | Reason: Insufficient credits' }, 'says both'],
		[{ message: 'Message was neither sent nor delivered | Reason: Insufficient credits' }, 'says both'],
		[{ message: 'Sent: 0, Failed: 1 | Reason: Invalid phone number' }, 'says both'],
		[{ message: 'Success: false | Reason: Insufficient credits' }, 'says both'],
		[{ message: 'Message sent failed | Reason: Insufficient credits' }, 'says both'],
		[{ message: 'Sent on retry; first message sending failed' }, 'says both'],
		[{ message: 'Message accepted | Reason: queued for delivery' }, 'says both'],
		// A count of none sent: no success (it was reported sent, and the message lost).
		[{ message: '0 messages sent' }, 'says both'],
		[{ message: 'No messages were sent' }, 'says both'],
		[{ message: 'Nothing sent' }, 'says both'],
		[{ message: 'Sent: 0' }, 'says both'],
		[{ message: 'Delivered: false' }, 'says both'],
		[{ message: 'Nothing to send' }, 'failed'],
		[{ message: 'Message sent successfully. 0 credits left' }, 'sent'],
		[{ message: 'Sent: 1, Failed: 0' }, 'sent'],
		[{ message: 'Message sent; 0 errors' }, 'sent'],
		[{ message: 'Sent 0 messages' }, 'says both'],
		[{ message: 'Successfully sent 0 of 1 messages' }, 'says both'],
		[{ message: '0/1 messages sent' }, 'says both'],
		// None of something else beside a claim that it went (diff review: read as "says both").
		[{ message: 'Message sent successfully (sent: 1, delivered: 0)' }, 'sent'],
		[{ message: 'Sent: 1, Queued: 0' }, 'sent'],
		[{ message: '1 message sent, 0 queued for retry' }, 'sent'],
		[{ message: 'Message sent to 1 recipient (0 delivered so far)' }, 'sent'],
		[{ message: 'Message sent successfully. No SMS fallback sent.' }, 'sent'],
		[{ message: 'OK | Reason: message sent' }, 'says both'],
		// A denial of something else beside a claim that it went.
		[{ message: 'Message sent successfully. You cannot send more messages to this number today', error: 'Message limit for this number reached' }, 'says both'],
		[{ message: 'Message sent. Unable to deliver the attachment', error: 'Attachment problem' }, 'says both'],
		[{ message: 'Message sent, not delivered yet', error: 'Recipient offline' }, 'says both'],
		[{ message: 'Message queued; it will not be sent before 09:00 (quiet hours)', error: 'Quiet hours' }, 'says both'],
	] as Array<[Record<string, unknown>, string]>)('%j: %s', (body, verdict) => {
		expect(judged(body)).toBe(verdict);
	});

	it('a 64 KB text of denials is read in one pass (each word looks back a few words only)', () => {
		// Counted, not timed: the look-back is bounded, so the work grows with the text, not its square.
		const message = `Message ${'not sent '.repeat(8_000)}`;
		expect(judged({ message, error: 1 })).toBe('failed');
	});
});

describe('alsoSaysSent: a failure whose answer also says the message went (says both)', () => {
	it.each([
		['dashboard', 200, { success: false, message: 'Message sent successfully', details: 'delivered to handset' }, true],
		['dashboard', 200, { success: false, message: 'Unauthorized', details: 'Invalid API key' }, false],
		['dashboard', 200, { success: false, message: 'Message not sent', details: 'no credits' }, false],
		['dashboard', 429, { success: false, message: 'Too many messages sent', details: 'slow down' }, false],
		['template', 200, { success: false, messaging_response_info: { messages: [{ id: 'wamid.9', message_status: 'accepted' }] } }, true],
		['template', 400, { error: { code: 'E1', message: 'Template not found' } }, false],
		['template', 400, { success: true, messaging_response_info: {} }, true],
		['alternative', 200, { ok: false, id: 'm77', status: 'sent' }, true],
		['alternative', 422, { ok: false, error: 'invalid number', status: 'failed' }, false],
		['send', 400, { message: 'Message sent successfully' }, true],
		['send', 400, { message: 'Message sending failed | Reason: Invalid phone number' }, false],
		['send', 429, { message: 'Too many messages sent' }, false],
		['send', 200, { message: 'Message queued', success: false }, true],
		['send', 200, { message: 'Message not sent', error: 1 }, false],
		// Refusals whose explanation mentions sending (diff review: each was read as "says both", so a
		// 401 no longer stopped the run and a 429 was not waited out).
		['send', 401, { message: 'Unauthorized: messages can only be sent with a valid API token' }, false],
		['send', 400, { message: 'Invalid phone number: messages can only be sent to E.164 numbers' }, false],
		['send', 402, { message: 'Insufficient credits to keep messages delivered. Top up.' }, false],
		['send', 403, { message: 'Subscription expired: messages are sent only on active plans' }, false],
		['send', 429, { message: 'You have sent 30 messages in the last 60 seconds. Slow down.' }, false],
		['dashboard', 429, { success: false, message: 'Slow down: 60 messages sent in the last minute', details: 'Try later' }, false],
		['dashboard', 401, { success: false, message: 'Unauthorized: messages are sent only for verified accounts', details: 'Invalid API key' }, false],
		['send', 403, { message: 'Sandbox: messages are delivered only to verified numbers' }, false],
		['alternative', 400, { messages: [{ id: 'x1', status: 'rejected', error: 'Invalid number' }] }, false],
		['template', 200, { success: false, messaging_response_info: { messages: [{ id: 'wamid.9', message_status: 'failed' }] } }, false],
		// A serializer's "no error" beside a receipt, and a claim that names a phone, an attachment or credits (second diff review).
		['template', 200, { success: false, messaging_response_info: { messages: [{ id: 'wamid.1', error: null }] } }, true],
		['alternative', 400, { messages: [{ id: 'x1', status: 'sent', error: 0 }] }, true],
		['send', 400, { message: 'Message sent successfully to phone +14155550123' }, true],
		['send', 400, { message: 'Message with attachment sent successfully' }, true],
		['send', 400, { message: 'Message sent successfully. Credits remaining: 41' }, true],
		['send', 402, { message: 'Messages are sent only after payment' }, false],
		// A rate refusal that says this very message went: sent again, it went 7 times (diff review).
		['dashboard', 200, { success: false, message: 'Message sent successfully. Rate limit: 60 per minute' }, true],
		['send', 400, { message: 'Message sent. Per minute limit now reached.' }, true],
		// In a 429 too: the status says refused, the words that this message went; waited out and
		// sent again it would go twice, where "may have been delivered" tells the user.
		['send', 429, { message: 'Message sent. Per minute limit now reached.' }, true],
		['send', 429, { message: 'Message sent successfully' }, true],
		['send', 400, { message: 'Your message was delivered; rate limit exceeded for the next hour' }, true],
		// The spec's own, and counts of other messages: waited out and sent again.
		['send', 400, { message: 'Rate limit exceeded (messages per minute or per hour)' }, false],
		['send', 400, { message: 'Rate limit exceeded: 30 messages sent in the last minute' }, false],
		['send', 400, { message: 'Rate limit exceeded. Message was not sent' }, false],
		['send', 400, { message: 'Rate limit exceeded: no message sent' }, false],
		['send', 400, { message: 'Message limit for this number reached. 50 messages sent today.' }, false],
		// Other messages than this one, in a rate refusal (diff review: each read as "says both", so not waited out).
		['send', 400, { message: 'Too many requests: wait a second before the next message is sent' }, false],
		['send', 400, { message: 'Rate limit exceeded: the last message was sent less than 1 second ago' }, false],
		['dashboard', 200, { success: false, message: 'Rate limit reached: no further message sent until the next minute' }, false],
		['send', 400, { message: 'Rate limit exceeded: no new message sent' }, false],
		['send', 400, { message: 'Message sent rate exceeded: 10 per minute' }, false],
		['send', 400, { message: 'Rate limit exceeded: message sent to this number too often' }, false],
	] as Array<[ServiceApi, number, unknown, boolean]>)('%s %s %j: %s', (api, status, body, both) => {
		expect(alsoSaysSent(api, body, status)).toBe(both);
	});
});

describe('a direct send\'s 2xx text that says the message went and names a failure says both (diff review: reported as sent)', () => {
	it.each(['Message sent failed: insufficient credits', 'Sent: false', 'Message sent unsuccessfully', 'Message queued error: invalid number', 'SMS sent fail'])('%s', (message) => {
		expect(readFailureOfSuccess('send', { message })).toBeDefined();
		expect(alsoSaysSent('send', { message }, 200)).toBe(true);
	});
});

describe('readFailureOfSuccess: a direct send\'s 2xx text that never says the message went', () => {
	it.each([
		[{ message: 'Insufficient credits' }, 'Insufficient credits'],
		[{ message: 'Invalid phone number' }, 'Invalid phone number'],
		[{ message: 'Message not sent' }, 'Message not sent'],
		[{ message: 'Unable to send' }, 'Unable to send'],
		[{ message: 'Something went wrong' }, 'Something went wrong'],
		[{ message: 'OK' }, undefined],
		[{ message: 'Accepted' }, undefined],
		// A bare "no" or "not" names no failure (diff review: these were plain failures, sent again by Retry On Fail).
		[{ message: 'Message accepted, no errors' }, undefined],
		[{ message: 'Accepted. Do not reply to this number.' }, undefined],
		[{ message: 'OK - no issues' }, undefined],
		[{ message: 'Message accepted (no charge)' }, undefined],
		[{ message: 'Recipient has no active account' }, 'Recipient has no active account'],
		// A success that counts the failures it did not have.
		[{ message: 'Sent: 1, Failed: 0' }, undefined],
		[{ message: '1 message sent, 0 failed' }, undefined],
		[{ message: 'Message sent without error' }, undefined],
		[{ message: 'Message sent; errors: none' }, undefined],
		[{ message: 'Delivered error-free' }, undefined],
		[{ message: 'Failed: 1' }, 'Failed: 1'],
		[{ message: 'Message sent. Failed: 0' }, undefined],
		[{ message: 'Message queued. Invalid numbers skipped: 0' }, undefined],
		[{ message: 'Message delivered. Error: null' }, undefined],
		// Refusals with "not" or "no" and no word that the message went (second diff review: these read as sent).
		[{ message: 'Attachment URL is not public' }, 'Attachment URL is not public'],
		[{ message: 'File size or type not accepted' }, 'File size or type not accepted'],
		[{ message: "Recipient doesn't have an active account" }, "Recipient doesn't have an active account"],
		[{ message: 'No credits left' }, 'No credits left'],
		[{ message: 'Message limit for this number reached' }, 'Message limit for this number reached'],
		[{ message: 'Message sent successfully. You cannot send more messages to this number today' }, undefined],
	])('%j: %s', (body, reason) => {
		expect(readFailureOfSuccess('send', body)?.reason).toBe(reason);
	});
});

describe('classifyFailure: the ten direct-send conditions', () => {
	it.each([
		['Invalid phone number, it must be in E.164 format', 'invalidPhone'],
		['Message limit for this number reached', 'numberLimit'],
		['Attachment URL is not public or not accessible', 'attachment'],
		['Authentication failed: invalid API token', 'authentication'],
		['Insufficient credits, account balance too low', 'credits'],
		['Subscription expired', 'subscription'],
		['Rate limit exceeded (messages per minute)', 'rateLimit'],
		['Unique number limit reached', 'uniqueNumbers'],
		['File size or type not accepted', 'fileType'],
		['Recipient has no active account on the messaging platform', 'notOnPlatform'],
	])('%s -> %s', (reason, kind) => {
		expect(classifyFailure(reason)).toBe(kind);
		expect(FAILURE_KINDS[kind as keyof typeof FAILURE_KINDS].hint).not.toBe('');
	});

	it.each([
		['Message limit for this number reached (50 per hour)', 'numberLimit'],
		['Rate limit exceeded for this number', 'numberLimit'],
		['Per-number limit reached: 50 messages per hour', 'numberLimit'],
		['Recipient limit reached (20 per hour)', 'numberLimit'],
		['Message limit reached', 'numberLimit'],
		['Message limit reached (100 per hour)', 'rateLimit'],
		['Too many messages per minute', 'rateLimit'],
		['Request throttled, slow down', 'rateLimit'],
		['Unique recipient limit reached', 'uniqueNumbers'],
	])('one recipient\'s limit is not the account\'s rate, whatever period it names: %s -> %s', (reason, kind) => {
		expect(classifyFailure(reason)).toBe(kind);
	});

	it.each([
		['Recipient does not have an active account on the messaging platform', 'notOnPlatform'],
		["Recipient doesn't have an account on the platform", 'notOnPlatform'],
		['This number is not a registered user', 'notOnPlatform'],
		['The recipient is not an active messaging user', 'notOnPlatform'],
		['Not an authorized user', 'authentication'],
		['API key not registered', 'authentication'],
		['Token does not have an active account', 'authentication'],
	])('a recipient without an account, never an auth text: %s -> %s', (reason, kind) => {
		expect(classifyFailure(reason)).toBe(kind);
	});

	it('a recognised reason wins over the status: a 401/403 or 429 whose words name another condition', () => {
		expect(classifyFailure('Recipient does not have an active account on the messaging platform', 403)).toBe('notOnPlatform');
		expect(classifyFailure('Invalid phone number (not E.164)', 401)).toBe('invalidPhone');
		expect(classifyFailure('Message limit for this number reached', 429)).toBe('numberLimit');
		expect(classifyFailure('Insufficient credits', 429)).toBe('credits');
		expect(classifyFailure('Subscription expired', 429)).toBe('subscription');
		expect(classifyFailure('Unique number limit reached', 429)).toBe('uniqueNumbers');
		expect(classifyFailure('Authentication failed', 429)).toBe('authentication');
		// Words that name nothing else, or the rate itself: the status says it.
		expect(classifyFailure('Internal delivery error', 429)).toBe('rateLimit');
		expect(classifyFailure('Too many requests', 429)).toBe('rateLimit');
	});

	it.each([
		['RATE_LIMITED', 'rateLimit'],
		['rate-limit-exceeded', 'rateLimit'],
		['tooManyRequests', 'rateLimit'],
		['TOO_MANY_MESSAGES', 'rateLimit'],
		['Throttling', 'rateLimit'],
		['ThrottlingException', 'rateLimit'],
		['INSUFFICIENT_CREDITS', 'credits'],
		['SUBSCRIPTION_EXPIRED', 'subscription'],
		['INVALID_TOKEN', 'authentication'],
		['invalidPhone', 'invalidPhone'],
		['E_REFUSED', 'other'],
		['429', 'other'],
		// An `error` text of words beside a message is read as the code (outside review: "Request
		// failed", error "Insufficient credits" called the service for every item).
		['Insufficient credits', 'credits'],
		['Rate limit exceeded', 'rateLimit'],
	] as const)('an error code read as words when the reason names nothing: %s -> %s', (code, kind) => {
		expect(classifyFailure('Request refused', 400, code)).toBe(kind);
		expect(classifyFailure('', 400, code)).toBe(kind);
	});

	it('the reason\'s words win over the code, and the code over the status', () => {
		expect(classifyFailure('Invalid phone number', 400, 'RATE_LIMITED')).toBe('invalidPhone');
		expect(classifyFailure('Request refused', 429, 'INSUFFICIENT_CREDITS')).toBe('credits');
		expect(classifyFailure('Request refused', 403, 'RATE_LIMITED')).toBe('rateLimit');
		expect(classifyFailure('Request refused', 403, 'E_REFUSED')).toBe('authentication');
		// 402 Payment Required: the account's balance, whatever words that name nothing say.
		expect(classifyFailure('Payment required', 402)).toBe('credits');
		expect(classifyFailure('Invalid phone number', 402)).toBe('invalidPhone');
	});

	it('falls back on the status code', () => {
		expect(classifyFailure('nope', 401)).toBe('authentication');
		expect(classifyFailure('nope', 429)).toBe('rateLimit');
		expect(classifyFailure('nope', 400)).toBe('other');
	});

	it('stops the run only for conditions no later item can get past', () => {
		const stopping = Object.entries(FAILURE_KINDS)
			.filter(([, info]) => info.stopsRun)
			.map(([kind]) => kind)
			.sort();
		expect(stopping).toEqual(['authentication', 'credits', 'subscription']);
	});
});

describe('serviceError', () => {
	it('is a NodeApiError with the reason as message, the hint as description, the HTTP code and the item', () => {
		const error = serviceError(node, {
			status: 403,
			failure: { reason: 'Insufficient credits, account balance too low' },
			itemIndex: 3,
			body: { message: 'Message sending failed | Reason: Insufficient credits, account balance too low' },
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Insufficient credits, account balance too low');
		expect(error.description).toMatch(/Top up credits/);
		expect(error.httpCode).toBe('403');
		expect(error.context.itemIndex).toBe(3);
	});

	it('keeps the error code and details of the service', () => {
		const error = serviceError(node, {
			status: 400,
			failure: { reason: 'Invalid request', details: 'to is required', code: 'E1' },
			itemIndex: 0,
		});
		expect(error.message).toBe('Invalid request (code E1)');
		expect(error.description).toContain('Details: to is required.');
	});
});
