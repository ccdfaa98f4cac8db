/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The HTTP server: records each request, reads its body, lets the fault layer decide, waits
 * the latency, then runs the route's handler and renders its result or error in the
 * route's own shape, or carries out the fault (see the table in faults.ts).
 *
 * Nothing here logs per request or blocks: the bulk tests push 10,000 requests through,
 * and latency and hangs are timers.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { apiOf, matchRoute, type Route } from './apis/routes';
import type { ApiContext, ApiResult } from './apis/shared';
import { createControlHandler, type ControlDeps } from './control';
import { ApiError, COMMON_ERRORS, errorBody, NON_SERVICE_200, successFalseBody, type ErrorStyle } from './errors';
import type { FaultAction } from './faults';
import { PREFIX } from './fixtures';
import { closeNow, readBody, sendJson, sendText, splitUrl } from './http';
import { now } from './state';
import type { Outcome, RequestRecord } from './types';

/** The credential a request carried, as the `echo-key` fault quotes it back. */
const credentialOf = (headers: IncomingHttpHeaders): string =>
	[headers.authorization, headers['x-api-key']].filter((value) => value !== undefined).join(' ') || '(none)';

/** As an OWASP-style encoder writes text into a page: `/`, `+`, `=` and the like as `&#47;`, `&#43;`, `&#61;`. */
const htmlEscaped = (text: string): string => text.replace(/[^A-Za-z0-9_ ]/g, (char) => `&#${char.codePointAt(0)};`);

export interface EmulatorServer {
	server: Server;
	/** Stop timers (latency, hangs) and drop open connections, then close. */
	close(): Promise<void>;
}

export function createEmulatorServer(deps: ControlDeps): EmulatorServer {
	const { state, faults, trap } = deps;
	const control = createControlHandler(deps);
	const timers = new Set<NodeJS.Timeout>();

	const later = (ms: number, fn: () => void): NodeJS.Timeout => {
		const timer = setTimeout(() => {
			timers.delete(timer);
			fn();
		}, ms);
		timers.add(timer);
		return timer;
	};

	const reply = (res: ServerResponse, record: RequestRecord, result: ApiResult & { headers?: Record<string, string> }) => {
		record.status = result.status;
		record.outcome = result.outcome;
		sendJson(res, result.status, result.body, result.headers);
	};

	/** An answer in no API's shape (redirects, pages that are not the service). */
	const replyRaw = (res: ServerResponse, record: RequestRecord, outcome: Outcome, status: number, text: string, headers: Record<string, string>) => {
		record.status = status;
		record.outcome = outcome;
		sendText(res, status, text, headers);
	};

	const rejection = (style: ErrorStyle, error: ApiError, outcome: RequestRecord['outcome'] = 'rejected') => ({
		status: error.status,
		body: errorBody(style, error),
		headers: error.headers,
		outcome,
	});

	/** Run the handler; its ApiErrors become answers in the route's shape. */
	const run = (route: Route, ctx: ApiContext) => {
		try {
			return route.handle(ctx);
		} catch (error) {
			if (error instanceof ApiError) return rejection(route.style, error);
			// A bug in the emulator, not a simulated fault: make it loud.
			console.error('emulator: handler failed', error);
			return rejection(route.style, COMMON_ERRORS.serverError(500));
		}
	};

	const applyFault = (action: FaultAction, route: Route, ctx: ApiContext, req: IncomingMessage, res: ServerResponse, record: RequestRecord) => {
		const { socket } = req;
		switch (action.kind) {
			case 'none':
				reply(res, record, run(route, ctx));
				return;
			case 'reset':
				record.outcome = 'reset';
				socket.destroy();
				return;
			case 'reset-after':
				run(route, ctx); // processed for real: delivery recorded, credit charged
				// RST, not FIN: the client reads ECONNRESET (unless it already went away).
				record.outcome = 'reset-after';
				if (!socket.destroyed) socket.resetAndDestroy();
				return;
			case 'close-after':
				run(route, ctx);
				// A clean FIN with no answer: the client reads "socket hang up".
				record.outcome = 'close-after';
				socket.end();
				return;
			case 'hang': {
				record.outcome = 'hang';
				// hang-forever sets no timer: the client or the emulator's close() ends it.
				if (action.hangMs === null) return;
				const timer = later(action.hangMs, () => socket.destroy());
				// The client giving up ends the hang early; don't keep the timer alive.
				socket.once('close', () => {
					clearTimeout(timer);
					timers.delete(timer);
				});
				return;
			}
			case '429':
				reply(res, record, rejection(route.style, COMMON_ERRORS.rateLimited({ 'retry-after': action.retryAfter }), 'rate-limited'));
				return;
			case 'rate-reason':
				reply(res, record, rejection(route.style, COMMON_ERRORS.rateLimitReason(), 'rate-limited'));
				return;
			case '5xx-before':
				reply(res, record, rejection(route.style, COMMON_ERRORS.serverError(action.status), '5xx-before'));
				return;
			case '5xx-after':
				run(route, ctx);
				reply(res, record, rejection(route.style, COMMON_ERRORS.serverError(action.status), '5xx-after'));
				return;
			case '5xx-ratelimit-text':
				run(route, ctx);
				reply(res, record, rejection(route.style, COMMON_ERRORS.rateLimitText(action.status), '5xx-ratelimit-text'));
				return;
			case 'echo-key':
				reply(res, record, rejection(route.style, COMMON_ERRORS.echoKey(action.html ? htmlEscaped(credentialOf(req.headers)) : credentialOf(req.headers)), 'echo-key'));
				return;
			case 'success-false': {
				const body = route.isSend ? successFalseBody(route.style) : undefined;
				// Only sends have a "200 but failed" body; other APIs are served normally.
				reply(res, record, body === undefined ? run(route, ctx) : { status: 200, body, outcome: 'success-false' });
				return;
			}
			case 'redirect':
				// Same path and query on the trap origin, unless the test named another URL.
				replyRaw(res, record, 'redirected', action.status, '', { location: action.location ?? trap.url + req.url });
				return;
			case 'non-service-200': {
				const { contentType, text } = NON_SERVICE_200[action.variant];
				replyRaw(res, record, action.variant, 200, text, { 'content-type': contentType });
				return;
			}
		}
	};

	const onRequest = (req: IncomingMessage, res: ServerResponse) => {
		const at = now();
		const method = req.method ?? 'GET';
		const { rawPath, path, query } = splitUrl(req.url ?? '/');
		if (path.startsWith(PREFIX.control)) {
			control(req, res, path.slice(PREFIX.control.length), query);
			return;
		}

		const match = matchRoute(method, path);
		const record: RequestRecord = {
			seq: state.takeSeq(),
			api: apiOf(match),
			method,
			path: rawPath,
			query,
			headers: req.headers,
			body: undefined,
			at,
			outcome: 'pending',
			status: 0,
		};
		state.requests.push(record);

		readBody(req, (body) => {
			record.body = body.value;
			if (match.kind === 'not-found') {
				reply(res, record, rejection(match.style, COMMON_ERRORS.notFound(method, rawPath)));
				return;
			}
			if (match.kind === 'method-not-allowed') {
				reply(res, record, rejection(match.style, COMMON_ERRORS.methodNotAllowed(method, match.allow)));
				return;
			}
			const { route, params } = match;
			if (body.tooLarge) {
				reply(res, record, rejection(route.style, COMMON_ERRORS.bodyTooLarge()));
				return;
			}
			const ctx: ApiContext = { state, seq: record.seq, headers: req.headers, query, params, body: body.value, bodyIsJson: body.isJson };
			// Decide at arrival, so rate-limit windows count arrivals, not answer times.
			const action = faults.decide(route.isSend);
			const latency = faults.answerDelayMs();
			if (latency > 0) later(latency, () => applyFault(action, route, ctx, req, res, record));
			else applyFault(action, route, ctx, req, res, record);
		});
	};

	const server = createServer({ keepAliveTimeout: 5_000 }, onRequest);

	return {
		server,
		close: () => {
			for (const timer of timers) clearTimeout(timer);
			timers.clear();
			return closeNow(server);
		},
	};
}
