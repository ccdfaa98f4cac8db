/**
 * When a failed attempt is tried again. The rule that keeps sends exactly-once: a send is
 * retried only when it provably never reached the service, or the service refused it before
 * acting (a 429, a "rate limit" refusal). Once the request may have been written (a reset or
 * a close without answer, a timeout, a 5xx), the service may have acted on it: reads and
 * deletes are retried, sends are not (unless the user chose "Retry Sends After Server Errors").
 */
export type AttemptOutcome =
	/** The service refused before acting, with `status`; `retryAfterMs` when it said how long to wait, `reason` its words when it gave some. */
	| { type: 'rateLimited'; status: number; retryAfterMs?: number; reason?: string; retryAfterGraceMs?: number }
	/** The connection was never made (refused, DNS, unreachable): nothing reached the service. */
	| { type: 'notReached'; code: string }
	/** The request may have been processed: dropped after it was written, timed out, or a 5xx. */
	| { type: 'mayHaveReached'; why: 'dropped' | 'timedOut' | 'serverError'; code?: string; retryAfterMs?: number };

export interface RetryRules {
	maxRetries: number;
	retrySendsOnServerError: boolean;
}

type RetryDecision = { retry: false } | { retry: true; waitMs: number };

/**
 * Whether a request's `failure`th failed attempt (1 = the first; rate refusals do not count) is
 * tried again after a connection failure, a timeout or a 5xx, and after how long. A rate refusal
 * is not decided here: the scheduler pauses the whole account and the request goes again at its
 * place, within Max Wait.
 */
export function decideRetry(
	outcome: Exclude<AttemptOutcome, { type: 'rateLimited' }>,
	failure: number,
	idempotent: boolean,
	rules: RetryRules,
	random: () => number = Math.random,
): RetryDecision {
	if (failure > rules.maxRetries) return { retry: false };
	if (outcome.type === 'mayHaveReached' && !idempotent && !rules.retrySendsOnServerError) return { retry: false };
	return { retry: true, waitMs: backoffMs(failure, random) };
}

/**
 * Exponential backoff with "equal jitter": a random wait in [c/2, c], c = min(cap, base *
 * 2^(failure-1)). Full jitter ([0, c]) spreads retries as well, but let five of them all fall
 * within about 1.5 s: a service restarting for that long (connections refused) failed about 3% of
 * the items that met it. The half kept makes five retries span at least 3.9 s.
 */
export function backoffMs(failure: number, random: () => number = Math.random, baseMs = 250, capMs = 8_000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, failure - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * The three date forms HTTP allows (RFC 9110 5.6.7): "Sun, 06 Nov 1994 08:49:37 GMT",
 * "Sunday, 06-Nov-94 08:49:37 GMT" and "Sun Nov  6 08:49:37 1994". Date.parse alone would read
 * any text that ends in a number ("soon 2030") as a date.
 */
const HTTP_DATE =
	/^(?:[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * `Retry-After` as seconds ("120") or an HTTP date, in ms from now. Undefined when absent,
 * unreadable, negative or already past: the caller then backs off on its own, so a hostile
 * or stale value can neither make it hammer the service nor stall it.
 */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
	const text = retryAfterText(value);
	let ms: number;
	if (/^\d+(\.\d+)?$/.test(text)) ms = Math.round(Number(text) * 1000);
	else if (HTTP_DATE.test(text)) ms = Date.parse(text) - now;
	else return undefined;
	return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * How far past Max Wait a Retry-After may reach and still be within it: an HTTP date counts in
 * whole seconds, and one a minute ahead rounded up reads as 60.3 s (outside review: a per-minute
 * limit's date failed the run at once with Max Wait 60). Seconds are exact.
 */
export function retryAfterGraceMs(value: unknown): number {
	return HTTP_DATE.test(retryAfterText(value)) ? 1_000 : 0;
}

/** The header's text: its first value when it came twice, a number as its digits. */
function retryAfterText(value: unknown): string {
	const header = Array.isArray(value) ? value[0] : value;
	return typeof header === 'number' ? String(header) : typeof header === 'string' ? header.trim() : '';
}

/**
 * Error codes (on the error or anywhere in its `cause` chain) of a connection that was never
 * made, each in words for the error message (NodeApiError swaps a message holding a code for
 * a generic one).
 */
export const NOT_REACHED: Readonly<Record<string, string>> = {
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	ENETDOWN: 'the network is down',
	ERR_SOCKET_CONNECTION_TIMEOUT: 'the connection could not be opened in time',
};
/**
 * Of those, the codes that only a connection being opened can get (a refusal, a name lookup,
 * the connect timer). The others (a route lost: EHOSTUNREACH, ENETUNREACH, ENETDOWN) also end a
 * connection already open, whose request may have been written and handled: those are
 * "not reached" only when the error names the connect (or lookup) as the call that failed.
 */
const ONLY_BEFORE_WRITE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_SOCKET_CONNECTION_TIMEOUT']);
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE']);
const TIMED_OUT = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** System calls that fail before a byte of the request is written. */
const BEFORE_WRITE_SYSCALLS = new Set(['connect', 'getaddrinfo']);

/** One level of a thrown error's cause chain, as the two readers below need it. */
interface ErrorLevel {
	codes: string[];
	texts: string[];
	/** The system call that failed, when the error says (a connect, a DNS lookup). */
	syscall?: string;
	reason?: unknown;
	response?: unknown;
}

/**
 * Each level of `error`'s cause chain (a loop ends it). n8n 2.x's helpers keep the network error
 * as the cause of theirs; n8n 1.x's NodeApiError keeps no cause, but its `httpCode` holds the
 * code (or an HTTP status) and its `messages` the original texts ("read ECONNRESET", "connect
 * ETIMEDOUT 10.0.0.1:443", from which the system call is read), while `message` is n8n's own words.
 */
function levelsOf(error: unknown): ErrorLevel[] {
	const levels: ErrorLevel[] = [];
	const seen = new Set<unknown>();
	for (let level = error; typeof level === 'object' && level !== null && !seen.has(level); level = (level as { cause?: unknown }).cause) {
		seen.add(level);
		const { code, httpCode, message, messages, syscall, reason, response } = level as Record<string, unknown>;
		const codes = [code, httpCode].filter((value): value is string => typeof value === 'string' && value !== '');
		const texts = [message, ...(Array.isArray(messages) ? messages : [])].filter((value): value is string => typeof value === 'string');
		const failedCall = typeof syscall === 'string' ? syscall : texts.map((text) => /^(\w+) E[A-Z_]+\b/.exec(text)?.[1]).find((call) => call !== undefined);
		levels.push({ codes: [...new Set(codes)], texts, syscall: failedCall, reason, response });
	}
	return levels;
}

/** What went wrong with an attempt that threw instead of answering; undefined when it is not a network failure. */
export function outcomeOfThrown(error: unknown): AttemptOutcome | undefined {
	let outcome: AttemptOutcome | undefined;
	for (const { codes, texts, syscall } of levelsOf(error)) {
		for (const code of codes) {
			if (Object.hasOwn(NOT_REACHED, code)) {
				if (ONLY_BEFORE_WRITE.has(code) || (syscall !== undefined && BEFORE_WRITE_SYSCALLS.has(syscall))) return { type: 'notReached', code };
				outcome ??= { type: 'mayHaveReached', why: 'dropped', code };
				continue;
			}
			// A connect that timed out at the socket level never wrote the request.
			if (code === 'ETIMEDOUT' && syscall !== undefined && BEFORE_WRITE_SYSCALLS.has(syscall)) {
				return { type: 'notReached', code: 'ERR_SOCKET_CONNECTION_TIMEOUT' };
			}
			if (DROPPED.has(code)) outcome ??= { type: 'mayHaveReached', why: 'dropped', code };
			if (TIMED_OUT.has(code)) outcome ??= { type: 'mayHaveReached', why: 'timedOut', code };
		}
		for (const text of texts) {
			if (/timeout of \d+ms exceeded|timed out/i.test(text)) outcome ??= { type: 'mayHaveReached', why: 'timedOut' };
			if (/socket hang up|ECONNRESET|other side closed/i.test(text)) outcome ??= { type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' };
		}
	}
	return outcome;
}

/**
 * TLS codes of a certificate the client refused during the handshake, before a byte of the
 * request was written: OpenSSL's verify results (Node gives them as the code) and Node's own.
 */
const CERTIFICATE_CODE = /^(?:CERT_[A-Z_]+|[A-Z_]*_CERT(?:_[A-Z_]+)?|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)$/;

/** The code of a certificate refused before the request was written, on the error or its cause chain. */
export function refusedCertificateOf(error: unknown): string | undefined {
	for (const { codes } of levelsOf(error)) for (const code of codes) if (CERTIFICATE_CODE.test(code)) return code;
	return undefined;
}

/** Node's codes for a request it would not build (a URL, a header value, an argument): thrown before anything is written. */
const NOT_BUILT = new Set(['ERR_INVALID_URL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_PROTOCOL', 'ERR_UNESCAPED_CHARACTERS']);

/**
 * OpenSSL's words for a handshake that never got going: the other end does not speak TLS (an
 * https base URL on a plain-http port answers "wrong version number"), or speaks none the client
 * offers. The request waits for the handshake, so nothing of it was written (outside review: it
 * said "may have been delivered"). Not a record that fails to decrypt later on a working
 * connection (ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC): that may follow the request.
 */
const TLS_HANDSHAKE_FAILED = /\b(?:wrong version number|unknown protocol|packet length too long|unsupported protocol|no protocols available|sslv3 alert handshake failure|tlsv1 alert protocol version)\b/i;

/** The words of a TLS handshake that failed before the request was written, on the error or its cause chain. */
export function tlsHandshakeFailureOf(error: unknown): string | undefined {
	for (const { texts } of levelsOf(error)) for (const text of texts) {
		const found = TLS_HANDSHAKE_FAILED.exec(text);
		if (found) return found[0];
	}
	return undefined;
}

/** Whether an error no rule classifies shows that nothing was written: a request never built, or a failed connect or lookup. */
export function neverWritten(error: unknown): boolean {
	return levelsOf(error).some(({ codes, syscall }) => codes.some((code) => NOT_BUILT.has(code)) || (syscall !== undefined && BEFORE_WRITE_SYSCALLS.has(syscall)));
}

/** Node's codes for a body that does not decompress: zlib's (gzip, deflate), brotli's, zstd's. */
const DECOMPRESSION_CODE = /^(?:Z_[A-Z_]+|ERR__ERROR_[A-Z0-9_]+|ERR_BROTLI_[A-Z0-9_]+|ZSTD_error_\w+)$/;

/**
 * An answer the HTTP layer could not decode, found on the error or anywhere in its `cause`
 * chain: a body that does not decode as its Content-Encoding says (zlib's Z_* codes, brotli's and zstd's), bytes
 * that are not a well-formed HTTP answer (the parser's HPE_* codes: a broken status line,
 * Content-Length beside Transfer-Encoding, two Content-Lengths), or axios's ERR_BAD_RESPONSE
 * without a response (one with a response is a status it refused, not an unreadable answer).
 * `why` is in words, `code` for the description. Undefined when it is none of these.
 *
 * Not an AttemptOutcome: the request was written before any answer came, so a send may have
 * been acted on, and an answer that is not the service's is not retried (as a 200 that is not
 * JSON is not).
 */
export function undecodableAnswerOf(error: unknown): { why: string; code: string } | undefined {
	for (const { codes, texts, reason, response } of levelsOf(error)) {
		const text = texts.find((candidate) => candidate !== '') ?? '';
		for (const code of codes) {
			if (DECOMPRESSION_CODE.test(code)) return { why: `a body that does not decode as its Content-Encoding says: ${text || code}`, code };
			// The parser's own error carries the bare reason; its message adds "Parse Error: ".
			if (code.startsWith('HPE_')) return { why: `not readable as HTTP: ${typeof reason === 'string' ? reason : text.replace(/^Parse Error: /, '')}`, code };
			if (code === 'ERR_BAD_RESPONSE' && !response) return { why: `not readable as HTTP: ${text || code}`, code };
		}
	}
	return undefined;
}
