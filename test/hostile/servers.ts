/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n; plain node:http servers (README: Lint) */
/**
 * The one fixture of the hostile tests: servers on 127.0.0.1 that answer the way the test
 * says (not the emulator: these answers are the ones no service should give), closed with
 * their connections after each test, or after the file with `scope: 'file'`. `useRawServers`
 * writes bytes no node:http server would (a broken status line, conflicting lengths).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createRawServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach } from 'vitest';

export interface Seen {
	method: string;
	path: string;
	body: string;
}

export type Answer = (req: IncomingMessage, res: ServerResponse, index: number) => void;

/** Returns `serve(answer)`: a server answering every request with `answer`; what it received is in `seen`. */
export function useServers({ scope = 'each' }: { scope?: 'each' | 'file' } = {}) {
	const closers: Array<() => Promise<void>> = [];
	(scope === 'each' ? afterEach : afterAll)(async () => {
		await Promise.all(closers.splice(0).map(async (close) => await close()));
	});
	return async function serve(answer: Answer) {
		const seen: Seen[] = [];
		const sockets = new Set<Socket>();
		const server = createServer((req, res) => {
			let body = '';
			req.on('data', (chunk: Buffer) => (body += chunk.toString()));
			req.on('end', () => {
				seen.push({ method: req.method ?? '', path: req.url ?? '', body });
				answer(req, res, seen.length - 1);
			});
		});
		server.on('connection', (socket) => {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		closers.push(async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		});
		return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
	};
}

/** A JSON answer (a string body is sent as written). */
export function json(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Returns `serve(reply)`: a plain TCP server that reads each request whole (headers and a
 * Content-Length body), records it in `seen`, writes `reply(request)` byte for byte and closes
 * the connection. Closed with its connections after each test.
 */
export function useRawServers() {
	const closers: Array<() => Promise<void>> = [];
	afterEach(async () => {
		await Promise.all(closers.splice(0).map(async (close) => await close()));
	});
	return async function serve(reply: (request: Seen) => string | Buffer) {
		const seen: Seen[] = [];
		const sockets = new Set<Socket>();
		const server = createRawServer((socket) => {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
			// The client may reset the connection once it finds the answer unreadable.
			socket.on('error', () => undefined);
			let received = Buffer.alloc(0);
			const onData = (chunk: Buffer) => {
				received = Buffer.concat([received, chunk]);
				const headersEnd = received.indexOf('\r\n\r\n');
				if (headersEnd < 0) return;
				const head = received.subarray(0, headersEnd).toString('latin1');
				const length = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
				if (received.length < headersEnd + 4 + length) return;
				socket.off('data', onData);
				const [method = '', path = ''] = head.split('\r\n')[0].split(' ');
				const request = { method, path, body: received.subarray(headersEnd + 4, headersEnd + 4 + length).toString() };
				seen.push(request);
				socket.end(reply(request));
			};
			socket.on('data', onData);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		closers.push(async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		});
		return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
	};
}

/** Every credential of the package, each pointing every base URL at one test server, with `key` as its secret. */
export const credentialsAt = (url: string, key: string) => ({
	messagingBearerApi: { accessToken: key, sendBaseUrl: url, templateSendBaseUrl: url, templatesBaseUrl: url, sandboxBaseUrl: url },
	messagingAuthorizationKeyApi: { apiKey: key, dashboardUrl: url },
	messagingXApiKeyApi: { apiKey: key, apiUrl: url },
});
