/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The redirect trap: a second loopback origin (its own port) that the redirect faults
 * point at. A client that follows a redirect lands here, so this is where a leaked key or
 * message body shows up: every request is recorded with all its headers and its raw body.
 *
 * It answers 200 with a plausible success body of the API whose path it was given, so a
 * client that follows the redirect and trusts any 2xx wrongly reports success.
 */
import { createServer } from 'node:http';
import { apiOf, matchRoute } from './apis/routes';
import { TEMPLATES } from './fixtures';
import { closeNow, listenOnLoopback, sendJson, splitUrl } from './http';
import { now } from './state';
import type { ApiName, TrapRecord } from './types';

/** Success bodies that look like the real ones (spec part 2), whatever the method. */
const LOOKS_LIKE_SUCCESS: Record<ApiName, unknown> = {
	send: { message: 'Message sent successfully' },
	templateSend: {
		success: true,
		messaging_response_info: {
			contacts: [{ input: '+14155550123', wa_id: '14155550123' }],
			messages: [{ id: 'wamid.HBgLTRAP000001', message_status: 'accepted' }],
			messaging_product: 'whatsapp',
		},
	},
	templates: TEMPLATES,
	dashboard: { success: true, message: 'Message sent', details: { messages: [{ id: 'dsh_TRAP000001', message_status: 'sent' }] } },
	alternative: { success: true, id: 'alt_trap', status: 'queued', to: '+14155550123' },
	plantsCreate: { name: 'Trapped plant' },
	plantsList: [{ name: 'Trapped plant' }],
	plantsDelete: {},
	unknown: { success: true },
};

export interface Trap {
	readonly url: string;
	/** Live list, cleared in place. */
	readonly requests: TrapRecord[];
	clear(): void;
	close(): Promise<void>;
}

export async function startTrap(): Promise<Trap> {
	const requests: TrapRecord[] = [];
	const server = createServer((req, res) => {
		const method = req.method ?? 'GET';
		const { rawPath, path, query } = splitUrl(req.url ?? '/');
		const record: TrapRecord = { method, path: rawPath, query, headers: req.headers, body: '', at: now() };
		requests.push(record);
		req.setEncoding('utf8');
		req.on('data', (chunk: string) => {
			// Bounded like the emulator's own bodies: the trap only needs to see what leaked.
			if (record.body.length < 1024 * 1024) record.body += chunk;
		});
		req.on('end', () => sendJson(res, 200, LOOKS_LIKE_SUCCESS[apiOf(matchRoute(method, path))]));
		req.on('error', () => undefined);
	});
	const port = await listenOnLoopback(server, 0);
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		clear: () => void (requests.length = 0),
		close: () => closeNow(server),
	};
}
