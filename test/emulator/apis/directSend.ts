/**
 * Direct send: POST {sendBaseUrl}/send, body {phone, text, attachment?, filename?}.
 *
 * Each of the ten error conditions of spec part 7 has its own reason text; the node maps
 * reasons to hints by keywords, so the texts are kept recognisable. Checks run in this
 * order: auth (1 of 4), body, phone (1), text, attachment (3, 9), subscription (6),
 * credits (5), recipient on platform (10), per-number limit (2), unique numbers (8).
 * Condition 7 (rate limit) is the fault layer's.
 */
import { ApiError } from '../errors';
import { isAcceptedMedia, isE164, isNonEmptyString, isPublicUrl, parseAttachmentUrl } from '../validation';
import { accountProblem, forbidSending, requireBearer, requireJsonObject, type ApiContext, type ApiResult } from './shared';

const rejected = (status: number, reason: string) => new ApiError(status, 'SEND_FAILED', reason);

export function directSend(ctx: ApiContext): ApiResult {
	forbidSending(requireBearer(ctx));
	const { phone, text, attachment, filename } = requireJsonObject(ctx);

	if (!isE164(phone)) throw rejected(400, 'Invalid phone number, it must be in E.164 format');
	if (!isNonEmptyString(text)) throw rejected(400, 'Text is required');
	if (filename !== undefined && typeof filename !== 'string') throw rejected(400, 'Filename must be a string');

	// null counts as "no attachment"; anything else (even '') must be a usable URL.
	if (attachment !== undefined && attachment !== null) {
		const url = parseAttachmentUrl(attachment);
		const declared = typeof attachment === 'string' ? ctx.state.attachments.get(attachment) : undefined;
		if (!url || !isPublicUrl(url) || declared?.reachable === false) {
			throw rejected(400, 'Attachment URL is not public or not accessible');
		}
		if (!isAcceptedMedia(url, filename, declared?.bytes)) throw rejected(400, 'File size or type not accepted');
	}

	const { state } = ctx;
	const problem = accountProblem(state);
	if (problem === 'subscription-expired') throw rejected(403, 'Subscription expired');
	if (problem === 'no-credits') throw rejected(403, 'Insufficient credits, account balance too low');
	if (state.account.notOnPlatform.has(phone)) {
		throw rejected(400, 'Recipient has no active account on the messaging platform');
	}
	if (state.deliveriesTo(phone) >= state.account.perNumberLimit) {
		throw rejected(400, 'Message limit for this number reached');
	}
	if (state.deliveriesTo(phone) === 0 && state.uniqueRecipients >= state.account.uniqueNumberLimit) {
		throw rejected(403, 'Unique number limit reached');
	}

	// The attachment is part of what was sent: same text with another file is not a duplicate.
	const content = typeof attachment === 'string' ? `${text} [attachment: ${attachment}]` : text;
	state.deliver('send', phone, content, ctx.seq);
	return { status: 200, body: { message: 'Message sent successfully' }, outcome: 'delivered' };
}
