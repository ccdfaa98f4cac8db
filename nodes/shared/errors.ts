import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ServiceApi } from './transport/apis';

type Failure = NonNullable<ConstructorParameters<typeof NodeApiError>[2]>['failure'];

/** What the service said went wrong, from any of the four error bodies of spec part 7. */
export interface ServiceFailure {
	reason: string;
	code?: string;
	details?: string;
	/** The service gave no words: `reason` is the node's own ("The service reported an error"). */
	unexplained?: true;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Terminal escapes, control characters and direction overrides: in a service's words they would
 * recolour a log, forge a line of it, or make the message read backwards in the editor.
 */
const isUnprintable = (code: number) =>
	code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);

/** `value` as one line: a terminal escape ("ESC [ 31 m") dropped whole, anything else unprintable a space. */
export function oneLine(value: string): string {
	let line = '';
	for (let i = 0; i < value.length; i++) {
		const code = value.charCodeAt(i);
		if (code === 0x1b && value[i + 1] === '[') {
			let end = i + 2;
			while (end < value.length && /[0-9;?]/.test(value[end])) end++;
			while (end < value.length && value.charCodeAt(end) >= 0x20 && value.charCodeAt(end) <= 0x2f) end++;
			i = end; // its final character goes with it
			continue;
		}
		line += isUnprintable(code) ? ' ' : value[i];
	}
	return line.replace(/\s+/g, ' ').trim();
}

/** A service's words as one clean line, or undefined when there are none. */
const text = (value: unknown): string | undefined => {
	if (typeof value !== 'string') return undefined;
	const clean = oneLine(value);
	return clean === '' ? undefined : clean;
};

/** An error code as text: its words, or its number. */
const codeText = (value: unknown): string | undefined => text(value) ?? (typeof value === 'number' ? String(value) : undefined);

/** The service's words, or when it gave none the node's own `fallback`, marked as such. */
const saidOr = (words: string | undefined, fallback: string): ServiceFailure =>
	words !== undefined ? { reason: words } : { reason: fallback, unexplained: true };

/**
 * The words of a refusal in none of the service's four error bodies (spec 7), as a gateway or a
 * framework in front of it writes one: RFC 9457 problem details (`title`, `detail`), a list of
 * errors (`errors: [{message, code}]` or of texts), OAuth's `error_description`. Without them a 400
 * `{"errors": [{"code": "RATE_LIMITED", "message": "Too many requests"}]}` failed as "The service
 * reported an error", its words lost and its rate limit not waited out.
 */
function otherShapeFailure(body: Record<string, unknown>): ServiceFailure | undefined {
	const problem = titleAndDetails(text(body.title), text(body.detail) ?? text(body.error_description));
	if (problem !== undefined) return { reason: problem };
	if (!Array.isArray(body.errors)) return undefined;
	// The first entry with words, else the first with a code.
	const said = (entry: unknown) => (isObject(entry) ? (text(entry.message) ?? text(entry.detail)) : text(entry));
	const codeOf = (entry: unknown) => (isObject(entry) ? codeText(entry.code) : undefined);
	const entry = body.errors.find((one) => said(one) !== undefined) ?? body.errors.find((one) => codeOf(one) !== undefined);
	if (entry === undefined) return undefined;
	const code = codeOf(entry);
	return { ...saidOr(said(entry), 'The service reported an error'), ...(code !== undefined ? { code } : {}) };
}

/**
 * The service's own failure text, "Message sending failed | Reason: No credits" -> "No credits".
 * The spec gives it as "text like" that, so any text that begins with "Message sending failed"
 * is a failure, in any case; the reason is what follows a `|`, `.`, `:` or `-` (and "Reason:"),
 * else the whole text. A success text that mentions a reason or a failure further on stays a
 * success.
 */
const SERVICE_FAILURE_TEXT = /^\s*message sending failed\b/i;
const REASON_AFTER = /^\s*message sending failed\s*[|.:-]\s*(?:reason\s*:\s*)?(.*)$/is;

/** The reason of the service's failure text, or undefined when `message` is not that text. */
function failureText(message: string | undefined): ServiceFailure | undefined {
	if (message === undefined || !SERVICE_FAILURE_TEXT.test(message)) return undefined;
	return { reason: text(REASON_AFTER.exec(message)?.[1]) ?? message };
}

/**
 * Reads a response body as a failure, or undefined when it reports success. Covers
 * `{message}` (direct send), `{error: {code, message}}` (template send, list templates),
 * `{success: false, message, details}` (dashboard), `{error: <int>, message}` (sandbox), and a
 * 2xx body that still says `success: false` or "Message sending failed".
 */
export function readFailure(body: unknown, httpFailed: boolean): ServiceFailure | undefined {
	if (isObject(body)) {
		const message = text(body.message);
		const failed = failureText(message);
		if (failed) return failed;
		if (isObject(body.error)) {
			const nested = body.error;
			return {
				...saidOr(text(nested.message) ?? message, 'The service reported an error'),
				code: codeText(nested.code),
			};
		}
		if (typeof body.error === 'number' || typeof body.error === 'string') {
			// OAuth's `{error: "invalid_token", error_description: "The access token expired"}` too.
			const failure = saidOr(message ?? text(body.error_description) ?? text(body.error), 'The service reported an error');
			// `{error: "Insufficient credits"}`: the text is the reason, not also its code.
			return { ...failure, ...(String(body.error) !== failure.reason ? { code: String(body.error) } : {}) };
		}
		if (body.success === false) return saidOr(titleAndDetails(message, text(body.details)), 'The service reported a failure');
		if (!httpFailed) return undefined;
		const said = message ?? text(body.details);
		return said !== undefined ? { reason: said } : (otherShapeFailure(body) ?? saidOr(undefined, 'The service reported an error'));
	}
	if (!httpFailed) return undefined;
	return saidOr(text(body), 'The service answered with an error and no explanation');
}

/** `false`, or the text "false" that some services send instead. */
const says = (value: unknown, word: boolean) => value === word || (typeof value === 'string' && value.trim().toLowerCase() === String(word));
const saysFalse = (value: unknown) => says(value, false);

/**
 * An `error` field that says an error happened, as its code: a number other than 0, `true`, or a
 * text other than "", "0" and "false" (what services put next to a success to say "no error").
 * The sandbox's documented `{error: <integer>, message}` is one of these.
 */
function errorFlag(value: unknown): { code?: string } | undefined {
	if (value === true) return {};
	if (typeof value === 'number') return value !== 0 && !Number.isNaN(value) ? { code: String(value) } : undefined;
	const flag = text(value);
	if (flag === undefined || NO_ERROR_WORDS.has(flag.toLowerCase())) return undefined;
	return { code: flag };
}

/** What services put in an `error` field to say there was none. */
const NO_ERROR_WORDS = new Set(['0', 'false', 'none', 'null', 'nil', 'no', 'ok', 'n/a']);

/** Whether a body says `success: true` (or "true"). */
export const saysTrue = (body: unknown): boolean => isObject(body) && says(body.success, true);

/** Statuses with which an answer says the message was not sent (the alternative send's answer is not documented). */
const FAILED_STATUSES = new Set(['failed', 'failure', 'error', 'rejected', 'undelivered']);

/** Whether `value` is a status among `statuses`, in any letter case. */
export const statusIn = (statuses: ReadonlySet<string>, value: unknown): boolean => typeof value === 'string' && statuses.has(value.trim().toLowerCase());

/**
 * APIs whose answer may be a result text and nothing more: the direct send's `{message}` (spec
 * 2.2), and the alternative send, whose answer the spec does not show (a 200 "Insufficient
 * credits" there was reported as sent, outside review). Their text is weighed for what it says.
 */
const TEXT_RESULTS: ReadonlySet<ServiceApi> = new Set(['send', 'alternative']);

/**
 * APIs whose 2xx text is weighed for a failure it names: TEXT_RESULTS, and the dashboard's
 * `message` beside its `success: true` (spec 2.6): "Insufficient credits" there was reported sent
 * (outside review), where the service's own failure form said both. Beside `success: true` such an
 * answer says both: not sent again.
 */
const WEIGHED_TEXTS: ReadonlySet<ServiceApi> = new Set([...TEXT_RESULTS, 'dashboard']);

/** APIs whose 2xx answer the spec does not give (the alternative send) or gives as no body (a sandbox delete): a `status` there is the only word. */
const STATUS_SPEAKS: ReadonlySet<ServiceApi> = new Set(['alternative', 'sandbox']);

/**
 * APIs whose answer lists a status for each message (spec 2.4's and 2.6's `message_status`, whose
 * values are not shown): one of FAILED_STATUSES for every message is a failure, whatever else the
 * answer says (the alternative send's and the sandbox's receipts too, where a status speaks).
 */
const RECEIPTS_SPEAK: ReadonlySet<ServiceApi> = new Set([...STATUS_SPEAKS, 'templateSend', 'dashboard']);

/**
 * Whether a 2xx answer says it failed. The contract makes any of the four error bodies of spec
 * part 7, or `success: false`, a failure whatever the status, and a service does not keep each
 * API to its own error body, so every API is read for all of them: the service's failure text
 * ("Message sending failed | Reason: ..."), an `error` object, an `error` flag (a number other
 * than 0, `true`, a text other than "0" or "false"), or `success: false` (or "false"). Never by
 * the words of a success: a direct-send text that mentions credits or a reason stays a success,
 * and an extra `error: 0`, `""`, `null` or `false` is not a failure. An alternative-send or
 * sandbox `status` of "failed" or "error" is one too.
 */
export function readFailureOfSuccess(api: ServiceApi, body: unknown): ServiceFailure | undefined {
	// The sandbox's error body wrapped in a list (`[{"error": 404, "message": "Plant not found"}]`): a list of nothing but errors.
	if (api === 'sandbox' && Array.isArray(body) && body.length > 0) {
		const failures = body.map((element) => readFailureOfSuccess(api, element));
		return failures.every((failure) => failure !== undefined) ? failures[0] : undefined;
	}
	if (!isObject(body)) return undefined;
	const message = text(body.message);
	const details = text(body.details);
	const failed = failureText(message);
	if (failed) return failed;
	// An error object that says nothing (`error: {}`, `{code: null, message: null}`) beside a success
	// is the "no error" some services always send, as `error: 0` is.
	const nested = isObject(body.error) ? body.error : undefined;
	const nestedCode = nested && errorFlag(nested.code)?.code;
	if (nested && (text(nested.message) !== undefined || nestedCode !== undefined)) {
		return { ...saidOr(text(nested.message) ?? message ?? details, 'The service reported an error'), ...(nestedCode ? { code: nestedCode } : {}) };
	}
	const flag = errorFlag(body.error);
	if (flag) {
		// A text flag with no message is the reason itself ("Insufficient credits"), not also its
		// code; a number ("404") is only a code.
		const failure = saidOr(message ?? details ?? (flag.code !== undefined && !/^\d+$/.test(flag.code) ? flag.code : undefined), 'The service reported an error');
		return { ...failure, ...(flag.code && flag.code !== failure.reason ? { code: flag.code } : {}) };
	}
	if (saysFalse(body.success) || saysFalse(body.ok)) return saidOr(titleAndDetails(message, details), 'The service reported a failure');
	if (STATUS_SPEAKS.has(api) && statusIn(FAILED_STATUSES, body.status)) {
		return { reason: message ?? details ?? text(body.reason) ?? `The service answered status "${String(body.status).trim()}"` };
	}
	// A receipt that says its message failed is that failure (outside review: `{"messages": [{"id":
	// "a1", "status": "failed", "error": "invalid number"}]}` was reported sent). Also beside a
	// `success: true` (the dashboard's and the template send's `message_status` "failed", outside
	// review): the answer then says both, and the message is not sent again.
	const receipts = RECEIPTS_SPEAK.has(api) ? receiptsOf(body) : [];
	if (receipts.length > 0 && receipts.every(failedReceipt)) {
		const [first] = receipts as Array<Record<string, unknown>>;
		const status = text(first.status) ?? text(first.message_status);
		const own = isObject(first.error) ? text(first.error.message) : text(first.error);
		return { reason: own ?? text(first.message) ?? message ?? (status !== undefined ? `The service answered status "${status.trim()}"` : 'The service reported an error') };
	}
	// The direct send's failure form further on ("Error: Message sending failed | ...", "Message not
	// sent. Reason: ..."), in a text that does not plainly say the message went before its reason: the
	// reason is the failure. Should the text also say the message went, the answer says both
	// (saysDone): may have been delivered, not sent again.
	if (WEIGHED_TEXTS.has(api) && message !== undefined && FAILURE_MENTIONED.test(message) && !plainlySent(beforeReason(message))) return { reason: text(REASON_OF.exec(message)?.[1]) ?? message };
	// A result text that denies the message went ("Message not sent"), names a failure beside saying
	// it went ("Message sent failed: insufficient credits": then it says both, saysDone), or names a
	// failure and never says it went ("Insufficient credits", "Unable to send"): that failure, though a 2xx.
	if (WEIGHED_TEXTS.has(api) && message !== undefined) {
		const said = straight(message);
		const cleared = withoutNoneFailed(said);
		const fails = HAS_SENT_WORD.test(said)
			? !claimsSent(withoutNoneSent(said)) || FAILURE_WORDS.test(cleared)
			: FAILURE_WORDS.test(cleared) || AGAINST.test(cleared) || (!TAKEN_WORDS.test(cleared) && NOT_DONE_WORDS.test(cleared)) || NAMED_CONDITIONS.has(classifyFailure(said));
		if (fails) return { reason: message };
	}
	return undefined;
}

const FAILURE_MENTIONED = /message sending failed|[|.:\-–]\s*reason\s*:/i;
/** The service's failure form anywhere in a text (SERVICE_FAILURE_TEXT: a text that begins with it). */
const SERVICE_FAILURE_FORM = /message sending failed/i;
const REASON_OF = /\breason\s*:\s*(.*)$/is;
const beforeReason = (message: string) => message.split(/\breason\s*:/i)[0];

/**
 * Reading a direct send's result text (spec 2.2: success and failure are both `{message}`; only
 * "Message sending failed | Reason: ..." is given). Words can be weighed only so far, so each rule
 * errs to the safe side: a text is a plain success only with a word that says the message went
 * and no word against it; it denies only with a denial right before that word ("couldn't be
 * sent"); anything between says both, and is not sent again.
 */
const SENT_WORD = /\b(?:sent|delivered|queued|success(?:ful(?:ly)?)?)\b/gi;
/** SENT_WORD for a test: a global pattern keeps where its last match ended. */
const HAS_SENT_WORD = new RegExp(SENT_WORD.source, 'i');
const AGAINST = /\b(?:no|not|never|neither|nor|cannot|unable|fail\w*|false|error|unsuccessful)\b|n't\b/i;
/**
 * A count of none sent ("0 messages sent", "No messages were sent", "Nothing sent", "Sent: 0",
 * "Sent 0 messages", "0/1 messages sent"): no claim that the message went, though its words name
 * sending (set aside before one is looked for); alone, the answer says both (not sent again). Of
 * sending only: none delivered yet ("0 delivered, 1 pending") is what a fresh send says.
 */
const NONE_SENT =
	/\b(?:0|zero|no|none|nothing)\s+(?:of\s+(?:\d+\s+)?)?(?:[\w()]+\s+){0,2}(?:(?:was|were|has been|have been)\s+)?sent\b|\bsent(?:\s+successfully)?\s*[:=]\s*(?:0|none|no|false)\b|\b(?:successfully\s+)?sent\s+(?:0|zero|none)\b(?:\s*(?:of|\/)\s*\d+)?|\b0\s*\/\s*\d+\s+(?:[\w()]+\s+){0,2}sent\b/gi;
const TAKEN_WORDS = /\b(?:accepted|pending|queued|submitted|scheduled|processing)\b/i;

/**
 * The text without its counts of none sent, for a claim that the message went: with one, only a
 * word of sending counts ("Sent: 1, Queued: 0"); a success word is the request's ("Request
 * processed successfully. 0 messages sent", "0 messages sent successfully").
 */
const withoutNoneSent = (said: string): string => {
	// None sent yet beside a message taken ("Message accepted, 0 sent so far, 1 pending") is a success.
	if (TAKEN_WORDS.test(said)) return said;
	const rest = said.replace(NONE_SENT, ' ');
	return rest === said || /\b(?:sent|delivered|queued)\b/i.test(rest) ? rest : '';
};
const DENIAL_BEFORE = /(?:\b(?:not|never|cannot)\s+|n't\s+|\b(?:fail(?:ed|s)?|unable)\s+to\s+)(?:(?:yet|have|has|had|be|been|being)\s+)*$/i;
const straight = (message: string) => message.replace(/[\u2018\u2019\u02bc]/g, "'");
/**
 * Words that name a failure on their own ("Insufficient credits", "Invalid phone number",
 * "Subscription expired"): not a bare "no" or "not", which a success uses too ("Message accepted,
 * no errors", "Do not reply to this number").
 */
const FAILURE_WORDS =
	/\b(?:error|fail\w*|false|unsuccessful\w*|wrong|invalid|denied|refused|rejected|declined|insufficient|expired|exceeded|blocked|limit reached|too many|nothing to send)\b/i;
/**
 * Words that say a message was not carried out, in a text that never says it went nor was taken
 * (outside review: a 200 "Service Unavailable", "Account suspended", "Recipient opted out" or
 * "phone is required" was reported as sent). Only there: beside a word of sending or taking they
 * may describe something else ("Message sent. Delivery may be delayed by maintenance", "Accepted
 * for delivery. Undeliverable messages are refunded").
 */
const NOT_DONE_WORDS =
	/\b(?:unavailable|suspended|undeliverable|blacklisted|blocklisted|banned|spam|timed out|timeout|overloaded|exception|maintenance|try again|opted[ -]out|unsubscribed|bad gateway|gateway time-?out|queue (?:is )?full|cancel(?:l)?ed|dropped|discarded|ignored|(?:is|are) required|missing|forbidden|unauthori[sz]ed|not allowed)\b/i;

/**
 * What a success says of failures it did not have, or of nothing it asks ("Sent: 1, Failed: 0",
 * "0 errors", "Invalid numbers skipped: 0", "error-free", "no charge", "Do not reply"): set aside
 * before words against the message are looked for.
 */
const NONE_FAILED =
	/\b(?:0|no|zero|without(?:\s+any)?)\s+(?:\w+\s+)?(?:errors?|fail\w*|issues?|problems?)\b|\b(?:errors?|fail\w*)\s*[:=]\s*(?:0|none|null|false)\b|\b(?:\w+\s+){0,3}\w+\s*[:=]\s*(?:0|none)\b|\berror[-\s]free\b|\bno charge\b|\b(?:do not|don't) reply\b/gi;
const withoutNoneFailed = (said: string) => said.replace(NONE_FAILED, ' ');
/** Spec part 7's conditions whose words a success would not use ("Message limit for this number reached"); not a phone, an attachment or credits, which it may name. */
const NAMED_CONDITIONS: ReadonlySet<string> = new Set(['numberLimit', 'uniqueNumbers', 'rateLimit', 'subscription', 'fileType', 'notOnPlatform', 'authentication']);
const namesFailure = (said: string) => FAILURE_WORDS.test(withoutNoneFailed(said));

/** Says what `word` names (that the message went, that a record was deleted), and nothing against it; `said` is straightened. */
const plainlySays = (word: RegExp, said: string) => word.test(said) && !AGAINST.test(said);

/** Says the message went, and nothing against it. */
const plainlySent = (message: string) => plainlySays(HAS_SENT_WORD, straight(message));

/** A confirmation in words: says what `word` names, nothing against it, and no failure nor anything left undone ("Plant not found", "Service unavailable"). */
export const confirmsInWords = (word: RegExp, message: string) => {
	const said = straight(message);
	return plainlySays(word, said) && !namesFailure(said) && !NOT_DONE_WORDS.test(said);
};

/** Says somewhere that the message went, in words no denial stands right before. */
const claimsSent = (message: string) => {
	const said = straight(message);
	// The few words before each (a denial is short): a 64 KB answer of "not sent not sent ..." stays linear.
	for (const word of said.matchAll(SENT_WORD)) if (!DENIAL_BEFORE.test(said.slice(Math.max(0, word.index - 48), word.index))) return true;
	return false;
};

/**
 * Whether a 2xx answer says the request was carried out: `success: true`, or for the direct send
 * (whose success and failure are both `{message}`, spec 2.2) a result text that claims the message
 * went: judged before the reason when it holds the service's failure form (the reason's words are
 * the reason's: "| Reason: too many messages sent"), else over the whole text. Beside a failure,
 * such an answer says both (see attempt.ts).
 */
export const saysDone = (api: ServiceApi, body: unknown): boolean => {
	if (saysTrue(body)) return true;
	const message = TEXT_RESULTS.has(api) && isObject(body) ? text(body.message) : undefined;
	if (message === undefined || SERVICE_FAILURE_TEXT.test(message)) return false;
	return claimsSent(SERVICE_FAILURE_FORM.test(message) ? beforeReason(message) : message);
};

/** An entry's `error` that says one happened (not the `null`, `0`, `""` or `{}` a serializer writes for none). */
const entryError = (error: unknown) => (isObject(error) ? text(error.message) !== undefined || errorFlag(error.code) !== undefined : errorFlag(error) !== undefined);

/** An entry of a send's result list that says its message failed: an error, or a status that says so. */
const failedReceipt = (entry: unknown): boolean =>
	isObject(entry) && (entryError(entry.error) || statusIn(FAILED_STATUSES, entry.status) || statusIn(FAILED_STATUSES, entry.message_status));

/** A send's own result lists: spec 2.4's and 2.6's, and a bare `messages`. */
const resultLists = (body: Record<string, unknown>): unknown[] => [
	isObject(body.messaging_response_info) ? body.messaging_response_info.messages : undefined,
	isObject(body.details) ? body.details.messages : undefined,
	body.messages,
];

/** The entries of a send's result lists, and a `data` object (how an undocumented API may write its one receipt). */
function receiptsOf(body: Record<string, unknown>): unknown[] {
	return [...resultLists(body).flatMap((list) => (Array.isArray(list) ? list : [])), ...(isObject(body.data) ? [body.data] : [])];
}

/** A message ID in a send's own result list (spec 2.4, 2.6): the service's receipt for a message, which no error body carries. */
function hasMessageId(body: Record<string, unknown>): boolean {
	// An entry with an error, or a status that says it failed, is a refusal's, not a receipt.
	const receipt = (entry: unknown) => isObject(entry) && (text(entry.id) !== undefined || typeof entry.id === 'number') && !failedReceipt(entry);
	return resultLists(body).some((list) => Array.isArray(list) && list.some(receipt));
}

/** Statuses with which an answer says the message was taken (where a `status` speaks: STATUS_SPEAKS). */
export const TAKEN_STATUSES = new Set(['sent', 'queued', 'accepted', 'delivered', 'submitted', 'success', 'succeeded']);

/**
 * Whether an answer that reads as a failure (below 500) also says the message went, so that it
 * says both and may have been carried out: `success: true` (or `ok: true`); a message ID in the
 * send's own result list; a `status` that says it was taken, where a status speaks; or a text that
 * plainly says it went, names no failure and no rate limit, and holds no "only" ("Message sent
 * successfully" beside `success: false`, or in a 400, whatever it names besides: a phone, an
 * attachment, credits remaining). A 401 or 403 keeps its meaning whatever its words say
 * ("messages can only be sent with a valid token"), and a 429 unless they say this very message
 * went ("you have sent 30 messages" is waited out). A direct send's 2xx text is weighed as
 * saysDone does.
 */
export function alsoSaysSent(api: ServiceApi, body: unknown, status: number): boolean {
	// 202 Accepted: the request was taken for processing (RFC 9110 15.3.3), whatever its body says.
	if (saysTrue(body) || status === 202) return true;
	if (!isObject(body)) return false;
	if (says(body.ok, true) || hasMessageId(body)) return true;
	if (STATUS_SPEAKS.has(api) && statusIn(TAKEN_STATUSES, body.status)) return true;
	const message = text(body.message);
	if (message === undefined) return false;
	const said = straight(message);
	// A 2xx saying this very message was taken, whatever else it says ("Message accepted. Rate limit
	// exceeded for the next minute.": taken for a rate refusal, it was waited out and sent 19 times
	// in a minute, outside review).
	if (status < 300 && THIS_MESSAGE_SENT.test(said)) return true;
	if (TEXT_RESULTS.has(api) && status < 300) return saysDone(api, body);
	if (status === 401 || status === 403) return false;
	// A 429, or a refusal naming a condition of spec part 7 that a success would not (a rate limit,
	// the number's limit), says both only when it says this very message went ("Message sent. Per
	// minute limit now reached.": taken for a rate refusal, it was sent 7 times, in a 400 and in a
	// 429 alike); a count of messages sent before ("You have sent 30 messages", "50 messages sent
	// today") speaks of others.
	// Read on the answer as it came (a line break ends a sentence there), before the reason of the
	// service's failure form: "Message sending failed | Reason: max 1 message sent per second" did not go.
	if (status === 429 || NAMED_CONDITIONS.has(classifyFailure(said))) {
		const raw = straight(String(body.message));
		return THIS_MESSAGE_SENT.test(SERVICE_FAILURE_FORM.test(raw) ? beforeReason(raw) : raw);
	}
	return plainlySays(HAS_SENT_WORD, said) && !namesFailure(said) && !/\bonly\b/i.test(said);
}

/**
 * "Message sent", "Your WhatsApp message was delivered", "OK, message sent", "Message accepted", at the start of the
 * text or of a clause, after at most two words that do not make it another message: not "the next
 * message is sent", "no new message sent", "wait a second before the next message is sent",
 * "Message sent rate exceeded", "Message sent too soon", "message sent to this number too often",
 * "max 1 message sent per second", "Message sent limit per minute exceeded".
 */
const THIS_MESSAGE_SENT =
	/(?:^|[.!;:,|\n\r\-\u2013]\s*)(?:(?!(?:next|last|previous|new|further|no|another|each|every|any|other|max|maximum|one|a|\d+)\b)[\w']+\s+){0,2}message\s+(?:(?:was|has\s+been|is)\s+)?(?:successfully\s+)?(?:sent|delivered|queued|accepted|scheduled|submitted)\b(?!\s+(?:rate|too|to\s+this\s+number\s+too|per|limit|limits|quota|count|cap)\b)/i;

/** The conditions spec part 7 lists, with what a user can do about each. */
type FailureKind =
	| 'invalidPhone'
	| 'numberLimit'
	| 'attachment'
	| 'authentication'
	| 'credits'
	| 'subscription'
	| 'rateLimit'
	| 'uniqueNumbers'
	| 'fileType'
	| 'notOnPlatform'
	| 'other';

interface KindInfo {
	hint: string;
	/** Later items of the run cannot succeed either, so they fail without calling the service. */
	stopsRun: boolean;
	failure?: Failure;
}

export const FAILURE_KINDS: Record<FailureKind, KindInfo> = {
	invalidPhone: {
		hint: 'Check the number: international E.164 format with the country code, e.g. +14155550123.',
		stopsRun: false,
	},
	numberLimit: {
		hint: 'This recipient reached the message limit for one number. Wait before messaging them again or raise the limit in your account.',
		stopsRun: false,
		failure: { cause: 'quota-exhausted' },
	},
	attachment: {
		hint: 'The attachment URL must be public and reachable without login (no localhost or private links). Open it in a private browser window to check.',
		stopsRun: false,
	},
	authentication: {
		hint: 'The token or key was refused. Create a new one in the API section of your account dashboard and update the credential.',
		stopsRun: true,
		failure: { cause: 'credential-invalid' },
	},
	credits: {
		hint: 'Your account balance is too low. Top up credits in the account dashboard, then run the workflow again.',
		stopsRun: true,
		failure: { cause: 'quota-exhausted' },
	},
	subscription: {
		hint: 'Your subscription has expired. Renew it in the account dashboard, then run the workflow again.',
		stopsRun: true,
		failure: { cause: 'configuration-invalid' },
	},
	rateLimit: {
		hint: 'Your plan limits the requests (messages, and the calls that read or change data) the service takes per minute or hour. The node waits for a per-minute limit by itself. For an hourly limit, set Max Wait to 3600 in the node options so the run waits for it, or spread the requests: Max Requests Per Minute = your hourly limit / 60. Re-run only the items listed as not sent.',
		stopsRun: false,
		failure: { cause: 'rate-limited' },
	},
	uniqueNumbers: {
		hint: 'Your plan allows no more distinct recipients. Message numbers you already reached, or upgrade the plan.',
		stopsRun: false,
		failure: { cause: 'quota-exhausted' },
	},
	fileType: {
		hint: 'The file is too large or of a type the service does not take. Accepted: images .jpeg/.png up to 5 MB, videos .mp4/.3gp up to 16 MB, documents .pdf/.doc/.xls/.ppt/.txt up to 100 MB, audio .mp3/.aac/.m4a/.ogg up to 16 MB.',
		stopsRun: false,
	},
	notOnPlatform: {
		hint: 'The recipient has no active account on the messaging platform. Use another channel for this contact.',
		stopsRun: false,
	},
	other: { hint: '', stopsRun: false },
};

/** Words of a key or token refused: a reason that names them is about the credential, never about a recipient. */
const CREDENTIAL_WORDS = String.raw`\b(?:token|api[ _-]?key|key|credentials?|api|authenticat\w*|unauthori[sz]ed|authori[sz]ed|forbidden)\b`;

// Order matters: the more specific wording is tested first ("unique number limit" before
// "limit for this number", "file size" before "attachment", and one recipient's limit before
// the account's rate: "Message limit for this number reached (50 per hour)" names a period, but
// it is spec part 7 condition 2, which fails that item only, not condition 7, which pauses the
// account).
const KIND_PATTERNS: Array<[FailureKind, RegExp]> = [
	['uniqueNumbers', /unique (phone )?(numbers?|recipients?|contacts?)/i],
	['fileType', /file (size|type)|size or type|unsupported (file|media)|media type|too large/i],
	['credits', /credit|balance/i],
	['subscription', /subscription|plan (has )?expired/i],
	['numberLimit', /limit( \w+)? for (this|the|that|each|one|a) (phone )?(number|recipient)|per[ -](phone )?(number|recipient)|(number|recipient)(['’]s)? (message |daily |hourly )?limit/i],
	['rateLimit', /rate.?limit|too many (requests|messages)|per (minute|hour)|throttl/i],
	// A "message limit" that names neither a number nor a period: one recipient's, as before.
	['numberLimit', /message limit/i],
	// Tested before authentication, so never on a text that names the key or token ("not an authorized user", "API key not registered").
	[
		'notOnPlatform',
		new RegExp(
			String.raw`^(?!.*${CREDENTIAL_WORDS}).*(?:no active account|(?:does not|doesn't|do not|don't) have an? (?:active )?account|not on (?:the )?(?:messaging )?platform|not registered|not an? (?:(?:active|registered|valid|existing|messaging|platform) )*user)`,
			'is',
		),
	],
	['attachment', /attachment|not public|not accessible|unreachable/i],
	[
		'authentication',
		/authenticat|unauthori[sz]ed|not (an? )?authori[sz]ed|invalid (api )?(token|key)|(token|key) (is )?(invalid|wrong|expired|missing|revoked|unknown|not (valid|registered|recogni[sz]ed))|(token|api[ _-]?key)\b.{0,40}(not registered|no (active )?account|(does not|doesn't) have an? (active )?account)|forbidden/i,
	],
	['invalidPhone', /phone|e\.?164|invalid (recipient|number)/i],
];

/** The condition `words` name, if any (the first of KIND_PATTERNS that matches). */
function kindNamedBy(words: string): FailureKind | undefined {
	for (const [kind, pattern] of KIND_PATTERNS) if (pattern.test(words)) return kind;
	return undefined;
}

/** An error code read as words: `RATE_LIMITED` as "RATE LIMITED", `tooManyRequests` as "too Many Requests". */
const codeWords = (code: string) => code.replace(/[_.-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');

/**
 * The condition a code names: a token that starts with a letter (`RATE_LIMITED`, `invalid_token`,
 * also as a whole reason: `{"error": "too_many_requests"}`), or words where a code stands (an
 * `error` text "Insufficient credits" beside the message "Request failed"); a number is a status,
 * not a word.
 */
const codeNamed = (code: string | undefined): FailureKind | undefined =>
	code !== undefined && /^[a-z][\w. -]*$/i.test(code) ? kindNamedBy(codeWords(code)) : undefined;

/**
 * The condition a reason names, by its words first: a recognised reason wins over the status, so a
 * 403 "Recipient does not have an active account" fails that item only, and a 429 "Message limit
 * for this number reached" is one recipient's limit, not the account's rate. Then the service's
 * error code, which is its word too: a 400 `{error: {code: "RATE_LIMITED", message: "Request
 * refused"}}` is its rate limit (spec 7: the values of error.code are not shown, so a code is read
 * as words, not matched to a list). Only a reason and a code that name nothing fall back on the
 * status (401/403 the key refused, 402 the credits, 429 the account's rate).
 */
export function classifyFailure(reason: string, status?: number, code?: string): FailureKind {
	const named = kindNamedBy(reason) ?? codeNamed(reason) ?? codeNamed(code);
	if (named) return named;
	if (status === 401 || status === 403) return 'authentication';
	// 402 Payment Required: the account's balance (spec 7, condition 5), which no later item gets past.
	if (status === 402) return 'credits';
	if (status === 429) return 'rateLimit';
	return 'other';
}

/** The condition a failure as read names: its words (none when the node made them up), its code, its status. */
export const kindOfFailure = (failure: ServiceFailure, status?: number): FailureKind =>
	classifyFailure(failure.unexplained ? '' : failure.reason, status, failure.code);

interface ServiceErrorInput {
	status?: number;
	failure: ServiceFailure;
	itemIndex: number;
	/** Extra words for the description, after the hint. */
	note?: string;
	/** The body the service sent, kept on the error for "details" (never request headers). */
	body?: unknown;
	kind?: FailureKind;
	retryAfterMs?: number;
	/** Words after the service's in the message: what a send that may have been carried out may have done. */
	messageSuffix?: string;
	/** The request was not a read and may have been carried out (a 5xx after it was written): its hint does not say to try again. */
	mayHaveActed?: boolean;
}

/** A failure the service reported, as the NodeApiError n8n shows: reason, hint, HTTP code. */
export function serviceError(node: INode, input: ServiceErrorInput): NodeApiError {
	const kind = input.kind ?? classifyFailure(input.failure.reason, input.status);
	const info = FAILURE_KINDS[kind];
	const code = input.failure.code ? ` (code ${input.failure.code})` : '';
	// A send that may have been carried out is not to be tried again, by the user or by Retry Sends
	// After Server Errors once more: its hint does not say to (an AI agent read "Try again later"
	// beside "may have been delivered" and sent it twice).
	const fallback = info.hint === '' && input.status !== undefined ? statusHint(input.status, input.mayHaveActed === true) : '';
	const description = [info.hint || fallback, input.failure.details ? `Details: ${input.failure.details}.` : '', input.note ?? '']
		.filter((part) => part !== '')
		.join(' ');
	let failure = info.failure;
	if (failure?.cause === 'rate-limited' && input.retryAfterMs !== undefined) {
		failure = { cause: 'rate-limited', retryAfterMs: input.retryAfterMs };
	}
	const body: JsonObject = isObject(input.body) ? (input.body as JsonObject) : { message: input.failure.reason };
	return new NodeApiError(node, body, {
		message: `${input.failure.reason}${code}${input.messageSuffix ?? ''}`,
		description: description || undefined,
		httpCode: input.status !== undefined ? String(input.status) : undefined,
		itemIndex: input.itemIndex,
		failure,
	});
}

/** What a status alone tells a user to do, for a failure whose words name none of spec part 7's conditions. */
function statusHint(status: number, mayHaveActed: boolean): string {
	if (status >= 500) return `The service answered HTTP ${status}, an error on its side.${mayHaveActed ? '' : ' Try again later.'}`;
	if (status === 404) return 'The service answered HTTP 404: check the ID, and the base URL in the credential.';
	// Outside review: "The service answered HTTP 200." under a failure said nothing a user could act on.
	if (status === 409) return 'The service answered HTTP 409, a conflict with what it already holds (an ID already in use, for example): use another ID, or check what exists.';
	if (status === 400 || status === 422) return `The service answered HTTP ${status}: it did not take the request as sent. Check the item's values against its reason above.`;
	// An answer that says both (sent, and failed) is in doubt: no "did not do" beside "may have been delivered".
	if (status >= 200 && status < 300) {
		return mayHaveActed
			? `The service answered HTTP ${status} and reported a failure in the same answer.`
			: `The service answered HTTP ${status} but reported a failure: its reason above says what it did not do.`;
	}
	return `The service answered HTTP ${status}.`;
}

/** The dashboard's message is a title ("Unauthorized"); its details say why ("Invalid API key"). */
function titleAndDetails(message: string | undefined, details: string | undefined): string | undefined {
	return message && details && details !== message ? `${message}: ${details}` : (message ?? details);
}
