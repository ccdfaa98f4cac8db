/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code (README: Lint); a test token */
/**
 * Direct-send answers on the wire (raw servers, as test/hostile/says-both.test.ts), from a third
 * diff review; each failed before its fix:
 * 1. A rate refusal (the spec's own form, a 400) that names a "message sent" limit or count was
 *    taken for one that says this very message went: reported "may have been delivered", never
 *    sent. Every item refused for rate in a bulk run failed so, though none went.
 * 2. A success that counts none delivered yet beside its acceptance ("Message accepted for
 *    delivery. 0 delivered, 1 pending") was read as a count of none sent: the item failed as "may
 *    have been delivered".

 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { credentialsAt, useRawServers } from '../hostile/servers';

const TOKEN = 'Rv-Diff9-Token-0123456789';
const MAY = /may have been delivered/i;
const serve = useRawServers();
const SEND = { resource: 'message', operation: 'send', phone: '+14155550100', text: 'hello' } satisfies IDataObject;

function answer(status: string, body: unknown, headers: Record<string, string> = {}): string {
	const text = JSON.stringify(body);
	const head = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers };
	return `HTTP/1.1 ${status}\r\n${Object.entries(head).map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${text}`;
}
const answering = async (reply: (post: number) => string) => {
	let posts = 0;
	return await serve((request) => (request.method === 'POST' ? reply(posts++) : answer('404 Not Found', { message: 'Not found' })));
};
const postsTo = (seen: Array<{ method: string }>) => seen.filter((request) => request.method === 'POST').length;
const runOnce = async (url: string) =>
	await runOn({ credentials: credentialsAt(url, TOKEN) }, { parameters: { ...SEND, options: { maxWaitSeconds: 5 } }, items: [{}], continueOnFail: true });

describe('a direct-send rate refusal naming a "message sent" limit is still a rate refusal: waited out, then sent once', () => {
	it.each([
		'Message sending failed | Reason: Rate limit exceeded - max 1 message sent per second',
		'Message sending failed | Reason: Rate limit: 1 message sent per second',
		'Message sending failed | Reason: Message sent limit per minute exceeded',
		'Message sending failed | Reason: Too many requests, message sent limit is 60 per minute',
	])('400 %j, then 200 "Message sent successfully"', async (refusal) => {
		const { url, seen } = await answering((post) => (post === 0 ? answer('400 Bad Request', { message: refusal }, { 'retry-after': '1' }) : answer('200 OK', { message: 'Message sent successfully' })));
		const run = await runOnce(url);
		// Before the fix: error "... may have been delivered ... not sent again", 1 POST. Before the change: sent, 2 POSTs.
		expect(String(run.items[0].json.error ?? '')).not.toMatch(MAY);
		expect(run.items[0].json.success).toBe(true);
		expect(postsTo(seen)).toBe(2);
	});
});

describe('a 200 that accepts the message and counts none delivered yet is a success', () => {
	it.each(['Message accepted for delivery. 0 delivered, 1 pending', 'Success: 1 accepted, 0 delivered yet', '1 message submitted successfully, delivered: 0'])('200 %j', async (text) => {
		const { url, seen } = await answering(() => answer('200 OK', { message: text }));
		const run = await runOnce(url);
		// Before the fix: error "may have been delivered". Before the change: success.
		expect(run.items[0].json.success).toBe(true);
		expect(postsTo(seen)).toBe(1);
	});
});

