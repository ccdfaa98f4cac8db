/**
 * The error bodies of spec part 7, one shape per API family, and the 200-with-failure
 * bodies of the `success-false` fault.
 *
 * Handlers throw `ApiError(status, code, reason)`; the server renders it in the shape of
 * the route's family, so every check is written once whatever the API.
 */

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
