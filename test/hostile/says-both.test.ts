/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a test token (README: Lint) */
/**
 * Answers that say both that the message went and that it did not, and refusals whose page is too
 * large to read: the message must be neither reported as sent nor sent again when it may have
 * gone, and a refusal's status must still speak. Found by an outside review (raw answers on the
 * wire); each failed before the fix.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { runNode } from '../harness';
import { mapperValue } from '../nodes/setup';
import { credentialsAt, useRawServers } from './servers';

const TOKEN = 'Says-Both-Token-0123456789';
const TEMPLATE_ID = '11111111-1111-4111-8111-111111111111';
const MAY = /may have been delivered/i;
const serve = useRawServers();

const OPERATIONS = {
	send: { resource: 'message', operation: 'send', phone: '+14155550100', text: 'hello' },
	sendTemplate: { resource: 'message', operation: 'sendTemplate', phoneNumber: '+14155550100', template: { __rl: true, mode: 'id', value: TEMPLATE_ID }, variables: mapperValue({ body1: 'x' }) },
	sendDashboard: { resource: 'message', operation: 'sendDashboard', to: '+14155550100', text: 'hello' },
	sendAlternative: { resource: 'message', operation: 'sendAlternative', to: '+14155550100', message: 'hello' },
} satisfies Record<string, IDataObject>;
type Operation = keyof typeof OPERATIONS;

function answer(status: string, body: unknown, headers: Record<string, string> = {}): string {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const head = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers };
	return `HTTP/1.1 ${status}\r\n${Object.entries(head).map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${text}`;
}

/** Every POST gets `reply`; Send Template's best-effort list read gets nothing it can use. */
const answering = async (reply: (post: number) => string) => {
	let posts = 0;
	return await serve((request) => (request.method === 'POST' ? reply(posts++) : answer('404 Not Found', { error: { code: '404', message: 'Not found' } })));
};
const postsTo = (seen: Array<{ method: string }>) => seen.filter((request) => request.method === 'POST').length;

async function runOnce(url: string, operation: Operation, { items = 1, options = {} as IDataObject } = {}) {
	return await runOn(
		{ credentials: credentialsAt(url, TOKEN) },
		{ parameters: { ...OPERATIONS[operation], options }, items: Array.from({ length: items }, () => ({})), continueOnFail: true },
	);
}

/** n8n's Retry On Fail, three tries: a message that may have gone must not be sent again by it either. */
async function withRetryOnFail(url: string, operation: Operation) {
	return await runNode({
		node: { type: 'messaging', parameters: { ...OPERATIONS[operation], options: { maxWaitSeconds: 2 } }, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		items: [{}],
		credentials: credentialsAt(url, TOKEN),
	});
}

const TEMPLATE_SENT = { success: true, messaging_response_info: { contacts: [{ input: '+14155550100', wa_id: '14155550100' }], messages: [{ id: 'wamid.1', message_status: 'accepted' }], messaging_product: 'whatsapp' } };
const DASHBOARD_SENT = { success: true, message: 'Message sent', details: { messages: [{ id: 'm1', message_status: 'sent' }] } };

describe('a refusal status around the endpoint\'s whole success answer says both: may have been delivered, never sent again', () => {
	it.each([
		['sendTemplate', '400 Bad Request', TEMPLATE_SENT],
		['sendTemplate', '422 Unprocessable Entity', TEMPLATE_SENT],
		['sendDashboard', '400 Bad Request', DASHBOARD_SENT],
		['sendDashboard', '429 Too Many Requests', DASHBOARD_SENT],
	] as Array<[Operation, string, object]>)('%s answered %s with its success body', async (operation, status, body) => {
		const { url, seen } = await answering(() => answer(status, body, { 'retry-after': '1' }));
		const run = await runOnce(url, operation);
		expect(String(run.items[0].json.error)).toMatch(MAY);
		expect(postsTo(seen)).toBe(1);
		await withRetryOnFail(url, operation);
		expect(postsTo(seen)).toBe(2);
	});
});

describe('a failure whose body also says the message went says both: may have been delivered, never sent again (outside review)', () => {
	it.each([
		['sendDashboard', '200 OK', { success: false, message: 'Message sent successfully', details: 'delivered to handset' }],
		['sendDashboard', '200 OK', { success: 'false', message: 'Message sent successfully' }],
		['sendAlternative', '200 OK', { success: 'false', message: 'Message sent successfully' }],
		['sendAlternative', '200 OK', { ok: false, id: 'm77', status: 'sent' }],
		['sendTemplate', '200 OK', { success: false, messaging_response_info: { messages: [{ id: 'wamid.9', message_status: 'accepted' }] } }],
		['sendTemplate', '200 OK', { success: 'false', messaging_response_info: { messages: [{ id: 'wamid.9', message_status: 'accepted' }] } }],
		['sendDashboard', '400 Bad Request', { success: false, message: 'Message sent', details: { messages: [{ id: 'm1', message_status: 'sent' }] } }],
		['send', '400 Bad Request', { message: 'Message sent successfully' }],
		// A rate refusal that says this very message went (diff review: waited out and sent 7 times).
		['sendDashboard', '200 OK', { success: false, message: 'Message sent successfully. Rate limit: 60 per minute' }],
		['send', '400 Bad Request', { message: 'Message sent. Per minute limit now reached.' }],
		// The same in a 429: waited out and sent again, it would go twice.
		['send', '429 Too Many Requests', { message: 'Message sent. Per minute limit now reached.' }],
		['send', '429 Too Many Requests', { message: 'Message sent successfully' }],
		['sendDashboard', '429 Too Many Requests', { success: false, message: 'Message sent successfully', details: 'Rate limit: 60 per minute' }],
		// A 2xx that says this very message was taken, beside a rate limit (outside review: read as
		// a rate refusal, it was waited out and sent 19 times in a minute).
		['send', '200 OK', { message: 'Message accepted. Rate limit exceeded for the next minute.' }],
		['send', '200 OK', { message: 'Message scheduled. Rate limit reached.' }],
		['send', '202 Accepted', { message: 'Message accepted for delivery; rate limit exceeded' }],
		['send', '202 Accepted', { message: 'Rate limit exceeded' }],
		['sendDashboard', '200 OK', { success: false, message: 'Message accepted. Rate limit exceeded for the next minute.', details: 'Rate limit' }],
		['send', '429 Too Many Requests', { message: 'Message accepted. Rate limit exceeded for the next minute.' }],
		// A count of none sent (reported as sent, the message lost).
		['send', '200 OK', { message: '0 messages sent' }],
		['send', '200 OK', { message: 'Sent: 0' }],
	] as Array<[Operation, string, object]>)('%s answered %s %j', async (operation, status, body) => {
		const { url, seen } = await answering(() => answer(status, body));
		const run = await runOnce(url, operation);
		expect(run.items[0].json.success).toBeUndefined();
		expect(String(run.items[0].json.error)).toMatch(MAY);
		expect(postsTo(seen)).toBe(1);
		await withRetryOnFail(url, operation);
		expect(postsTo(seen)).toBe(2);
	});

	it('a 401 whose explanation mentions sending stops the run at the first item, not in doubt (diff review: 3 requests, each "may have been delivered")', async () => {
		const { url, seen } = await answering(() => answer('401 Unauthorized', { message: 'Unauthorized: messages can only be sent with a valid API token' }));
		const run = await runOnce(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
		expect(postsTo(seen)).toBe(1);
	});

	it.each([
		['send', { message: 'Too many messages sent' }],
		['send', { message: 'You have sent 30 messages in the last 60 seconds. Slow down.' }],
		['sendDashboard', { success: false, message: 'Too many messages sent', details: 'Try again later' }],
	] as Array<[Operation, object]>)('%s: a 429 whose words say messages were sent (%j) is still the rate refusal: waited out, then sent once', async (operation, body) => {
		const { url, seen } = await answering((post) => (post === 0 ? answer('429 Too Many Requests', body, { 'retry-after': '1' }) : answer('200 OK', operation === 'send' ? { message: 'Message sent successfully' } : DASHBOARD_SENT)));
		const run = await runOnce(url, operation, { options: { maxWaitSeconds: 5 } });
		expect(run.items[0].json.success).toBe(true);
		expect(postsTo(seen)).toBe(2);
	});
});

describe('a direct send\'s 2xx text that never says the message went (outside review)', () => {
	it.each([
		[{ message: 'Insufficient credits' }, /Insufficient credits/],
		[{ message: 'Subscription expired' }, /Subscription expired/],
	])('200 %j names a failure that stops the run: that failure, and the second item is not sent', async (body, reason) => {
		const { url, seen } = await answering(() => answer('200 OK', body));
		const run = await runOnce(url, 'send', { items: 2, options: { maxConcurrent: 1 } });
		expect(run.items.map((item) => item.json.success)).toEqual([undefined, undefined]);
		expect(String(run.items[0].json.error)).toMatch(reason);
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
		expect(postsTo(seen)).toBe(1);
	});

	it.each([
		[{ message: 'Invalid phone number' }],
		[{ message: 'Error: recipient has no active account' }],
		[{ message: 'Message not sent' }],
		[{ message: "Message couldn't be sent" }],
		[{ status: 'error', message: 'Something went wrong' }],
		[{ message: 'Attachment URL is not public' }],
		[{ message: 'Message limit for this number reached' }],
		// Words of a message not carried out, with no word of sending (outside review: reported sent).
		[{ message: 'Service Unavailable' }],
		[{ message: 'Under maintenance, please try again later' }],
		[{ message: 'Endpoint request timed out' }],
		[{ message: 'Account suspended' }],
		[{ message: 'Undeliverable' }],
		[{ message: 'Recipient opted out' }],
		[{ message: 'Number is blacklisted' }],
		[{ message: 'phone is required' }],
		[{ message: 'Queue full' }],
		[{ message: 'Cancelled' }],
	])('200 %j: a plain failure of that item, not reported sent', async (body) => {
		const { url } = await answering(() => answer('200 OK', body));
		const run = await runOnce(url, 'send');
		expect(run.items[0].json.success).toBeUndefined();
		expect(String(run.items[0].json.error)).toContain(body.message);
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
	});

	it('200 with a blank text describes no result: may have been delivered, not reported sent', async () => {
		const { url, seen } = await answering(() => answer('200 OK', { message: '  ' }));
		const run = await runOnce(url, 'send');
		expect(run.items[0].json.success).toBeUndefined();
		expect(String(run.items[0].json.error)).toMatch(MAY);
		expect(postsTo(seen)).toBe(1);
	});

	it('a text that says neither (200 "OK", "Accepted", "Message accepted, no errors") stays a success, as does one that says it went beside such words', async () => {
		for (const message of ['OK', 'Accepted', 'Message accepted, no errors', 'Message sent. Delivery may be delayed by maintenance', 'Message queued. Reply STOP to opt out']) {
			const { url } = await answering(() => answer('200 OK', { message }));
			expect((await runOnce(url, 'send')).items[0].json).toMatchObject({ success: true, message });
		}
	});
});

describe('a direct send whose result text says it went, with a failure beside it or named further on, says both', () => {
	it.each([
		[{ message: 'Message sent successfully', error: 'Insufficient credits' }],
		[{ message: 'Message sent successfully', error: 1 }],
		[{ message: 'Message queued', success: false }],
		// `success: true` says it went on every API, whatever the text beside it.
		[{ success: true, message: 'Message accepted', error: 'Insufficient credits' }],
		[{ success: true, message: 'OK', error: { code: 'W1', message: 'Number normalised' } }],
		[{ success: true, message: 'Message sending failed | Reason: Rate limit exceeded' }],
		// Says it went and names a failure (second diff review: it read as sent).
		[{ message: 'Message sent failed: insufficient credits' }],
	])('200 %j: may have been delivered, not reported sent, never sent again', async (body) => {
		const { url, seen } = await answering(() => answer('200 OK', body));
		const run = await runOnce(url, 'send');
		expect(run.items[0].json.success).toBeUndefined();
		expect(String(run.items[0].json.error)).toMatch(MAY);
		await withRetryOnFail(url, 'send');
		expect(postsTo(seen)).toBe(2);
	});

	it.each([
		[{ message: 'Error: Message sending failed | Reason: Insufficient credits' }],
		[{ message: 'Message not sent | Reason: Insufficient credits' }],
		[{ message: 'Message cannot be sent | Reason: Insufficient credits' }],
		[{ message: "Message couldn't be sent | Reason: Insufficient credits" }],
		[{ message: 'Message failed to be sent | Reason: Insufficient credits' }],
		// A reason's own words ("sent", "delivered") do not make the text a success.
		[{ message: 'Error: Message sending failed | Reason: Insufficient credits for messages sent today' }],
	])('200 %j names the failure: it failed, for that reason, and the run stops at it', async (body) => {
		const { url, seen } = await answering(() => answer('200 OK', body));
		const run = await runOnce(url, 'send', { items: 2, options: { maxConcurrent: 1 } });
		expect(run.items.map((item) => item.json.success)).toEqual([undefined, undefined]);
		expect(String(run.items[0].json.error)).toMatch(/Insufficient credits/);
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
		// No credits: the second item is not sent either.
		expect(postsTo(seen)).toBe(1);
	});

	it.each([
		[{ message: "Message couldn't be sent", error: 'Insufficient credits' }],
		[{ message: 'Message cannot be sent', error: 'Insufficient credits' }],
	])('200 %j denies it went: a plain failure with its code, not in doubt', async (body) => {
		const { url } = await answering(() => answer('200 OK', body));
		const run = await runOnce(url, 'send');
		expect(run.items[0].json.success).toBeUndefined();
		expect(String(run.items[0].json.error)).toMatch(/be sent \(code Insufficient credits\)/);
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
	});

	it("the service's own failure form stays a plain failure, and a plain success a success", async () => {
		const failed = await answering(() => answer('200 OK', { message: 'Message sending failed | Reason: Invalid phone number' }));
		const refused = await runOnce(failed.url, 'send');
		expect(String(refused.items[0].json.error)).toMatch(/Invalid phone number/);
		expect(String(refused.items[0].json.error)).not.toMatch(MAY);
		const sent = await answering(() => answer('200 OK', { message: 'Message sent successfully', error: 0 }));
		expect((await runOnce(sent.url, 'send')).items[0].json.success).toBe(true);
	});
});

describe('a refusal whose page is larger than a send\'s answer may be is judged by its status', () => {
	const page = (status: string, headers: Record<string, string> = {}) =>
		`HTTP/1.1 ${status}\r\ncontent-type: text/html\r\ncontent-length: 70000\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${'x'.repeat(70_000)}`;

	it('429 with a 70 KB page and Retry-After: 1 waits and sends again, once', async () => {
		const { url, seen } = await answering((post) => (post === 0 ? page('429 Too Many Requests', { 'retry-after': '1' }) : answer('200 OK', { message: 'Message sent successfully' })));
		const run = await runOnce(url, 'send', { options: { maxWaitSeconds: 5 } });
		expect(run.items[0].json.success).toBe(true);
		expect(postsTo(seen)).toBe(2);
	});

	it('401 with a 70 KB page stops the run at the first item: the key was refused, nothing is in doubt', async () => {
		const { url, seen } = await answering(() => page('401 Unauthorized'));
		const run = await runOnce(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(postsTo(seen)).toBe(1);
		expect(String(run.items[0].json.error)).toMatch(/refused the credential/);
		expect(String(run.items[0].json.error)).not.toMatch(MAY);
	});

	it('200 with a 70 KB body is still in doubt: it may be the success', async () => {
		const { url } = await answering(() => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 70000\r\n\r\n${' '.repeat(70_000)}`);
		const run = await runOnce(url, 'send');
		expect(String(run.items[0].json.error)).toMatch(/larger than 64 KB; not read/);
		expect(String(run.items[0].json.error)).toMatch(MAY);
	});
});

describe('a sandbox delete answered with its error body in a list', () => {
	it('200 [{"error":404,"message":"Plant not found"}] is that error, not "deleted"', async () => {
		const { url } = await serve(() => answer('200 OK', [{ error: 404, message: 'Plant not found' }]));
		const run = await runOn(
			{ credentials: credentialsAt(url, TOKEN) },
			{ type: 'sandboxPlants', credentialType: 'messagingBearerApi', parameters: { resource: 'plant', operation: 'delete', plantId: 7, options: {} }, items: [{}], continueOnFail: true },
		);
		expect(run.items[0].json.deleted).toBeUndefined();
		expect(String(run.items[0].json.error)).toMatch(/Plant not found/);
	});
});

describe('a proxy that wants a login (407, 511) answered, not the service: nothing was sent (outside review: "may have been delivered", each item sent)', () => {
	it.each([
		['send', '511 Network Authentication Required'],
		['send', '407 Proxy Authentication Required'],
		['sendTemplate', '511 Network Authentication Required'],
	] as Array<[Operation, string]>)('%s answered %s: the run stops after one request, every item not sent', async (operation, status) => {
		const { url, seen } = await answering(() => answer(status, '<html><body>Sign in to the network</body></html>', { 'content-type': 'text/html' }));
		const run = await runOnce(url, operation, { items: 3, options: { maxConcurrent: 1 } });
		expect(postsTo(seen)).toBe(1);
		expect(run.items).toHaveLength(3);
		for (const item of run.items) expect(String(item.json.error)).not.toMatch(MAY);
		expect(String(run.items[0].json.error)).toMatch(new RegExp(`^A proxy or network sign-in page between n8n and 127\\.0\\.0\\.1:\\d+ answered HTTP ${status.slice(0, 3)} .*nothing was sent`));
	});
});

