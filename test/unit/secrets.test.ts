/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';

import { scrubSecrets } from '../../nodes/shared/transport/secrets';

const SECRET = 'tok_abcdef123456';

describe('scrubSecrets', () => {
	it('returns an answer without a secret as it is (no copy)', () => {
		const answer = { message: 'Message sent successfully', details: { messages: [{ id: 1, status: 'queued' }] } };
		expect(scrubSecrets(answer, [SECRET])).toBe(answer);
	});

	it('replaces a secret anywhere in the answer, in a copy, leaving the answer untouched', () => {
		const answer = { error: { message: `invalid key ${SECRET}` }, list: ['ok', `Bearer ${SECRET}`], n: 3 };
		const scrubbed = scrubSecrets(answer, ['other-secret', SECRET]);
		expect(scrubbed).toEqual({ error: { message: 'invalid key [redacted]' }, list: ['ok', 'Bearer [redacted]'], n: 3 });
		expect(answer.error.message).toContain(SECRET);
		expect(scrubSecrets(`echo ${SECRET}${SECRET}`, [SECRET])).toBe('echo [redacted][redacted]');
	});
});
