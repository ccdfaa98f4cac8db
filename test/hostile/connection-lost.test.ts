/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n; a raw node:net server and a test token (README: Lint) */
/**
 * A connection that breaks after the service got the whole request: the route to it goes away
 * (a VPN or gateway failing: Linux then reports EHOSTUNREACH, ENETUNREACH or ENETDOWN on the read
 * or write of a connection already open), or a TLS record of the answer does not decrypt (a
 * middlebox corrupting it). The service may have acted on the request: it is not sent again,
 * neither by the node's own retries nor by n8n's Retry On Fail, and the item says it may have
 * been delivered. The error is raised on the client's socket as libuv raises it, once the
 * server has read the request.
 */
import net from 'node:net';
import type { IDataObject } from 'n8n-workflow';
import { afterEach, describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { runNode } from '../harness';
import { credentialsAt } from './servers';

const TOKEN = 'Lost-Route-Token-0123456789';

const sendParameters = (options: IDataObject = {}) => ({ resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'hello', options });

/** The client sockets n8n opens to `port`, caught as they connect (to break them later). */
function catchClientSockets(port: number): { sockets: net.Socket[]; restore: () => void } {
	const sockets: net.Socket[] = [];
	const connect = net.Socket.prototype.connect;
	net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
		const first = (Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]) as { port?: number } | number | undefined;
		if (Number(typeof first === 'object' && first !== null ? first.port : first) === port) sockets.push(this);
		return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
	} as typeof connect;
	return { sockets, restore: () => (net.Socket.prototype.connect = connect) };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server that reads each request whole and never answers; once it has, the client's socket
 * gets `error` as if the kernel reported it. `requests`: the bodies it read.
 */
async function serverWhoseRouteIsLost(error: () => Error): Promise<{ url: string; requests: string[] }> {
	const requests: string[] = [];
	const open = new Set<net.Socket>();
	const server = net.createServer((socket) => {
		open.add(socket);
		socket.on('error', () => undefined);
		socket.on('close', () => open.delete(socket));
		let received = Buffer.alloc(0);
		socket.on('data', (chunk) => {
			received = Buffer.concat([received, chunk]);
			const end = received.indexOf('\r\n\r\n');
			if (end < 0) return;
			const length = Number(/content-length:\s*(\d+)/i.exec(received.subarray(0, end).toString())?.[1] ?? 0);
			if (received.length < end + 4 + length) return;
			requests.push(received.subarray(end + 4, end + 4 + length).toString());
			received = Buffer.alloc(0);
			// The request was read (the service acts on it); then the client's connection breaks.
			void Promise.resolve().then(() => {
				for (const client of clients.sockets) if (!client.destroyed) client.destroy(error());
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	const clients = catchClientSockets(port);
	cleanups.push(async () => {
		clients.restore();
		for (const socket of open) socket.destroy();
		await new Promise((resolve) => server.close(resolve));
	});
	return { url: `http://127.0.0.1:${port}`, requests };
}

/** An error as libuv reports it on a socket's system call. */
const systemError = (code: string, syscall: string) => () => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

describe('a connection that breaks after the request was read is not sent again', () => {
	it.each([
		['EHOSTUNREACH', 'read'],
		['ENETUNREACH', 'write'],
		['ENETDOWN', 'read'],
		['EPROTO', 'read'],
		['ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC', 'read'],
	])('%s on %s: one request; the item says it may have been delivered', async (code, syscall) => {
		const { url, requests } = await serverWhoseRouteIsLost(systemError(code, syscall));
		const run = await runOn({ credentials: credentialsAt(url, TOKEN) }, { parameters: sendParameters({ timeoutSeconds: 5 }), items: [{ phone: '+14155550100' }], continueOnFail: true });
		expect(requests).toHaveLength(1);
		expect(run.items[0].json.success).toBeUndefined();
		expect(run.items[0].json.error).toMatch(/127\.0\.0\.1:\d+.*The message may have been delivered/);
		expect(run.items[0].json.error).not.toMatch(/Could not reach/);
	});

	it.each(['EHOSTUNREACH', 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC'])("%s with n8n's Retry On Fail (3 tries): still one request", async (code) => {
		const { url, requests } = await serverWhoseRouteIsLost(systemError(code, 'read'));
		const run = await runNode({
			node: { type: 'messaging', parameters: sendParameters({ maxRetries: 0, timeoutSeconds: 5 }), retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			items: [{ phone: '+14155550100' }],
			credentials: credentialsAt(url, TOKEN),
		});
		expect(run.error?.message).toMatch(/may have been delivered/);
		expect(requests).toHaveLength(1);
	});

	it('a route lost while connecting (the connect itself failed): nothing was written, so it is tried again', async () => {
		// Port 9 on loopback: nothing listens, so every connect is refused: "not reached", retried up to Max Retries.
		const run = await runOn({ credentials: credentialsAt('http://127.0.0.1:9', TOKEN) }, { parameters: sendParameters({ maxRetries: 1 }), items: [{ phone: '+14155550100' }], continueOnFail: true });
		expect(run.items[0].json.error).toMatch(/Could not reach 127\.0\.0\.1:9: the connection was refused/);
		expect(run.items[0].json.error).not.toMatch(/may have been delivered/);
	});
});

describe('a service that refuses connections for a moment (a restart, a deploy)', () => {
	it('1.5 s of refused connections: every item is delivered once it is back, with the default retries', async () => {
		const delivered: string[] = [];
		const answer = (socket: net.Socket) => {
			let request = '';
			socket.on('data', (chunk: Buffer) => {
				request += chunk.toString();
				const [head, body = ''] = request.split('\r\n\r\n');
				const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
				if (Buffer.byteLength(body) < length) return;
				delivered.push((JSON.parse(body) as { phone: string }).phone);
				const json = JSON.stringify({ message: 'Message sent successfully' });
				socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\nconnection: close\r\n\r\n${json}`);
			});
		};
		// The port is found, then left closed (every connect refused) until 1.5 s later.
		const probe = net.createServer();
		await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
		const { port } = probe.address() as net.AddressInfo;
		await new Promise((resolve) => probe.close(resolve));
		const server = net.createServer(answer);
		const reopened = new Promise<void>((resolve) => setTimeout(() => server.listen(port, '127.0.0.1', resolve), 1_500));
		cleanups.push(async () => {
			await reopened;
			await new Promise((resolve) => server.close(resolve));
		});
		const items = Array.from({ length: 20 }, (_, index) => ({ phone: `+141555501${String(index).padStart(2, '0')}` }));
		const run = await runOn({ credentials: credentialsAt(`http://127.0.0.1:${port}`, TOKEN) }, { parameters: sendParameters(), items, continueOnFail: true });
		// Before: with full jitter five retries could all fall within the 1.5 s; about one item in 30 failed "(6 tries)".
		expect(run.items.map((item) => item.json.error ?? 'sent')).toEqual(items.map(() => 'sent'));
		expect(delivered.sort()).toEqual(items.map((item) => item.phone));
	}, 30_000);
});
