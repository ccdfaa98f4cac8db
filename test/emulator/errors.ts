/**
 * The error bodies of spec part 7, one shape per API family, the 200-with-failure
 * bodies of the `success-false` fault, and the 200s of the faults that are not the service.
 *
 * Handlers throw `ApiError(status, code, reason)`; the server renders it in the shape of
 * the route's family, so every check is written once whatever the API.
 */
import type { NonService200 } from './faults';

/**
 * - `direct`: `{message: 'Message sending failed | Reason: <reason>'}` (direct send)
 * - `code`: `{error: {code, message}}` (template send, list templates, alternative send)
 * - `dashboard`: `{success: false, message: <title>, details: <reason>}`
 * - `sandbox`: `{error: <status>, message: <reason>}`
 */
export type ErrorStyle = 'direct' | 'code' | 'dashboard' | 'sandbox';

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		readonly reason: string,
		/** Dashboard's short `message`; defaults by status. */
		readonly title?: string,
		readonly headers?: Record<string, string>,
	) {
		super(reason);
	}
}

const DASHBOARD_TITLES: Record<number, string> = {
	400: 'Invalid request',
	401: 'Unauthorized',
	402: 'Insufficient credits',
	403: 'Forbidden',
	404: 'Not found',
	405: 'Method not allowed',
	413: 'Payload too large',
	429: 'Rate limit exceeded',
	500: 'Internal server error',
	502: 'Bad gateway',
	503: 'Service unavailable',
};

export function errorBody(style: ErrorStyle, error: ApiError): unknown {
	switch (style) {
		case 'direct':
			return { message: `Message sending failed | Reason: ${error.reason}` };
		case 'code':
			return { error: { code: error.code, message: error.reason } };
		case 'dashboard':
			return {
				success: false,
				message: error.title ?? DASHBOARD_TITLES[error.status] ?? 'Request failed',
				details: error.reason,
			};
		case 'sandbox':
			return { error: error.status, message: error.reason };
	}
}

/** Errors the fault layer and the server produce, shared by every family. */
export const COMMON_ERRORS = {
	rateLimited: (headers: Record<string, string>) =>
		new ApiError(429, 'RATE_LIMITED', 'Rate limit exceeded (messages per minute)', undefined, headers),
	/** Spec part 7, condition 7, as a 400 in the API's own error body: no Retry-After. */
	rateLimitReason: () => new ApiError(400, 'RATE_LIMITED', 'Rate limit exceeded (messages per minute or per hour)'),
	serverError: (status: number) =>
		status === 502
			? new ApiError(502, 'BAD_GATEWAY', 'Bad gateway: upstream error')
			: status === 503
				? new ApiError(503, 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable')
				: new ApiError(status, 'INTERNAL_ERROR', 'Internal server error'),
	notFound: (method: string, path: string) =>
		new ApiError(404, 'NOT_FOUND', `No route for ${method} ${path}`),
	methodNotAllowed: (method: string, allow: string) =>
		new ApiError(405, 'METHOD_NOT_ALLOWED', `Method ${method} not allowed; use ${allow}`, undefined, {
			allow,
		}),
	bodyTooLarge: () => new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MB'),
	/** A 5xx that reads like a rate limit (the `5xx-ratelimit-text` fault): judge it by its status. */
	rateLimitText: (status: number) => new ApiError(status, 'RATE_LIMITED', 'Rate limit exceeded', 'Rate limit exceeded'),
	/** A careless service that quotes the credential it was given (the `echo-key` fault). */
	echoKey: (credential: string) => new ApiError(401, 'UNAUTHORIZED', `Invalid token: ${credential}`),
};

/**
 * 200s from something that is not the service (a wrong base URL, a captive portal, a
 * proxy): the `html-200`, `empty-200` and `wrong-shape-200` faults.
 */
export const NON_SERVICE_200: Record<NonService200, { contentType: string; text: string }> = {
	'html-200': {
		contentType: 'text/html; charset=utf-8',
		text: '<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1><form method="post" action="/login"><input name="user"><input name="password" type="password"><button>Sign in</button></form></body></html>',
	},
	'empty-200': { contentType: 'application/json', text: '' },
	'wrong-shape-200': { contentType: 'application/json; charset=utf-8', text: JSON.stringify({ status: 'ok', data: null }) },
};

/**
 * A 200 whose body says the message was not delivered (the `success-false` fault).
 * Only the send APIs have such a body; others return undefined and are processed normally.
 */
export function successFalseBody(style: ErrorStyle): unknown {
	switch (style) {
		case 'direct':
			return { message: 'Message sending failed | Reason: Internal delivery error' };
		case 'code':
			return {
				success: false,
				error: { code: 'DELIVERY_FAILED', message: 'Delivery failed: internal delivery error' },
			};
		case 'dashboard':
			return { success: false, message: 'Delivery failed', details: 'Internal delivery error' };
		case 'sandbox':
			return undefined;
	}
}
