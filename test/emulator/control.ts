/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Control API under /__emulator/ (no auth; the server listens on loopback only), so that
 * other processes (a real n8n server test, the benchmark) can switch faults and read
 * what the emulator saw. Control calls are not recorded as requests.
 *
 *   GET  /__emulator/state        requests (omit with ?requests=none), delivery count,
 *                                 duplicates, account, faults, plants, trap URL and count
 *   GET  /__emulator/deliveries   the delivery list
 *   GET  /__emulator/trap         {url, requests}: what reached the redirect trap
 *   DELETE /__emulator/trap       forget the trap's records
 *   POST /__emulator/faults       partial faults (same as setFaults), answers the new faults
 *   POST /__emulator/account      partial account, notOnPlatform as an array
 *   POST /__emulator/attachments  {url, bytes?, reachable?} (same as setAttachment)
 *   POST /__emulator/templates    a template change {template_id, ...} (same as setTemplate)
 *   POST /__emulator/reset        everything back to defaults
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultController } from './faults';
import { readBody, sendJson } from './http';
import type { EmulatorState } from './state';
import type { Trap } from './trap';
import type { Account, AccountPatch, FaultsPatch, TemplatePatch } from './types';
import { isPlainObject } from './validation';

export interface ControlDeps {
	state: EmulatorState;
	faults: FaultController;
	trap: Trap;
	/** Full reset of state and faults (the emulator's reset()). */
	reset(): void;
}

export const accountJson = (account: Account) => ({ ...account, notOnPlatform: [...account.notOnPlatform] });

type ControlAction = (body: unknown, query: Record<string, string>) => unknown;

function actions({ state, faults, trap, reset }: ControlDeps): Record<string, ControlAction> {
	return {
		'GET state': (_body, query) => ({
			requestCount: state.requests.length,
			requests: query.requests === 'none' ? undefined : state.requests,
			deliveries: state.deliveries.length,
			duplicates: state.duplicates(),
			account: accountJson(state.account),
			faults: faults.settings,
			plants: [...state.plants.values()],
			trap: { url: trap.url, requestCount: trap.requests.length },
		}),
		'GET deliveries': () => state.deliveries,
		'GET trap': () => ({ url: trap.url, requests: trap.requests }),
		'DELETE trap': () => {
			trap.clear();
			return { ok: true };
		},
		'POST faults': (body) => {
			faults.set(body as FaultsPatch); // validated inside
			return faults.settings;
		},
		'POST account': (body) => {
			if (!isPlainObject(body)) throw new Error('Account patch must be a JSON object');
			state.applyAccountPatch(body as AccountPatch); // validated inside
			return accountJson(state.account);
		},
		'POST attachments': (body) => {
			if (!isPlainObject(body) || typeof body.url !== 'string') throw new Error('Expected {url, bytes?, reachable?}');
			state.attachments.set(body.url, {
				bytes: typeof body.bytes === 'number' ? body.bytes : undefined,
				reachable: typeof body.reachable === 'boolean' ? body.reachable : undefined,
			});
			return { ok: true };
		},
		'POST templates': (body) => {
			if (!isPlainObject(body)) throw new Error('A template change must be a JSON object');
			return state.setTemplate(body as TemplatePatch); // validated inside
		},
		'POST reset': () => {
			reset();
			return { ok: true };
		},
	};
}

export function createControlHandler(deps: ControlDeps) {
	const table = actions(deps);
	const names = new Set(Object.keys(table).map((key) => key.split(' ')[1]));
	return (req: IncomingMessage, res: ServerResponse, name: string, query: Record<string, string>): void => {
		const action = table[`${req.method} ${name}`];
		if (!action) {
			const status = names.has(name) ? 405 : 404;
			sendJson(res, status, { error: { code: status === 405 ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', message: `No control action ${req.method} ${name}` } });
			req.resume();
			return;
		}
		readBody(req, (body) => {
			if (req.method === 'POST' && body.value !== undefined && !body.isJson) {
				sendJson(res, 400, { error: { code: 'INVALID_JSON', message: 'Control bodies are JSON' } });
				return;
			}
			try {
				sendJson(res, 200, action(body.value ?? {}, query));
			} catch (error) {
				sendJson(res, 400, { error: { code: 'INVALID_REQUEST', message: (error as Error).message } });
			}
		});
	};
}
