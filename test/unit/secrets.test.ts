/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';

import { scrubSecrets, scrubText, secretValues, tooShortSecret } from '../../nodes/shared/transport/secrets';

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

	it('keys shorter than 8 characters are too short to scrub safely', () => {
		expect(tooShortSecret({ apiKey: 'k3y42' })).toEqual({ field: 'apiKey', length: 5 });
		expect(tooShortSecret({ accessToken: 'long-enough' })).toBeUndefined();
		expect(tooShortSecret({ apiKey: '' })).toBeUndefined();
	});
});
