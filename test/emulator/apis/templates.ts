/**
 * Template APIs (both Bearer, both with `{error: {code, message}}` errors):
 * - GET  {templatesBaseUrl}/get_templates: every template record of the account;
 * - POST {templateSendBaseUrl}/send_template_message_by_api, body {template, variables, phone_number}.
 */
import { ApiError } from '../errors';
import { variableNamesOf } from '../fixtures';
import { isE164, isPlainObject } from '../validation';
import { accountProblem, forbidSending, requireBearer, requireJsonObject, type ApiContext, type ApiResult } from './shared';

/** The read-only token may list templates. Query parameters are ignored (no paging in the spec). */
export function listTemplates(ctx: ApiContext): ApiResult {
	requireBearer(ctx);
	return { status: 200, body: ctx.state.templates, outcome: 'ok' };
}

/**
 * Checks in order: auth, body, template known (TEMPLATE_NOT_FOUND) and APPROVED
 * (TEMPLATE_NOT_APPROVED), phone_number (INVALID_PHONE_NUMBER), variables
 * (INVALID_VARIABLES), subscription (403), credits (402). All validation errors are 400.
 */
export function sendTemplate(ctx: ApiContext): ApiResult {
	forbidSending(requireBearer(ctx));
	const { template: templateId, variables, phone_number: phone } = requireJsonObject(ctx);

	const template = ctx.state.templates.find((t) => t.template_id === templateId);
	if (!template) {
		const reason =
			typeof templateId === 'string' && templateId !== ''
				? `Template ${templateId} not found`
				: "'template' is required: the template_id (UUID) of one of the account's templates";
		throw new ApiError(400, 'TEMPLATE_NOT_FOUND', reason);
	}
	if (template.status !== 'APPROVED') {
		throw new ApiError(400, 'TEMPLATE_NOT_APPROVED', `Template ${template.name} is ${template.status}, not APPROVED`);
	}
	if (!isE164(phone)) {
		throw new ApiError(400, 'INVALID_PHONE_NUMBER', "'phone_number' must be in international E.164 format, e.g. +14155550123");
	}
	const values = checkVariables(variableNamesOf(template.template_formate), variables);

	const problem = accountProblem(ctx.state);
	if (problem === 'subscription-expired') throw new ApiError(403, 'SUBSCRIPTION_EXPIRED', 'Subscription expired');
	if (problem === 'no-credits') {
		throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'Insufficient credits, account balance too low');
	}

	// Sorted keys: the same values in another key order are the same message.
	const canonical = JSON.stringify(Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1))));
	ctx.state.deliver('templateSend', phone, `${template.template_id} ${canonical}`, ctx.seq);
	return {
		status: 200,
		body: {
			success: true,
			messaging_response_info: {
				contacts: [{ input: phone, wa_id: phone.slice(1) }],
				messages: [{ id: ctx.state.messageId('wamid.HBgL'), message_status: 'accepted' }],
				messaging_product: 'whatsapp',
			},
		},
		outcome: 'delivered',
	};
}

/**
 * `variables` must have exactly the template's variable names as keys, every value a
 * string. A template without variables also accepts a missing `variables`.
 */
function checkVariables(expected: readonly string[], variables: unknown): Record<string, string> {
	const invalid = (reason: string) => new ApiError(400, 'INVALID_VARIABLES', reason);
	if (variables === undefined && expected.length === 0) return {};
	if (!isPlainObject(variables)) {
		throw invalid(`'variables' must be an object with the keys: ${expected.join(', ') || '(none)'}`);
	}
	const given = Object.keys(variables);
	const missing = expected.filter((name) => !given.includes(name));
	const unknown = given.filter((name) => !expected.includes(name));
	const problems: string[] = [];
	if (missing.length) problems.push(`missing variables: ${missing.join(', ')}`);
	if (unknown.length) problems.push(`unknown variables: ${unknown.join(', ')}`);
	const notStrings = given.filter((name) => typeof variables[name] !== 'string');
	if (notStrings.length) problems.push(`values must be strings: ${notStrings.join(', ')}`);
	if (problems.length) throw invalid(`Invalid variables: ${problems.join('; ')}`);
	return variables as Record<string, string>;
}
