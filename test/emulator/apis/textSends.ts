/**
 * The two plain-text send endpoints that use an API key instead of a Bearer token.
 *
 * Dashboard send (v2): POST {dashboardUrl}/api/messaging/messages/v2.0.0/send, body {to, text},
 *   `Authorization: <apiKey>`; errors `{success: false, message, details}` with the four
 *   statuses 400 (validation), 401 (key), 402 (credits), 403 (subscription).
 * Alternative send: POST {apiUrl}/v1/messages, body {to, message}, `X-API-Key: <apiKey>`.
 *   The spec shows no response, so this one is invented: 202 `{success: true, id: 'alt_<n>',
 *   status: 'queued', to}`; errors `{error: {code, message}}` with the same statuses.
 */
import { ApiError } from '../errors';
import { isE164, isNonEmptyString } from '../validation';
import {
	accountProblem,
	requireJsonObject,
	requireRawAuthorizationKey,
	requireXApiKey,
	type ApiContext,
	type ApiResult,
} from './shared';

/** Checks shared by both: recipient, content, account; returns the validated pair. */
function checkTextSend(ctx: ApiContext, contentField: 'text' | 'message'): { to: string; content: string } {
	const body = requireJsonObject(ctx);
	const { to } = body;
	const content = body[contentField];
	if (!isE164(to)) throw new ApiError(400, 'INVALID_PHONE_NUMBER', "'to' must be a phone number in E.164 format");
	if (!isNonEmptyString(content)) throw new ApiError(400, 'INVALID_REQUEST', `'${contentField}' is required`);
	const problem = accountProblem(ctx.state);
	if (problem === 'subscription-expired') {
		throw new ApiError(403, 'SUBSCRIPTION_EXPIRED', 'Subscription expired', 'Subscription expired');
	}
	if (problem === 'no-credits') {
		throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'Insufficient credits, account balance too low');
	}
	return { to, content };
}

export function dashboardSend(ctx: ApiContext): ApiResult {
	requireRawAuthorizationKey(ctx);
	const { to, content } = checkTextSend(ctx, 'text');
	ctx.state.deliver('dashboard', to, content, ctx.seq);
	return {
		status: 200,
		body: {
			success: true,
			message: 'Message sent',
			details: { messages: [{ id: ctx.state.messageId('dsh_'), message_status: 'sent' }] },
		},
		outcome: 'delivered',
	};
}

export function alternativeSend(ctx: ApiContext): ApiResult {
	requireXApiKey(ctx);
	const { to, content } = checkTextSend(ctx, 'message');
	ctx.state.deliver('alternative', to, content, ctx.seq);
	return {
		status: 202,
		body: { success: true, id: `alt_${ctx.state.counter()}`, status: 'queued', to },
		outcome: 'delivered',
	};
}
