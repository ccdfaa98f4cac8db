/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';

import { parseScrubbed } from '../../nodes/shared/transport/answer';
import { scrubSecrets, scrubText, secretValues } from '../../nodes/shared/transport/secrets';

const SECRET = 'tok_abcDEF123456';
const secrets = secretValues(['other-secret', SECRET]);
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('scrubSecrets', () => {
	it('returns an answer without a secret as it is (no copy)', () => {
		const answer = { message: 'Message sent successfully', details: { messages: [{ id: 1, status: 'queued' }] } };
		expect(scrubSecrets(answer, secrets)).toBe(answer);
	});

	it('replaces a secret anywhere in the answer, values and keys, in a copy, leaving the answer untouched', () => {
		const answer = { error: { message: `invalid key ${SECRET}` }, list: ['ok', `Bearer ${SECRET}`], [SECRET]: 'was the key', n: 3 };
		const scrubbed = scrubSecrets(answer, secrets);
		expect(scrubbed).toEqual({ error: { message: 'invalid key [redacted]' }, list: ['ok', 'Bearer [redacted]'], '[redacted]': 'was the key', n: 3 });
		expect(answer.error.message).toContain(SECRET);
		expect(scrubSecrets(`echo ${SECRET}${SECRET}`, secrets)).toBe('echo [redacted][redacted]');
	});

	it('finds it in another letter case, URL-encoded, JSON-escaped and base64 at any alignment', () => {
		const special = 'key/with+odd=chars"1';
		const specialSecrets = secretValues([special]);
		expect(scrubText(`lower ${SECRET.toLowerCase()} upper ${SECRET.toUpperCase()}`, secrets)).toBe('lower [redacted] upper [redacted]');
		expect(scrubText(`url ${encodeURIComponent(special)}`, specialSecrets)).toBe('url [redacted]');
		expect(scrubText(JSON.stringify({ echoed: special }), specialSecrets)).not.toContain('odd=chars');
		for (const prefix of ['', 'u', 'us', 'user:']) {
			const encoded = b64(`${prefix}${SECRET}`);
			const url = encoded.replace(/\+/g, '-').replace(/\//g, '_');
			for (const form of [encoded, url]) {
				const scrubbed = scrubText(`Basic ${form}`, secrets);
				expect(scrubbed, `${prefix}: ${form}`).toContain('[redacted]');
				// What is left cannot be decoded back to the secret.
				expect(Buffer.from(scrubbed.replace('Basic ', '').replace('[redacted]', ''), 'base64').toString()).not.toContain(SECRET.slice(2, -2));
			}
		}
	});

	it('a value the node could not write out is replaced, never passed on', () => {
		const loop: Record<string, unknown> = { message: SECRET };
		loop.self = loop;
		expect(scrubSecrets(loop, secrets)).toBe('[an answer the node could not read]');
	});

	it('a key shorter than 8 characters is scrubbed where it stands as a word, as written; inside other words it is left', () => {
		const short = secretValues(['bad', 'k3y-42']);
		expect(scrubSecrets({ message: 'Reason: token bad refused', echo: 'k3y-42', other: 'Bad request badly made' }, short)).toEqual({
			message: 'Reason: token [redacted] refused',
			echo: '[redacted]',
			other: 'Bad request badly made',
		});
		expect(scrubSecrets('key=bad;', short)).toBe('key=[redacted];');
		// Long and short keys of one credential, together.
		const both = secretValues(['bad', 'Long-Enough-Token']);
		expect(scrubSecrets('bad LONG-ENOUGH-TOKEN', both)).toBe('[redacted] [redacted]');
	});
});

describe('a short key in a JSON answer: looked for as a word of the text once it is read, never in the JSON text', () => {
	it.each([
		['ab12', '{"message":"Invalid key:\\nab12"}', { message: 'Invalid key:\n[redacted]' }],
		['ab12', '{"message":"key\\tab12 refused"}', { message: 'key\t[redacted] refused' }],
		['ab12', '{"error":{"message":"x\\u0001ab12"}}', { error: { message: 'x\u0001[redacted]' } }],
		['a"b1', '{"message":"bad key a\\"b1"}', { message: 'bad key [redacted]' }],
		['a\\b1', '{"message":"bad key a\\\\b1"}', { message: 'bad key [redacted]' }],
	])('key %j in %s: scrubbed (its neighbours in the JSON text are escapes, not letters)', (key, body, expected) => {
		expect(parseScrubbed(body, secretValues([key]))).toEqual(expected);
	});

	it('a key spelled as a number, a literal or a field name leaves the answer readable', () => {
		expect(parseScrubbed('{"id":1234,"message":"ok"}', secretValues(['1234']))).toEqual({ id: '[redacted]', message: 'ok' });
		expect(parseScrubbed('{"success":true,"message":"ok"}', secretValues(['true']))).toEqual({ success: true, message: 'ok' });
		expect(parseScrubbed('{"message":"Sent"}', secretValues(['message']))).toEqual({ message: 'Sent' });
		// Plain text (an HTML page, a gateway's words) is text as read.
		expect(parseScrubbed('bad key ab12', secretValues(['ab12']))).toBe('bad key [redacted]');
	});
});

describe('parseScrubbed: the body scrubbed before and after it is parsed', () => {
	it('a key JSON-escaped in the body is scrubbed once parsing spells it out', () => {
		expect(parseScrubbed('{"message":"bad key \\u0052eview-Token-0123"}', secretValues(['Review-Token-0123']))).toEqual({ message: 'bad key [redacted]' });
		expect(parseScrubbed('{"message":"bad key Key+With\\/Slash99"}', secretValues(['Key+With/Slash99']))).toEqual({ message: 'bad key [redacted]' });
	});

	it('never throws where a key matches across an escape or inside a number in the JSON text, and keeps the value', () => {
		// Replaced in the JSON text and parsed again, these failed to parse ("Bad escaped character"),
		// and a delivered send's answer became a plain failure that Retry On Fail sent again.
		expect(parseScrubbed('{"message":"key \\u000aBCDEFGH12 ok"}', secretValues(['nbcdefgh12']))).toEqual({ message: 'key \nBCDEFGH12 ok' });
		expect(parseScrubbed('{"n":1.2345678E7}', secretValues(['12345678']))).toEqual({ n: '[redacted]' });
		// Scrubbed in the text first, this one is no JSON any more: an answer that is not the service's, read as such.
		expect(parseScrubbed('{"id":12345678901}', secretValues(['12345678901']))).toBe('{"id":[redacted]}');
		expect(parseScrubbed('{"12345678901":"x"}', secretValues(['12345678901']))).toEqual({ '[redacted]': 'x' });
	});
});

describe('a key as an escaper spells it, whichever characters it escapes', () => {
	const key = 'sk_live/Ab+cD9=ef12345678';
	const keySecrets = secretValues([key]);
	const spellings: Array<[string, string]> = [
		// OWASP-style: every character but letters, digits and `_` as a number.
		['decimal entities for / + =', 'sk_live&#47;Ab&#43;cD9&#61;ef12345678'],
		['hex entities, upper case, leading zeros', 'sk_live&#X002F;Ab&#x2b;cD9&#x3D;ef12345678'],
		['every character as a decimal entity', Array.from(key, (char) => `&#${char.codePointAt(0)};`).join('')],
		['letters percent-encoded too', Array.from(key, (char) => `%${char.charCodeAt(0).toString(16)}`).join('')],
		['a mixture of raw, entity, percent and JSON escape', 'sk_live\\/Ab%2BcD9&#61;ef1234%35678'],
	];
	it.each(spellings)('%s: scrubbed', (_, echoed) => {
		expect(scrubText(`key ${echoed} is not valid`, keySecrets)).toBe('key [redacted] is not valid');
		// In a JSON answer's text too (where `\/` is JSON's escape of `/`), which stays readable.
		expect(parseScrubbed(`{"success":false,"message":"Invalid API key","details":"key ${echoed} is not valid"}`, keySecrets)).toEqual({
			success: false,
			message: 'Invalid API key',
			details: 'key [redacted] is not valid',
		});
	});

	it('named entities for the markup characters, mixed with raw ones', () => {
		const markup = secretValues(['k&y<1>"2\'3abcdef']);
		expect(scrubText('echo k&amp;y&lt;1>&quot;2&#39;3ABCDEF end', markup)).toBe('echo [redacted] end');
		expect(scrubText('echo k&y&lt;1&gt;"2&apos;3abcdef end', markup)).toBe('echo [redacted] end');
	});

	it('a key with a run of backslashes against 64 KB of backslash runs: no backtracking blow-up (diff review: 53 s)', () => {
		// Counted, not timed: a backslash has one spelling of its own, so each match attempt is linear.
		const runs = secretValues([`k${'\\'.repeat(24)}Z`]);
		const hostile = `k${'\\'.repeat(200)}`.repeat(400).slice(0, 64 * 1024);
		expect(scrubText(hostile, runs)).toBe(hostile);
		expect(scrubText(`x k${'\\'.repeat(24)}Z y`, runs)).toBe('x [redacted] y');
		expect(scrubText(`x ${JSON.stringify(`k${'\\'.repeat(24)}Z`).slice(1, -1)} y`, runs)).toBe('x [redacted] y');
	});

	it("a key with a backslash and a slash, as JSON and as PHP's json_encode write it (second diff review)", () => {
		const slashes = secretValues(['ab\\cd/ef12345']);
		expect(scrubText('x ab\\\\cd/ef12345 y', slashes)).toBe('x [redacted] y');
		expect(scrubText('x ab\\\\cd\\/ef12345 y', slashes)).toBe('x [redacted] y');
	});

	it('text that only resembles the key is left alone', () => {
		expect(scrubText('sk_live&#47;Ab&#43;cD9&#61;ef1234567 and sk_live/Ab+cD9ef12345678', keySecrets)).toBe('sk_live&#47;Ab&#43;cD9&#61;ef1234567 and sk_live/Ab+cD9ef12345678');
	});
});
