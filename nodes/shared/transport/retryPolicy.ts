/**
 * When a failed attempt may be tried again. The rule that keeps sends exactly-once: retry
 * only what the service cannot have acted on. A 429 or a "rate limit" refusal, a refused
 * connection, or a connection dropped before any answer (the service drops those before it
 * processes them) are retried. A 5xx or a timeout after a send was written may mean the
 * message went out, so a send is not retried then; reads and deletes are.
 */
export type AttemptOutcome =
	| { type: 'rateLimited'; retryAfterMs?: number }
	| { type: 'serverError' }
	| { type: 'connectionFailed'; code: string }
	| { type: 'timedOut' };

export function isRetryable(outcome: AttemptOutcome, idempotent: boolean, retrySendsOnServerError: boolean): boolean {
	switch (outcome.type) {
		case 'rateLimited':
		case 'connectionFailed':
			return true;
		case 'serverError':
		case 'timedOut':
			return idempotent || retrySendsOnServerError;
	}
}

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^(attempt-1))]. */
export function backoffMs(attempt: number, random: () => number = Math.random, baseMs = 250, capMs = 8_000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
	return Math.round(random() * ceiling);
}

/** `Retry-After` as seconds ("120") or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
	const header = Array.isArray(value) ? value[0] : value;
	if (typeof header === 'number') return Math.max(0, header * 1000);
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	const trimmed = header.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(0, Math.round(Number(trimmed) * 1000));
	const date = Date.parse(trimmed);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Error codes (on the error or anywhere in its `cause` chain) that mean no answer came back,
 * each in words for the error message (NodeApiError swaps a message holding a code for a
 * generic one).
 */
export const CONNECTION_FAILURES: Readonly<Record<string, string>> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was dropped before an answer',
	EPIPE: 'the connection was dropped before an answer',
	UND_ERR_SOCKET: 'the connection was dropped before an answer',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	ENETDOWN: 'the network is down',
	ERR_SOCKET_CONNECTION_TIMEOUT: 'the connection could not be opened in time',
};
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** What went wrong with an attempt that threw instead of answering. */
export function outcomeOfThrown(error: unknown): AttemptOutcome | undefined {
	const seen = new Set<unknown>();
	let level: unknown = error;
	let sawHangUp = false;
	while (typeof level === 'object' && level !== null && !seen.has(level)) {
		seen.add(level);
		const { code, message } = level as { code?: unknown; message?: unknown };
		if (typeof code === 'string') {
			if (TIMEOUT_CODES.has(code)) return { type: 'timedOut' };
			if (Object.hasOwn(CONNECTION_FAILURES, code)) return { type: 'connectionFailed', code };
		}
		if (typeof message === 'string') {
			if (/timeout of \d+ms exceeded|timed out/i.test(message)) return { type: 'timedOut' };
			if (/socket hang up|ECONNRESET/i.test(message)) sawHangUp = true;
		}
		level = (level as { cause?: unknown }).cause;
	}
	return sawHangUp ? { type: 'connectionFailed', code: 'ECONNRESET' } : undefined;
}
