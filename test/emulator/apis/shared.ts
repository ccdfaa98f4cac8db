/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * What every API handler gets and returns, plus the checks several APIs share:
 * the three authentication schemes, the JSON body rule and the account checks.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors';
import { TOKENS } from '../fixtures';
import type { EmulatorState } from '../state';
import type { Outcome } from '../types';
import { isPlainObject } from '../validation';

export interface ApiContext {
	state: EmulatorState;
	seq: number;
	headers: IncomingHttpHeaders;
	query: Record<string, string>;
	/** Path parameters (only `id` of DELETE /sandbox/plants/:id). */
	params: Record<string, string>;
	/** Parsed JSON when the body was JSON, else the raw text (or undefined when empty). */
	body: unknown;
	bodyIsJson: boolean;
}

export interface ApiResult {
	status: number;
	/** Serialised as JSON; undefined = no body (204). */
	body?: unknown;
	outcome: Outcome;
}

export type ApiHandler = (ctx: ApiContext) => ApiResult;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * `Authorization: Bearer <token>`. Returns the token, which is either the normal one or
 * the read-only one; the send APIs reject the latter with `forbidSending`.
 */
export function requireBearer(ctx: ApiContext): string {
	const header = ctx.headers.authorization;
	if (!header) throw new ApiError(401, 'UNAUTHORIZED', 'Authentication failed: missing API token');
	const token = BEARER.exec(header)?.[1];
	if (token !== TOKENS.bearer && token !== TOKENS.forbiddenBearer) {
		throw new ApiError(401, 'UNAUTHORIZED', 'Authentication failed: invalid API token');
	}
	return token;
}

/** The second Bearer token is valid but may not send (list/sandbox accept it). */
export function forbidSending(token: string): void {
	if (token === TOKENS.forbiddenBearer) {
		throw new ApiError(403, 'FORBIDDEN', 'Forbidden: token is not allowed to send');
	}
}

/** Dashboard: `Authorization: <apiKey>` with no scheme word in front. */
export function requireRawAuthorizationKey(ctx: ApiContext): void {
	const header = ctx.headers.authorization?.trim();
	if (!header) throw new ApiError(401, 'UNAUTHORIZED', 'Missing Authorization header with the API key');
	if (header === TOKENS.dashboardKey) return;
	const reason = /^\S+\s+/.test(header)
		? 'Invalid API key: send the key itself in Authorization, without a prefix such as Bearer'
		: 'Invalid API key';
	throw new ApiError(401, 'UNAUTHORIZED', reason);
}

/** Alternative send: `X-API-Key: <apiKey>`; an Authorization header is not read at all. */
export function requireXApiKey(ctx: ApiContext): void {
	const key = ctx.headers['x-api-key'];
	if (key === TOKENS.alternativeKey) return;
	const reason = key
		? 'Invalid API key'
		: ctx.headers.authorization
			? 'Missing X-API-Key header (this API does not read Authorization)'
			: 'Missing X-API-Key header';
	throw new ApiError(401, 'UNAUTHORIZED', reason);
}

/** POST bodies: `Content-Type: application/json` and a JSON object, else 400. */
export function requireJsonObject(ctx: ApiContext): Record<string, unknown> {
	const type = ctx.headers['content-type']?.split(';')[0].trim().toLowerCase();
	if (type !== 'application/json') {
		throw new ApiError(400, 'INVALID_REQUEST', 'Request body must be JSON sent with Content-Type: application/json');
	}
	if (!ctx.bodyIsJson) throw new ApiError(400, 'INVALID_REQUEST', 'Request body is not valid JSON');
	if (!isPlainObject(ctx.body)) throw new ApiError(400, 'INVALID_REQUEST', 'Request body must be a JSON object');
	return ctx.body;
}

/** The checks every send API makes on the account (subscription first, then credits). */
export function accountProblem(state: EmulatorState): 'subscription-expired' | 'no-credits' | undefined {
	if (state.account.subscriptionExpired) return 'subscription-expired';
	if (state.account.credits <= 0) return 'no-credits';
	return undefined;
}
