import { describe, expect, it } from 'vitest';

import { normalizeBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { backoffMs, decideRetry, neverWritten, NOT_REACHED, outcomeOfThrown, parseRetryAfter, refusedCertificateOf, undecodableAnswerOf } from '../../nodes/shared/transport/retryPolicy';
import type { AttemptOutcome, RetryRules } from '../../nodes/shared/transport/retryPolicy';

const rules = (overrides: Partial<RetryRules> = {}): RetryRules => ({ maxRetries: 5, retrySendsOnServerError: false, ...overrides });
/** A fixed "random" so the backoff is its ceiling: 250 ms, 500 ms, 1 s, ... */
const ceiling = () => 1;
const SEND = false;
const READ = true;

describe('decideRetry: a send only when it provably never reached the service', () => {
	const notReached: Exclude<AttemptOutcome, { type: 'rateLimited' }> = { type: 'notReached', code: 'ECONNREFUSED' };
	const mayHaveReached: Array<Extract<AttemptOutcome, { type: 'mayHaveReached' }>> = [
		{ type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' },
		{ type: 'mayHaveReached', why: 'timedOut' },
		{ type: 'mayHaveReached', why: 'serverError' },
	];

	it('retries a connection never made, for sends and reads alike, after a backoff, without pausing the others', () => {
		for (const idempotent of [SEND, READ]) {
			expect(decideRetry(notReached, 1, idempotent, rules(), ceiling)).toEqual({ retry: true, waitMs: 250 });
			expect(decideRetry(notReached, 3, idempotent, rules(), ceiling)).toEqual({ retry: true, waitMs: 1000 });
		}
	});

	it('does not retry a send that may have reached the service (dropped after writing, timed out, 5xx)', () => {
		for (const outcome of mayHaveReached) expect(decideRetry(outcome, 1, SEND, rules(), ceiling), outcome.why).toEqual({ retry: false });
	});

	it('retries them for reads and deletes, and for sends when "Retry Sends After Server Errors" is on', () => {
		for (const outcome of mayHaveReached) {
			expect(decideRetry(outcome, 1, READ, rules(), ceiling), outcome.why).toEqual({ retry: true, waitMs: 250 });
			expect(decideRetry(outcome, 1, SEND, rules({ retrySendsOnServerError: true }), ceiling), outcome.why).toEqual({ retry: true, waitMs: 250 });
		}
	});

	// Rate refusals are the scheduler's: the account pauses and the request goes again at its
	// place within Max Wait (test/unit/scheduler.test.ts, test/bulk/limit-seeking.test.ts).

	it('Max Retries bounds every kind it decides: attempt maxRetries + 1 is the last', () => {
		for (const outcome of [notReached, ...mayHaveReached]) {
			expect(decideRetry(outcome, 2, READ, rules({ maxRetries: 2 }), ceiling).retry).toBe(true);
			expect(decideRetry(outcome, 3, READ, rules({ maxRetries: 2 }), ceiling)).toEqual({ retry: false });
			expect(decideRetry(outcome, 1, READ, rules({ maxRetries: 0 }), ceiling)).toEqual({ retry: false });
		}
	});
});

describe('backoffMs', () => {
	it('grows exponentially, is capped, and is jittered in the upper half below the ceiling', () => {
		expect(backoffMs(1, () => 1)).toBe(250);
		expect(backoffMs(3, () => 1)).toBe(1000);
		expect(backoffMs(20, () => 1)).toBe(8000);
		expect(backoffMs(3, () => 0)).toBe(500);
		expect(backoffMs(3, () => 0.5)).toBe(750);
	});

	it('five retries span at least 3.9 s, however the jitter falls: a service restarting for 1.5 s is ridden out (full jitter let them all fall within it)', () => {
		const least = [1, 2, 3, 4, 5].reduce((sum, failure) => sum + backoffMs(failure, () => 0), 0);
		expect(least).toBe(3875);
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	it('reads seconds and HTTP dates', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter('0.5', now)).toBe(500);
		expect(parseRetryAfter(['2'], now)).toBe(2000);
		expect(parseRetryAfter(' 2 ', now)).toBe(2000);
		expect(parseRetryAfter('259200', now)).toBe(259_200_000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Tue, 24 Nov 2026 10:00:00 GMT', now)).toBe(3 * 86_400_000);
	});
	it('ignores what it cannot read, and what would make it hammer the service (0, negative, past)', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('-5', now)).toBeUndefined();
		expect(parseRetryAfter('0', now)).toBeUndefined();
		expect(parseRetryAfter('1e3', now)).toBeUndefined();
		expect(parseRetryAfter('Infinity', now)).toBeUndefined();
		expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBeUndefined();
		expect(parseRetryAfter({}, now)).toBeUndefined();
	});
	// V8's lenient Date.parse reads any text ending in a number that looks like a year as a date
	// ("soon 2030" is 1 Jan 2030): such garbage would become a years-long wait and fail the item
	// as "more than Max Wait" instead of backing off. Only an HTTP date (IMF-fixdate, or the
	// obsolete RFC 850 / asctime forms) is a date.
	it('ignores garbage that merely ends in a number, instead of reading it as a date', () => {
		expect(parseRetryAfter('soon 2030', now)).toBeUndefined();
		expect(parseRetryAfter('x 99999', now)).toBeUndefined();
	});
});

describe('outcomeOfThrown: never reached, or may have reached', () => {
	it('a connection never made: refused, DNS, unreachable at the connect, anywhere in the cause chain', () => {
		for (const code of Object.keys(NOT_REACHED)) {
			expect(outcomeOfThrown({ message: 'x', cause: { code, syscall: 'connect' } })).toEqual({ type: 'notReached', code });
		}
		for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_SOCKET_CONNECTION_TIMEOUT']) {
			expect(outcomeOfThrown({ message: 'x', cause: { code } })).toEqual({ type: 'notReached', code });
		}
		expect(outcomeOfThrown({ message: 'outer', cause: { message: 'middle', cause: { code: 'ENOTFOUND' } } })).toEqual({ type: 'notReached', code: 'ENOTFOUND' });
		// axios's error carries the code, its cause the call; n8n 1.x keeps the call in its texts.
		expect(outcomeOfThrown({ code: 'EHOSTUNREACH', cause: { code: 'EHOSTUNREACH', syscall: 'connect' } })).toEqual({ type: 'notReached', code: 'EHOSTUNREACH' });
		expect(outcomeOfThrown({ httpCode: 'EHOSTUNREACH', messages: ['connect EHOSTUNREACH 10.0.0.1:443'] })).toEqual({ type: 'notReached', code: 'EHOSTUNREACH' });
	});

	it('a route lost on a connection already open (the request may have been written and handled) is a dropped connection, not "never reached"', () => {
		for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN']) {
			for (const syscall of ['read', 'write', undefined]) {
				expect(outcomeOfThrown({ message: 'x', cause: { code, syscall } }), `${code} ${syscall}`).toEqual({ type: 'mayHaveReached', why: 'dropped', code });
			}
		}
		expect(outcomeOfThrown({ httpCode: 'ENETUNREACH', messages: ['read ENETUNREACH'] })).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'ENETUNREACH' });
	});

	it('a certificate refused in the handshake, or a request never built, wrote nothing; anything else unknown may have', () => {
		expect(refusedCertificateOf({ message: 'x', cause: { code: 'CERT_HAS_EXPIRED' } })).toBe('CERT_HAS_EXPIRED');
		expect(refusedCertificateOf({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
		expect(refusedCertificateOf({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' })).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
		expect(refusedCertificateOf({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
		expect(refusedCertificateOf({ code: 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC' })).toBeUndefined();
		expect(refusedCertificateOf({ code: 'EPROTO' })).toBeUndefined();
		expect(neverWritten({ code: 'ERR_INVALID_CHAR' })).toBe(true);
		expect(neverWritten({ message: 'x', cause: { code: 'EPROTO', syscall: 'connect' } })).toBe(true);
		expect(neverWritten({ code: 'EPROTO', syscall: 'read' })).toBe(false);
		expect(neverWritten({ code: 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC' })).toBe(false);
		expect(neverWritten(new Error('something no rule knows'))).toBe(false);
	});

	it('a connect that timed out (syscall connect / getaddrinfo) never wrote the request', () => {
		expect(outcomeOfThrown({ code: 'ETIMEDOUT', syscall: 'connect' })).toEqual({ type: 'notReached', code: 'ERR_SOCKET_CONNECTION_TIMEOUT' });
		expect(outcomeOfThrown({ message: 'x', cause: { code: 'ETIMEDOUT', syscall: 'getaddrinfo' } })).toEqual({
			type: 'notReached',
			code: 'ERR_SOCKET_CONNECTION_TIMEOUT',
		});
	});

	it('a timeout after connecting may have reached the service', () => {
		expect(outcomeOfThrown({ code: 'ETIMEDOUT' })).toEqual({ type: 'mayHaveReached', why: 'timedOut', code: 'ETIMEDOUT' });
		expect(outcomeOfThrown({ code: 'ETIMEDOUT', syscall: 'read' })).toEqual({ type: 'mayHaveReached', why: 'timedOut', code: 'ETIMEDOUT' });
		expect(outcomeOfThrown({ code: 'ECONNABORTED', message: 'timeout of 100ms exceeded' })).toEqual({ type: 'mayHaveReached', why: 'timedOut', code: 'ECONNABORTED' });
		expect(outcomeOfThrown(new Error('timeout of 1000ms exceeded'))).toEqual({ type: 'mayHaveReached', why: 'timedOut' });
	});

	it('a reset or a close without answer may have reached the service (it cannot be told from one after processing)', () => {
		expect(outcomeOfThrown({ code: 'ECONNRESET' })).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' });
		expect(outcomeOfThrown({ message: 'x', cause: { code: 'EPIPE' } })).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'EPIPE' });
		expect(outcomeOfThrown(new Error('socket hang up'))).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' });
		expect(outcomeOfThrown({ code: 'UND_ERR_SOCKET', message: 'other side closed' })).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'UND_ERR_SOCKET' });
	});

	it('leaves anything else alone (e.g. a cancelled execution)', () => {
		expect(outcomeOfThrown({ code: 'ERR_CANCELED', message: 'canceled' })).toBeUndefined();
		expect(outcomeOfThrown('boom')).toBeUndefined();
		// A cause chain that loops ends.
		const looped: { message: string; cause?: unknown } = { message: 'x' };
		looped.cause = looped;
		expect(outcomeOfThrown(looped)).toBeUndefined();
	});
});

/**
 * What n8n 1.x's httpRequestWithAuthentication throws (recorded from n8n 1.123.81): a NodeApiError
 * that keeps no cause; the network code is in `httpCode`, the original texts in `messages`, and
 * `message` is n8n's own words for the code.
 */
function n8n1Error(code: string, original: string, message: string) {
	return Object.assign(new Error(message), { name: 'NodeApiError', httpCode: code, messages: [original, original] });
}

describe("n8n 1.x's wrapped errors: the code in httpCode, the original texts in messages", () => {
	it('a reset or a close without answer may have reached the service', () => {
		const closed = 'The connection to the server was closed unexpectedly, perhaps it is offline. You can retry the request immediately or wait and retry later.';
		expect(outcomeOfThrown(n8n1Error('ECONNRESET', 'read ECONNRESET', closed))).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' });
		expect(outcomeOfThrown(n8n1Error('ECONNRESET', 'socket hang up', closed))).toEqual({ type: 'mayHaveReached', why: 'dropped', code: 'ECONNRESET' });
	});

	it('a connection never made, and a connect that timed out, never reached it', () => {
		expect(outcomeOfThrown(n8n1Error('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:40249', 'The service refused the connection - perhaps it is offline'))).toEqual({
			type: 'notReached',
			code: 'ECONNREFUSED',
		});
		expect(outcomeOfThrown(n8n1Error('ENOTFOUND', 'getaddrinfo ENOTFOUND no-such-host.invalid', 'The connection cannot be established'))).toEqual({ type: 'notReached', code: 'ENOTFOUND' });
		expect(outcomeOfThrown(n8n1Error('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443', 'The connection timed out'))).toEqual({ type: 'notReached', code: 'ERR_SOCKET_CONNECTION_TIMEOUT' });
		expect(outcomeOfThrown(n8n1Error('ETIMEDOUT', 'read ETIMEDOUT', 'The connection timed out'))).toEqual({ type: 'mayHaveReached', why: 'timedOut', code: 'ETIMEDOUT' });
	});

	it('an answer the parser could not read is undecodable, not a network failure', () => {
		const error = n8n1Error('HPE_INVALID_STATUS', 'Parse Error: Invalid status code', 'Parse Error: Invalid status code');
		expect(undecodableAnswerOf(error)).toEqual({ why: 'not readable as HTTP: Invalid status code', code: 'HPE_INVALID_STATUS' });
		expect(outcomeOfThrown(error)).toBeUndefined();
	});

	it('an HTTP status in httpCode is neither', () => {
		const error = n8n1Error('502', 'Request failed with status code 502', 'Bad gateway');
		expect(outcomeOfThrown(error)).toBeUndefined();
		expect(undecodableAnswerOf(error)).toBeUndefined();
	});
});

describe('undecodableAnswerOf: an answer the HTTP layer could not decode', () => {
	it('finds zlib and parser errors, however deep in the cause chain, in words and with their code', () => {
		expect(undecodableAnswerOf(Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' }))).toEqual({
			why: 'a body that does not decode as its Content-Encoding says: incorrect header check',
			code: 'Z_DATA_ERROR',
		});
		const parser = Object.assign(new Error('Parse Error: Duplicate Content-Length'), { code: 'HPE_UNEXPECTED_CONTENT_LENGTH', reason: 'Duplicate Content-Length' });
		const axios = Object.assign(new Error(parser.message), { code: parser.code, cause: parser });
		expect(undecodableAnswerOf(new Error(parser.message, { cause: axios }))).toEqual({ why: 'not readable as HTTP: Duplicate Content-Length', code: 'HPE_UNEXPECTED_CONTENT_LENGTH' });
		expect(undecodableAnswerOf({ code: 'HPE_INVALID_CONSTANT', message: 'Parse Error: Expected HTTP/' })?.why).toBe('not readable as HTTP: Expected HTTP/');
		// Brotli's and zstd's own codes (what Node's zlib throws for each).
		expect(undecodableAnswerOf({ code: 'ERR__ERROR_FORMAT_PADDING_1', message: 'Decompression failed' })?.code).toBe('ERR__ERROR_FORMAT_PADDING_1');
		expect(undecodableAnswerOf({ code: 'ZSTD_error_prefix_unknown', message: 'Unknown frame descriptor' })?.why).toBe(
			'a body that does not decode as its Content-Encoding says: Unknown frame descriptor',
		);
	});

	it("axios's ERR_BAD_RESPONSE only without a response: with one, it is a status axios refused", () => {
		expect(undecodableAnswerOf({ code: 'ERR_BAD_RESPONSE', message: 'maxContentLength size of 10 exceeded' })?.code).toBe('ERR_BAD_RESPONSE');
		expect(undecodableAnswerOf({ code: 'ERR_BAD_RESPONSE', message: 'Request failed with status code 502', response: { status: 502 } })).toBeUndefined();
	});

	it('is not a network failure, nor anything else', () => {
		for (const error of [{ code: 'ECONNRESET', message: 'socket hang up' }, { code: 'ETIMEDOUT' }, new Error('boom'), 'text', undefined]) {
			expect(undecodableAnswerOf(error)).toBeUndefined();
		}
	});
});

describe('normalizeBaseUrl', () => {
	it('drops trailing slashes so paths append cleanly', () => {
		expect(normalizeBaseUrl('https://x.example.com/api:AbC1/', 'httpsOrLoopback')).toEqual({ ok: true, baseUrl: 'https://x.example.com/api:AbC1' });
		expect(normalizeBaseUrl(' https://x.example.com/api:AbC1 ', 'httpsOrLoopback')).toEqual({ ok: true, baseUrl: 'https://x.example.com/api:AbC1' });
	});
	it('allows plain http only on loopback for the messaging APIs', () => {
		for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) {
			expect(normalizeBaseUrl(`http://${host}:8080/api:x`, 'httpsOrLoopback').ok).toBe(true);
		}
		const refused = normalizeBaseUrl('http://api.example.com/api:x', 'httpsOrLoopback');
		expect(refused.ok).toBe(false);
		if (!refused.ok) expect(refused.problem).toMatch(/requires https/);
		expect(normalizeBaseUrl('http://10.0.0.5/x', 'httpsOrLoopback').ok).toBe(false);
		expect(normalizeBaseUrl('http://127.0.0.1.evil.example/x', 'httpsOrLoopback').ok).toBe(false);
	});
	it('allows plain http anywhere for the sandbox', () => {
		expect(normalizeBaseUrl('http://sandbox.example.com/', 'any')).toEqual({ ok: true, baseUrl: 'http://sandbox.example.com' });
	});
	it('names what is wrong', () => {
		expect(normalizeBaseUrl('', 'any')).toEqual({ ok: false, problem: 'is empty', empty: true });
		expect(normalizeBaseUrl(undefined, 'any')).toEqual({ ok: false, problem: 'is empty', empty: true });
		expect(normalizeBaseUrl('api.example.com', 'any').ok).toBe(false);
		expect(normalizeBaseUrl('ftp://x', 'any').ok).toBe(false);
		expect(normalizeBaseUrl('https://x.example.com/a?b=1', 'any').ok).toBe(false);
		expect(normalizeBaseUrl('https://x.example.com/a#top', 'any').ok).toBe(false);
	});
	// The HTTP layer signs in with "user:pass@" (Basic) in place of the credential's key: the
	// service saw "Authorization: Basic ..." and refused the token it never got.
	it.each(['https://user:s3cret-pass@x.example.com/api:AbC1', 'https://user@x.example.com/api:AbC1', 'http://:s3cret-pass@127.0.0.1:5681/api:x', 'http://u:s3cret-pass@sandbox.example.com'])(
		'refuses a base URL with a user name or password, without quoting them (%s)',
		(url) => {
			const check = normalizeBaseUrl(url, 'any');
			expect(check.ok).toBe(false);
			if (!check.ok) {
				expect(check.problem).toMatch(/must not hold a user name or password/);
				expect(check.problem).not.toMatch(/s3cret|user:/);
			}
		},
	);
	// URL() gives an empty `search`/`hash` for a bare '?' or '#', so a check on those would let
	// these pass, and a path appended to them would land in the query or fragment
	// ("https://x.example.com/api:AbC1?/send" posts to /api:AbC1).
	it.each(['https://x.example.com/api:AbC1?', 'https://x.example.com/api:AbC1#', 'https://x.example.com/api:AbC1/?', 'http://127.0.0.1:5681/api:x#'])(
		'refuses a base URL with a bare ? or # (%s)',
		(url) => {
			expect(normalizeBaseUrl(url, 'any')).toEqual({ ok: false, problem: `"${url}" must not contain ? or #` });
		},
	);
});
