import { describe, expect, it } from 'vitest';

import { normalizeBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { backoffMs, isRetryable, outcomeOfThrown, parseRetryAfter } from '../../nodes/shared/transport/retryPolicy';

describe('isRetryable: only what the service cannot have acted on, for sends', () => {
	it('retries rate limits and failed connections for every request', () => {
		for (const idempotent of [true, false]) {
			expect(isRetryable({ type: 'rateLimited' }, idempotent, false)).toBe(true);
			expect(isRetryable({ type: 'connectionFailed', code: 'ECONNREFUSED' }, idempotent, false)).toBe(true);
		}
	});

	it('does not retry a send after a 5xx or a timeout unless asked to', () => {
		expect(isRetryable({ type: 'serverError' }, false, false)).toBe(false);
		expect(isRetryable({ type: 'timedOut' }, false, false)).toBe(false);
		expect(isRetryable({ type: 'serverError' }, false, true)).toBe(true);
	});

	it('retries reads and deletes after a 5xx or a timeout', () => {
		expect(isRetryable({ type: 'serverError' }, true, false)).toBe(true);
		expect(isRetryable({ type: 'timedOut' }, true, false)).toBe(true);
	});
});

describe('backoffMs', () => {
	it('grows exponentially, is capped, and is jittered below the ceiling', () => {
		expect(backoffMs(1, () => 1)).toBe(250);
		expect(backoffMs(3, () => 1)).toBe(1000);
		expect(backoffMs(20, () => 1)).toBe(8000);
		expect(backoffMs(3, () => 0)).toBe(0);
		expect(backoffMs(3, () => 0.5)).toBe(500);
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	it('reads seconds and HTTP dates', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter('0.5', now)).toBe(500);
		expect(parseRetryAfter(['2'], now)).toBe(2000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
	});
	it('ignores what it cannot read', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
	});
});

describe('outcomeOfThrown', () => {
	it('finds the code anywhere in the cause chain', () => {
		expect(outcomeOfThrown({ message: 'x', cause: { code: 'ECONNREFUSED' } })).toEqual({ type: 'connectionFailed', code: 'ECONNREFUSED' });
		expect(outcomeOfThrown({ code: 'ECONNABORTED', message: 'timeout of 100ms exceeded' })).toEqual({ type: 'timedOut' });
		expect(outcomeOfThrown(new Error('socket hang up'))).toEqual({ type: 'connectionFailed', code: 'ECONNRESET' });
	});
	it('leaves anything else alone (e.g. a cancelled execution)', () => {
		expect(outcomeOfThrown({ code: 'ERR_CANCELED', message: 'canceled' })).toBeUndefined();
		expect(outcomeOfThrown('boom')).toBeUndefined();
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
		expect(normalizeBaseUrl('', 'any')).toEqual({ ok: false, problem: 'is empty' });
		expect(normalizeBaseUrl(undefined, 'any')).toEqual({ ok: false, problem: 'is empty' });
		expect(normalizeBaseUrl('api.example.com', 'any').ok).toBe(false);
		expect(normalizeBaseUrl('ftp://x', 'any').ok).toBe(false);
		expect(normalizeBaseUrl('https://x.example.com/a?b=1', 'any').ok).toBe(false);
	});
});
