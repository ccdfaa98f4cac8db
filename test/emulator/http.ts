/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Small request/response helpers on top of node:http, shared by the service routes and
 * the control API.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_BODY_CHARS = 1024 * 1024;

export interface ReceivedBody {
	/** Parsed JSON, the raw text when it is not JSON, undefined when empty. */
	value: unknown;
	isJson: boolean;
	tooLarge: boolean;
}

/** Collect the body as text (bounded) and try JSON; `done` is not called if the client aborts. */
export function readBody(req: IncomingMessage, done: (body: ReceivedBody) => void): void {
	let raw = '';
	let tooLarge = false;
	req.setEncoding('utf8');
	req.on('data', (chunk: string) => {
		if (tooLarge) return;
		if (raw.length + chunk.length > MAX_BODY_CHARS) {
			tooLarge = true;
			raw = '';
		} else {
			raw += chunk;
		}
	});
	req.on('end', () => done(parseBody(raw, tooLarge)));
	// A client that goes away mid-body is not our error to report.
	req.on('error', () => undefined);
}

function parseBody(raw: string, tooLarge: boolean): ReceivedBody {
	if (tooLarge || raw === '') return { value: undefined, isJson: false, tooLarge };
	try {
		return { value: JSON.parse(raw), isJson: true, tooLarge };
	} catch {
		return { value: raw, isJson: false, tooLarge };
	}
}

/** Answer with JSON (or nothing for 204), unless the socket is already gone. */
export function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	if (body === undefined) sendText(res, status, undefined, headers);
	else sendText(res, status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });
}

/** Answer with a text body as is (undefined = no body at all), unless the socket is already gone. */
export function sendText(res: ServerResponse, status: number, text: string | undefined, headers: Record<string, string> = {}): void {
	if (res.headersSent || res.destroyed) return;
	if (text === undefined) {
		res.writeHead(status, headers);
		res.end();
		return;
	}
	res.writeHead(status, { 'content-length': String(Buffer.byteLength(text)), ...headers });
	res.end(text);
}

/** Split `req.url` into the raw path, its percent-decoded form and the query. */
export function splitUrl(rawUrl: string): { rawPath: string; path: string; query: Record<string, string> } {
	const q = rawUrl.indexOf('?');
	const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
	const query = q < 0 ? {} : Object.fromEntries(new URLSearchParams(rawUrl.slice(q + 1)));
	let path = rawPath;
	try {
		path = decodeURIComponent(rawPath);
	} catch {
		// A malformed escape: match on the raw path, which then simply 404s.
	}
	return { rawPath, path, query };
}

/** Listen on 127.0.0.1 only (0 = a free port); resolves with the port. */
export async function listenOnLoopback(server: Server, port: number): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	return (server.address() as AddressInfo).port;
}

/** Close at once: open connections (keep-alive, hanging requests) are dropped, not waited for. */
export function closeNow(server: Server): Promise<void> {
	return new Promise<void>((resolve) => {
		server.close(() => resolve());
		server.closeAllConnections();
	});
}
