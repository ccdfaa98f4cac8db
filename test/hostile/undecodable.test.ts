/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a test token (README: Lint) */
/**
 * Answers the HTTP layer itself cannot decode, written byte for byte by a raw TCP server: a
 * body that claims gzip or brotli but is plain, a status line that is not HTTP (or a status no HTTP
 * answer has, 000 or 099), Content-Length beside
 * Transfer-Encoding, two Content-Lengths that differ. Each came after the request was written,
 * so for a send the service may have acted on it: the item fails as an unexpected answer from
 * the host that may have been delivered, never with the library's bare text, and is not sent
 * again. A read fails the same way, not retried, as a 200 that is not JSON is.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { useRawServers } from './servers';

const TOKEN = 'Undecodable-Token-0123456789';

const serve = useRawServers();

const credentialsFor = (url: string) => ({ messagingBearerApi: { accessToken: TOKEN, sendBaseUrl: url, templatesBaseUrl: url } });

async function runSend(url: string) {
	return await runOn(
		{ credentials: credentialsFor(url) },
		{ parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'hello', options: {} }, items: [{ phone: '+14155550100' }], continueOnFail: true },
	);
}

/** Template → Get Many: a read, retried after a timeout or a dropped connection. */
async function runRead(url: string) {
	return await runOn(
		{ credentials: credentialsFor(url) },
		{ parameters: { resource: 'template', operation: 'getAll', returnAll: true, options: {} }, items: [{}] as IDataObject[], continueOnFail: true },
	);
}

/** What each answer would be, for a send and for the template list, were it readable. */
const SEND_BODY = JSON.stringify({ message: 'Message sent successfully', error: 0 });
const LIST_BODY = '[]';

/** Each case: its name, the bytes it answers (given the body it would carry), and what the error says of them. */
const UNDECODABLE: Array<[string, (body: string) => string, RegExp]> = [
	[
		'200 with content-encoding: gzip over a plain body',
		(body) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
		/\(HTTP 200, a body that does not decode as its Content-Encoding says: incorrect header check\)/,
	],
	[
		'200 with content-encoding: br over a plain body',
		// Not the body itself: a two-byte "[]" happens to read as an empty brotli stream.
		() => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: br\r\ncontent-length: ${SEND_BODY.length}\r\n\r\n${SEND_BODY}`,
		/\(HTTP 200, a body that does not decode as its Content-Encoding says: Decompression failed\)/,
	],
	['a status line that is not HTTP', () => 'HELLO WORLD\r\n\r\n', /\(not readable as HTTP: Expected HTTP\//],
	[
		'Content-Length together with Transfer-Encoding',
		(body) =>
			`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
		/\(not readable as HTTP: Transfer-Encoding can't be present with Content-Length\)/,
	],
	// Node's parser reads these status lines, but no HTTP answer has them: judged as a 200 (below 300), the message was reported sent.
	['status 000', (body) => `HTTP/1.1 000 Zero\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`, /\(HTTP 0, a status no HTTP answer has\)/],
	['status 099', (body) => `HTTP/1.1 099 X\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`, /\(HTTP 99, a status no HTTP answer has\)/],
	[
		'two Content-Lengths that differ',
		(body) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\ncontent-length: ${body.length + 1}\r\n\r\n${body}`,
		/\(not readable as HTTP: Duplicate Content-Length\)/,
	],
];

describe('an answer the HTTP layer cannot decode', () => {
	it.each(UNDECODABLE)('send answered %s: an unexpected answer from the host that may have been delivered, sent once', async (_name, answer, what) => {
		const { url, seen } = await serve(() => answer(SEND_BODY));
		const run = await runSend(url);
		const error = String(run.items[0].json.error);
		expect(error).toMatch(/^Unexpected answer from 127\.0\.0\.1:\d+ \(/);
		expect(error).toMatch(what);
		expect(error).toContain(new URL(url).host);
		expect(error).toMatch(/may have been delivered/);
		expect(run.items[0].json.success).toBeUndefined();
		expect(seen.map((request) => request.method)).toEqual(['POST']);
	});

	it.each(UNDECODABLE)('Template → Get Many answered %s: an unexpected answer from the host, read once', async (_name, answer, what) => {
		const { url, seen } = await serve(() => answer(LIST_BODY));
		const run = await runRead(url);
		const error = String(run.items[0].json.error);
		expect(error).toMatch(/^Unexpected answer from 127\.0\.0\.1:\d+ \(/);
		expect(error).toMatch(what);
		expect(error).not.toMatch(/may have been delivered/);
		expect(seen.map((request) => request.method)).toEqual(['GET']);
	});
});
