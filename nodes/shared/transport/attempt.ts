import { NodeApiError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { FAILURE_KINDS, alsoSaysSent, kindOfFailure, oneLine, readFailure, readFailureOfSuccess, serviceError } from '../errors';
import type { ServiceFailure } from '../errors';
import { discard, LIST_ANSWER_MAX_BYTES, parseScrubbed, readBody, SEND_ANSWER_MAX_BYTES, UnreadableBody, untilAborted } from './answer';
import type { Deadlines } from './answer';
import { SERVICE_APIS } from './apis';
import type { RequestContext, ServiceRequest } from './apis';
import type { RequestPolicy } from './options';
import type { LimitNotReopenedError } from './scheduler';
import { isCancellation } from './stops';
import { neverWritten, NOT_REACHED, outcomeOfThrown, parseRetryAfter, refusedCertificateOf, retryAfterGraceMs, tlsHandshakeFailureOf, undecodableAnswerOf } from './retryPolicy';
import type { AttemptOutcome } from './retryPolicy';
import { scrubText } from './secrets';
import type { Secrets } from './secrets';

/**
 * One try: the answer judged, or the error in its place. Never throws. The body is read here
 * (see answer.ts): one deadline of Timeout over headers and body, a cap on its size, and the
 * run's abandoning its requests ends the wait at once. The request itself gets no signal of
 * ours: in an execution n8n's helper puts the execution's cancel signal on it (a cancel closes
 * the connection), and the request's own Timeout closes one that never answered.
 */
export async function attemptOnce(
	attempt: Attempt,
	options: IHttpRequestOptions,
	credentials: ICredentialDataDecryptedObject,
	deadlines: Deadlines,
): Promise<Verdict> {
	const { context, request } = attempt;
	const credentialType = SERVICE_APIS[request.api].credentialType;
	// A send's answer is small, but may echo what was sent (a plant's name): room for that twice.
	const maxBytes = request.method === 'GET' ? LIST_ANSWER_MAX_BYTES : SEND_ANSWER_MAX_BYTES + 2 * JSON.stringify(request.body ?? '').length;
	const timer = deadlines.start(attempt.policy.timeoutMs);
	const ends = timer.signal;
	let response: IN8nHttpFullResponse | undefined;
	/** The status of an answer whose headers came, kept when its body then could not be read. */
	let status: number | undefined;
	let thrown: unknown;
	try {
		const sent = context.helpers.httpRequestWithAuthentication.call(context, credentialType, { ...options, encoding: 'stream', json: false }, {
			credentialsDecrypted: { id: '', name: '', type: credentialType, data: credentials },
		}) as Promise<IN8nHttpFullResponse>;
		const answered = await untilAborted(sent, ends, (late) => discard(late.body));
		if ('ended' in answered) throw answered.ended;
		if ('failed' in answered) throw answered.failed;
		response = answered.value;
		status = response.statusCode;
		const read = await readBody(response.body, maxBytes, ends, response.headers?.['content-type']);
		if (read.type === 'ended') throw read.reason;
		if (read.type === 'broken') throw read.error;
		// Scrubbed before anything reads it: keys and values alike, however deep.
		const body = read.type === 'tooLarge' ? new UnreadableBody(`larger than ${sizeOf(read.maxBytes)}; not read`) : parseScrubbed(read.text, attempt.secrets);
		response = { ...response, body: body as IN8nHttpFullResponse['body'] };
	} catch (error) {
		response = undefined;
		thrown = error;
	} finally {
		timer.clear();
	}
	if (deadlines.signal.aborted) return { type: 'failed', error: abandonedError(attempt, deadlines.signal.reason), haltsRun: false, fateUnknown: true };
	// The whole answer did not come within Timeout: as a timeout, the service may have acted on it.
	if (timer.expired && !response) thrown = { code: 'ETIMEDOUT', message: `timeout of ${attempt.policy.timeoutMs}ms exceeded` };
	// An answer came but the HTTP layer could not decode it: not a connection failure, and not the
	// service's answer (see undecodableAnswerOf).
	const undecodable = response || timer.expired ? undefined : undecodableAnswerOf(thrown);
	if (undecodable) return { type: 'failed', error: undecodableAnswerError(attempt, status, undecodable), haltsRun: false, fateUnknown: true };
	try {
		return judge(attempt, response, thrown);
	} catch (error) {
		// Never throw: the caller finishes the scheduler's ticket either way, but an answer it cannot judge is still an answer.
		return { type: 'failed', error: unexpectedError(attempt, error, 'answer'), haltsRun: false, fateUnknown: true };
	}
}

/** What one attempt needs to be judged. */
export interface Attempt {
	context: RequestContext;
	request: ServiceRequest;
	itemIndex: number;
	url: string;
	host: string;
	idempotent: boolean;
	policy: RequestPolicy;
	secrets: Secrets;
	/** An earlier attempt may have been carried out (a 5xx, a dropped connection, a timeout). */
	mayHaveActed: boolean;
}

export type Verdict =
	| { type: 'done'; body: unknown }
	/**
	 * `fateUnknown`: the request was written and the answer does not say what became of it (a 2xx
	 * of another shape, a 302 or 303, an answer too large or undecodable, one the run stopped waiting
	 * for): for a send, its error says it may have been delivered.
	 */
	| { type: 'failed'; error: NodeApiError; haltsRun: boolean; fateUnknown?: boolean }
	/** May be tried again; `error` is what the item fails with if it is not. */
	| { type: 'retryable'; outcome: AttemptOutcome; error: () => NodeApiError };

/** Reads one answer (or the error in its place): success, a failure for good, or worth another try. */
function judge(attempt: Attempt, response: IN8nHttpFullResponse | undefined, thrown: unknown): Verdict {
	const { context, request, itemIndex } = attempt;
	if (!response) {
		const outcome = outcomeOfThrown(thrown);
		if (!outcome) {
			const certificate = refusedCertificateOf(thrown);
			if (certificate) return { type: 'failed', error: certificateError(attempt, certificate, thrown), haltsRun: true };
			const handshake = tlsHandshakeFailureOf(thrown);
			if (handshake) return { type: 'failed', error: handshakeError(attempt, handshake, thrown), haltsRun: true };
			if (neverWritten(thrown)) return { type: 'failed', error: unexpectedError(attempt, thrown, 'request'), haltsRun: false };
			// Anything else the connection threw (a TLS record that does not decrypt, an error no rule
			// knows) may have come after the request was written: its fate is unknown.
			return { type: 'failed', error: unexpectedError(attempt, thrown, 'connection'), haltsRun: false, fateUnknown: true };
		}
		return { type: 'retryable', outcome, error: () => connectionError(attempt, outcome) };
	}
	const status = response.statusCode;
	// "HTTP/1.1 000" or "099" is no HTTP answer at all, whatever its body says (not a success).
	if (!(status >= 200)) return { type: 'failed', error: undecodableAnswerError(attempt, status, { why: 'a status no HTTP answer has', code: 'HTTP_STATUS' }), haltsRun: false, fateUnknown: true };
	if (status >= 300 && status < 400) return { type: 'failed', error: redirectError(attempt, status, response.headers?.location), haltsRun: false, fateUnknown: redirectAfterProcessing(status) };
	// 407 and 511 come from a proxy or captive portal on the way, never from the service (RFC 9110
	// 15.5.8, RFC 6585 6: an origin server must not send 511): nothing reached it, and every later
	// request meets the same proxy (outside review: each item was sent and "may have been delivered").
	if (status === 407 || status === 511) return { type: 'failed', error: proxySignInError(attempt, status), haltsRun: true };
	// A 2xx the node cannot read (too large, too deep) may be the service's success; a refusal's
	// status speaks for itself, read as a page's would be below (a 429 waits, a 401 stops the run).
	if (response.body instanceof UnreadableBody && status < 400) {
		return { type: 'failed', error: unexpectedAnswerError(attempt, status, response.body, response.headers?.['content-type']), haltsRun: false, fateUnknown: true };
	}
	const body: unknown = response.body;

	const isServiceBody = typeof body === 'object' && body !== null && !(body instanceof UnreadableBody);
	const failure = status >= 400 ? readFailure(body, true) : readFailureOfSuccess(request.api, body);
	if (status < 300 && !failure) {
		if (request.isSuccess(body)) return { type: 'done', body };
		return { type: 'failed', error: unexpectedAnswerError(attempt, status, body, response.headers?.['content-type']), haltsRun: false, fateUnknown: true };
	}
	// An answer that says both: a failure, and that the message went (a 2xx or a 4xx: a 5xx is in
	// doubt anyway). The message may have gone, so it is not sent again, whatever the failure says.
	const saysBoth = status < 500 && alsoSaysSent(request.api, body, status);
	if (saysBoth) {
		const said = failure ?? { reason: `${attempt.host} answered HTTP ${status} with a success body`, unexplained: true };
		const error = serviceError(context.getNode(), { status, failure: said, itemIndex, body, kind: 'other', mayHaveActed: true, ...mayHaveBeenDelivered(attempt) });
		return { type: 'failed', error, haltsRun: false, fateUnknown: true };
	}
	// 408, 421 and 425 say the request was not processed, whoever wrote them (RFC 9110 15.5.9 and
	// 15.5.20, RFC 8470): a proxy that waited too long for it, a server that does not serve this
	// name, one that would not risk a request that could be replayed. Nothing was done: tried again
	// as a connection never made (outside review: an nginx page was an "unexpected answer", not retried).
	const notProcessed = NOT_PROCESSED[status];
	if (notProcessed) {
		const outcome: AttemptOutcome = { type: 'notReached', code: `HTTP ${status}` };
		return { type: 'retryable', outcome, error: () => notProcessedError(attempt, status, notProcessed) };
	}
	if (status >= 400 && !isServiceBody) {
		// An HTML error page or plain text: a proxy or another server answered, not the service.
		// Too large: whatever is in front of the service says what it refused.
		const tooLarge = TOO_LARGE[status];
		if (tooLarge) return { type: 'failed', error: tooLargeError(attempt, status, tooLarge), haltsRun: false };
		if (status === 429) return rateLimited(attempt, status, { reason: `Rate limited by ${attempt.host} (HTTP 429)`, unexplained: true }, body, response);
		if (status >= 500) return serverError(attempt, status, { reason: `${attempt.host} answered HTTP ${status}` }, body, response);
		// Spec 5.4: a missing or wrong key is a 401 (403 forbidden), whoever wrote the page that says
		// so (a gateway in front of the service often does): it stops the run like the service's own.
		if (status === 401 || status === 403) {
			const reason = `${attempt.host} refused the credential (HTTP ${status}, ${answerKind(attempt, body, response.headers?.['content-type'])})`;
			// Such a page may be a firewall's or a CDN's that blocked n8n's address (outside review: a
			// WAF's 403 sent the user to replace a key that worked).
			const note = 'This answer is not in the service\'s own form: if the key is right, a firewall, CDN or proxy in front of the service may have blocked the request (ask whoever runs it to allow n8n\'s address).';
			const error = serviceError(context.getNode(), { status, failure: { reason }, itemIndex, kind: 'authentication', note });
			return { type: 'failed', error, haltsRun: FAILURE_KINDS.authentication.stopsRun };
		}
		return { type: 'failed', error: unexpectedAnswerError(attempt, status, body, response.headers?.['content-type']), haltsRun: false };
	}
	const said: ServiceFailure = failure ?? { reason: `The service answered HTTP ${status}`, unexplained: true };
	// Without the service's words, the message says who answered and how (a `[]` from a proxy).
	const reason = said.unexplained ? { ...said, reason: `${said.reason} (${attempt.host}, HTTP ${status})` } : said;
	// A 5xx is judged by its status, whatever its text says: the service may have acted on it.
	if (status >= 500) return serverError(attempt, status, reason, body, response);
	// By the service's words first (never the host named above: it can hold "phone" or "credit"),
	// then its error code: a 429 that says "Message limit for this number reached" is one
	// recipient's limit and a 429 "Insufficient credits" the account's balance, not a pause of the
	// account's rate; a 429 whose words and code name nothing else is the rate limit by its status.
	const named = kindOfFailure(said, status);
	// A file's hint for a request that carries none would send the user after a file (a gateway's
	// "Payload too large" on a long text, outside review).
	const kind = (named === 'fileType' || named === 'attachment') && !carriesFile(request) ? 'other' : named;
	if (kind === 'rateLimit') return rateLimited(attempt, status, reason, body, response);
	// A retried DELETE that finds nothing to delete: an earlier attempt did the job.
	if (status === 404 && request.method === 'DELETE' && attempt.mayHaveActed) return { type: 'done', body: undefined };
	return { type: 'failed', error: serviceError(context.getNode(), { status, failure: reason, itemIndex, body, kind }), haltsRun: FAILURE_KINDS[kind].stopsRun };
}

/** Whether a request carries a file by its URL: Send's attachment, or a template's media variable. */
function carriesFile(request: ServiceRequest): boolean {
	const body = request.body as { attachment?: unknown; variables?: { media?: unknown } } | undefined;
	return body?.attachment !== undefined || body?.variables?.media !== undefined;
}

function rateLimited(attempt: Attempt, status: number, reason: ServiceFailure, body: unknown, response: IN8nHttpFullResponse): Verdict {
	const retryAfterMs = parseRetryAfter(response.headers?.['retry-after']);
	const retryAfterGrace = retryAfterMs === undefined ? 0 : retryAfterGraceMs(response.headers?.['retry-after']);
	return {
		type: 'retryable',
		outcome: { type: 'rateLimited', status, retryAfterMs, ...(retryAfterGrace > 0 ? { retryAfterGraceMs: retryAfterGrace } : {}), ...(reason.unexplained ? {} : { reason: reason.reason }) },
		error: () => serviceError(attempt.context.getNode(), { status, failure: reason, itemIndex: attempt.itemIndex, body, kind: 'rateLimit', retryAfterMs }),
	};
}

function serverError(attempt: Attempt, status: number, reason: { reason: string; code?: string }, body: unknown, response: IN8nHttpFullResponse): Verdict {
	// A 503's Retry-After says when the service is back (RFC 9110 10.2.3): a retry waits for it.
	const retryAfterMs = parseRetryAfter(response.headers?.['retry-after']);
	return {
		type: 'retryable',
		outcome: { type: 'mayHaveReached', why: 'serverError', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
		error: () =>
			serviceError(attempt.context.getNode(), {
				status,
				failure: reason,
				itemIndex: attempt.itemIndex,
				body,
				kind: 'other',
				mayHaveActed: !attempt.idempotent,
				...mayHaveBeenDelivered(attempt),
			}),
	};
}

/** "0.5 s", "2 s": options may be fractional, and rounding would misstate them. */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

/** A wait the service asked for, in whole seconds (as Max Wait is set), or "more than a year" (a Retry-After of 1e20 read as 99999999999999980000 s). */
const askedWait = (ms: number) => (ms >= 365 * 86_400_000 ? 'more than a year' : `${Math.ceil(ms / 1000)} s`);

/** What a request that may have been carried out may have done: "the message may have been delivered". */
export function mayHaveDone(attempt: Pick<Attempt, 'request'>): string {
	return attempt.request.api === 'sandbox' ? 'the plant may have been created' : 'the message may have been delivered';
}

/** The same, starting a sentence. */
function mayHaveDoneSentence(attempt: Pick<Attempt, 'request'>): string {
	const done = mayHaveDone(attempt);
	return `${done.slice(0, 1).toUpperCase()}${done.slice(1)}`;
}

/**
 * Whether a request that may have been carried out is held back from another try: a send is (it
 * could go twice), unless the user chose Retry Sends After Server Errors; reads and deletes never are.
 */
const heldBackWhenInDoubt = (attempt: Pick<Attempt, 'idempotent' | 'policy'>): boolean => !attempt.idempotent && !attempt.policy.retrySendsOnServerError;

/** For a send whose fate is unknown: says so, and how to trade that for retries. */
function mayHaveBeenDelivered(attempt: Attempt): { messageSuffix?: string; note?: string } {
	if (!heldBackWhenInDoubt(attempt)) return {};
	return {
		messageSuffix: `. ${mayHaveDoneSentence(attempt)}: the service may have acted on it before the answer was lost, so it was not sent again (that could duplicate it). Check before resending.`,
		note: 'Turn on "Retry Sends After Server Errors" only if a duplicate is acceptable.',
	};
}

/**
 * A send that "Retry Sends After Server Errors" tried again and that failed all the same, when
 * this try (`now`) or an earlier one may have been carried out: said, so no one resends it in the
 * belief it never went. Undefined for anything else.
 */
export function triedAgainMayHaveActed(attempt: Pick<Attempt, 'idempotent' | 'policy' | 'request' | 'mayHaveActed'>, now: boolean): string | undefined {
	if (attempt.idempotent || heldBackWhenInDoubt(attempt) || !(now || attempt.mayHaveActed)) return undefined;
	const Done = mayHaveDoneSentence(attempt);
	return now
		? `. ${Done}, perhaps more than once: the service may have acted on a try before its answer was lost, and "Retry Sends After Server Errors" sent it again. Check before resending.`
		: `. ${Done} all the same: an earlier try may have been carried out before its answer was lost ("Retry Sends After Server Errors" sent it again). Check before resending.`;
}

/**
 * What a request refused and never carried out did not do, in its message: ". The message was not
 * sent". An AI agent reads only the message (the description, with the items not sent, stays in
 * n8n), and must tell this from a message that may have been delivered. Nothing for a read, or for
 * a send an earlier try of which may have been carried out.
 */
function notDone(attempt: Pick<Attempt, 'idempotent' | 'mayHaveActed' | 'request'>): string {
	if (attempt.idempotent || attempt.mayHaveActed) return '';
	return attempt.request.api === 'sandbox' ? '. The plant was not created' : '. The message was not sent';
}

/**
 * The account's rate limit did not reopen within Max Wait, or the service asked for longer. A run
 * stops in a user's words, then the service's: what the limit was and what to set. An editor call
 * (a person waits on a dropdown) says when to try again instead (rateLimitedInEditor).
 */
export function limitNotReopenedError(attempt: Attempt, limit: LimitNotReopenedError, refusal: { status: number; said?: string } | undefined, forEditor = false): NodeApiError {
	const said = refusal?.said;
	const max = forEditor ? seconds(limit.maxWaitMs) : `Max Wait (${seconds(limit.maxWaitMs)})`;
	const asked = limit.askedMs !== undefined ? `Rate limited: the service asked to wait ${askedWait(limit.askedMs)}` : undefined;
	const saidToo = said !== undefined ? `. The service said: ${said}` : '';
	if (forEditor) return rateLimitedInEditor(attempt, `${asked ?? `Rate limited: the account's limit did not reopen within ${max}`}${saidToo}`, limit.askedMs, refusal?.status);
	const accepted = limit.acceptedBefore > 0 ? ` after it accepted ${limit.acceptedBefore} in the last hour` : '';
	// Only a wait of a minute or more rules out a per-minute limit (an outside review set Max Wait
	// to 5 s for an AI tool, against 1 per 2 minutes, and was told of a per-hour limit).
	const perHour = limit.maxWaitMs >= 60_000 ? ': it is probably a per-hour limit' : '';
	const reason = `${asked !== undefined ? `${asked}, more than ${max}` : `The account's rate limit was reached${accepted} and did not reopen within ${max}${perHour}`}${saidToo}${notDone(attempt)}`;
	return serviceError(attempt.context.getNode(), {
		// The status the service refused with (the spec's direct send says 400); 429 for a run that
		// only waited behind another run's refusals.
		status: refusal?.status ?? 429,
		failure: { reason },
		itemIndex: attempt.itemIndex,
		kind: 'rateLimit',
		...(limit.askedMs !== undefined ? { retryAfterMs: limit.askedMs } : {}),
	});
}

/**
 * A rate limit met by an editor call: it says when to try again, not how to pace a run (Max Wait,
 * Max Requests Per Minute, the items not sent), nor what other calls the account had accepted.
 * `message` is the service's refusal in its words, or how long it asked to wait.
 */
export function rateLimitedInEditor(attempt: Attempt, message: string, askedMs?: number, status = 429): NodeApiError {
	const when = askedMs !== undefined ? `in ${askedWait(askedMs)}` : 'in a minute';
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `The service limits how often this account may call it. Try again ${when}.`,
		httpCode: String(status),
	});
}

function connectionError(attempt: Attempt, outcome: AttemptOutcome): NodeApiError {
	const what =
		outcome.type === 'notReached'
			? `Could not reach ${attempt.host}: ${NOT_REACHED[outcome.code] ?? 'the connection failed'}`
			: outcome.type === 'mayHaveReached' && outcome.why === 'timedOut'
				? `No answer from ${attempt.host} within ${seconds(attempt.policy.timeoutMs)}`
				: `The connection to ${attempt.host} was dropped before an answer came`;
	const suffix = outcome.type === 'mayHaveReached' ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const code = outcome.type === 'rateLimited' ? undefined : outcome.code;
	return new NodeApiError(attempt.context.getNode(), { message: what }, {
		message: `${what}${suffix}`,
		description: `Check the base URL in the credential and that the service is reachable from n8n.${code ? ` (${code})` : ''}`,
		itemIndex: attempt.itemIndex,
		failure: { cause: 'temporarily-unavailable' },
	});
}

function proxySignInError(attempt: Attempt, status: 407 | 511): NodeApiError {
	const name = status === 407 ? 'Proxy Authentication Required' : 'Network Authentication Required';
	const message = `A proxy or network sign-in page between n8n and ${attempt.host} answered HTTP ${status} (${name}): the request did not reach the service, so nothing was sent`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description:
			"n8n's outgoing connections pass through a proxy or a captive portal that wants a login. Sign the network in, or give n8n the proxy's address and login (HTTP_PROXY / HTTPS_PROXY), then run the workflow again.",
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

/**
 * A redirect a server may send after it processed a POST: 303 "See Other" says so, and 302 is
 * what most web frameworks send for Post/Redirect/Get (PHP's header('Location'), Express's
 * res.redirect): sent again (n8n's Retry On Fail), such a message went twice (outside review).
 * 301, 307 and 308 ask to send the request elsewhere (a moved endpoint, a trailing slash): not
 * processed.
 */
const redirectAfterProcessing = (status: number) => status === 302 || status === 303;

function redirectError(attempt: Attempt, status: number, location: unknown): NodeApiError {
	// 304 answers a request for a cached copy ("If-None-Match"), which the node never makes: not a redirect.
	if (status === 304) {
		const message = `${attempt.host} answered HTTP 304 (Not Modified), which the node never asks for: the answer carries no result`;
		return new NodeApiError(attempt.context.getNode(), { message }, {
			message,
			description: "The service does not answer this way; a cache or proxy between n8n and the service probably did. Check the credential's base URL.",
			httpCode: '304',
			itemIndex: attempt.itemIndex,
		});
	}
	let target = 'no address';
	try {
		// The answerer's words: a Location may carry anything, the key included.
		if (typeof location === 'string') target = scrubText(new URL(location, attempt.url).host, attempt.secrets);
	} catch {
		target = 'an unreadable address';
	}
	const suffix = redirectAfterProcessing(status) ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const message = `${attempt.host} answered HTTP ${status}, a redirect to ${target}; redirects are not followed, so nothing was sent there${suffix}`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `Check the credential's base URL: it should be the API address from your account dashboard itself (https, the right host and /api: group). The key is never sent to another host.`,
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

/**
 * What an answer that is not the service's was: "an empty body", "text/html instead of JSON", ...
 * Its content type is the answerer's words, scrubbed like its body.
 */
function answerKind(attempt: Attempt, body: unknown, contentType: unknown): string {
	if (body instanceof UnreadableBody) return body.why;
	if (typeof body !== 'string') return 'JSON of another shape';
	if (body.trim() === '') return 'an empty body';
	const type = scrubText(String(contentType ?? 'text').split(';')[0].trim(), attempt.secrets);
	// Labelled JSON but not an object or list: a JSON string, a page, a body cut short.
	return /json/i.test(type) ? `no JSON object or list, though labelled ${type}` : `${type} instead of JSON`;
}

function unexpectedAnswerError(attempt: Attempt, status: number, body: unknown, contentType: unknown): NodeApiError {
	const what = answerKind(attempt, body, contentType);
	const suffix = status < 300 ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const message = `Unexpected answer from ${attempt.host} (HTTP ${status}, ${what})${suffix}`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description:
			"This is not the service's answer for this operation. Check the credential's base URL: a wrong address often reaches a login page, a proxy or another API.",
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

/** Statuses that say the request was not processed (see judge), and their names. */
const NOT_PROCESSED: Readonly<Record<number, string>> = { 408: 'Request Timeout', 421: 'Misdirected Request', 425: 'Too Early' };

function notProcessedError(attempt: Attempt, status: number, name: string): NodeApiError {
	const message = `${attempt.host} answered HTTP ${status} (${name}): the request was not processed, so nothing was sent`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description:
			status === 408
				? 'The request did not arrive whole before a server or proxy in front of the service stopped waiting for it. Check the connection between n8n and the service, then run the items again.'
				: "A server or proxy in front of the service would not take the request on this connection. Check the credential's base URL, then run the items again.",
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

/** What a proxy or server in front of the service refuses as too large, in a page of its own (the service's JSON is read for its words). */
const TOO_LARGE: Readonly<Record<number, { name: string; what: string }>> = {
	413: { name: 'Payload Too Large', what: 'the request body: shorten this item\'s text (or its variables)' },
	414: { name: 'URI Too Long', what: "the address: check the credential's base URL" },
	431: { name: 'Request Header Fields Too Large', what: "the request's headers: check the credential's key, which goes in one of them" },
};

function tooLargeError(attempt: Attempt, status: number, { name, what }: { name: string; what: string }): NodeApiError {
	const message = `${attempt.host} refused the request as too large (HTTP ${status}, ${name}), so nothing was sent`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `A server or proxy in front of the service limits the size of ${what}.`,
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

/** An answer that came after the request was written but that the HTTP layer could not decode. */
function undecodableAnswerError(attempt: Attempt, status: number | undefined, { why, code }: { why: string; code: string }): NodeApiError {
	const what = scrubText(status === undefined ? why : `HTTP ${status}, ${why}`, attempt.secrets);
	const message = `Unexpected answer from ${attempt.host} (${what})${mayHaveBeenDelivered(attempt).messageSuffix ?? ''}`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `This is not the service's answer: the service answers in plain HTTP with JSON. Check the credential's base URL: a wrong address often reaches a proxy or another server. (${code})`,
		httpCode: status === undefined ? undefined : String(status),
		itemIndex: attempt.itemIndex,
	});
}

export function haltedError(attempt: Attempt, cause: NodeApiError): NodeApiError {
	return new NodeApiError(attempt.context.getNode(), { message: cause.message }, {
		message: cause.message,
		description: `Not sent: an earlier item of this run failed for this reason, which no later item can get past. ${cause.description ?? ''}`.trim(),
		httpCode: cause.httpCode ?? undefined,
		itemIndex: attempt.itemIndex,
		failure: cause.failure,
	});
}

/** "64 KB", "32 MB". */
const sizeOf = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

/** The attempt was abandoned: the execution was canceled, or its run stopped and the answer did not come in time. */
function abandonedError(attempt: Attempt, reason: unknown): NodeApiError {
	// "Stopped", not "canceled": n8n saves an execution whose error says "canceled" as cancelled, and
	// n8n's Retry of it ends with this very error, remembered (outside review: saved as cancelled).
	const what = isCancellation(reason) ? 'The execution was stopped' : 'The run stopped at an earlier failure';
	const message = `${what} while waiting for ${attempt.host}${mayHaveBeenDelivered(attempt).messageSuffix ?? ''}`;
	return new NodeApiError(attempt.context.getNode(), { message }, { message, itemIndex: attempt.itemIndex });
}

/** An error's own words (its message only, never its request), secrets scrubbed. */
const wordsOf = (attempt: Attempt, error: unknown) => scrubText(error instanceof Error ? error.message : String(error), attempt.secrets);

/**
 * An error no rule knows, in building the `request` (nothing was sent), or thrown by the
 * `connection` or while its `answer` was read: then the request may have been written and
 * handled, and for a send the message says it may have been delivered. The error's own words
 * are the description.
 */
function unexpectedError(attempt: Attempt, error: unknown, during: 'request' | 'connection' | 'answer'): NodeApiError {
	const said = wordsOf(attempt, error);
	if (during === 'request') {
		const message = `The request to ${attempt.host} could not be made; nothing was sent`;
		return new NodeApiError(attempt.context.getNode(), { message }, { message, description: `It said: ${oneLine(said)}`, itemIndex: attempt.itemIndex });
	}
	const what = during === 'connection' ? `The connection to ${attempt.host} failed before an answer came` : `The answer from ${attempt.host} could not be read`;
	return new NodeApiError(attempt.context.getNode(), { message: what }, {
		message: `${what}${mayHaveBeenDelivered(attempt).messageSuffix ?? ''}`,
		description: `The connection said: ${oneLine(said)}`,
		itemIndex: attempt.itemIndex,
	});
}

/** The service's TLS certificate was refused during the handshake: nothing was sent, and no later request would be either. */
function certificateError(attempt: Attempt, code: string, error: unknown): NodeApiError {
	const message = `The TLS certificate of ${attempt.host} was refused (${code}); nothing was sent`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `Check the base URL in the credential: it must be the service's own https address. (${oneLine(wordsOf(attempt, error))})`,
		itemIndex: attempt.itemIndex,
	});
}

/** The TLS handshake never got going (the port does not speak TLS): nothing was sent, and no later request would be either. */
function handshakeError(attempt: Attempt, words: string, error: unknown): NodeApiError {
	const message = `The secure connection to ${attempt.host} could not be set up (${words}); nothing was sent`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `The base URL says https, but what answers at that address and port does not speak it (often a plain-http port). Check the base URL in the credential: the service's own https address. (${oneLine(wordsOf(attempt, error))})`,
		itemIndex: attempt.itemIndex,
	});
}

export function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return 'the service';
	}
}
