import type { INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { limitNotReopenedError } from '../../nodes/shared/transport/attempt';
import type { Attempt } from '../../nodes/shared/transport/attempt';
import { LimitNotReopenedError } from '../../nodes/shared/transport/scheduler';

const node: INode = { id: '1', name: 'Messaging', type: 'n8n-nodes-messaging.messaging', typeVersion: 1, position: [0, 0], parameters: {} };

/** The parts of an attempt the limit's words read: the node, the item, and what the request was. */
const attemptOf = (over: Partial<Attempt> = {}) =>
	({ context: { getNode: () => node }, itemIndex: 4, idempotent: false, mayHaveActed: false, request: { api: 'send' }, ...over }) as unknown as Attempt;

const SAID = 'Rate limit exceeded (messages per minute or per hour)';

describe('the words of a limit that did not reopen within Max Wait', () => {
	it('after a wait of a minute or more: probably a per-hour limit; this message was not sent', () => {
		const error = limitNotReopenedError(attemptOf(), new LimitNotReopenedError(60_000, 10, 60_000), { status: 400, said: SAID });
		expect(error.message).toBe(`The account's rate limit was reached after it accepted 10 in the last hour and did not reopen within Max Wait (60 s): it is probably a per-hour limit. The service said: ${SAID}. The message was not sent`);
	});

	it('after a shorter wait, nothing rules out a per-minute limit: no guess (outside review: Max Wait 5 s against 1 per 2 minutes read "per-hour")', () => {
		const error = limitNotReopenedError(attemptOf(), new LimitNotReopenedError(5_000, 1, 5_000), { status: 400, said: SAID });
		expect(error.message).toBe(`The account's rate limit was reached after it accepted 1 in the last hour and did not reopen within Max Wait (5 s). The service said: ${SAID}. The message was not sent`);
	});

	it('it carries the status the service refused with; 429 when this run was refused by none (it waited behind another run)', () => {
		const limit = new LimitNotReopenedError(2_000, 0, 2_000);
		expect(limitNotReopenedError(attemptOf(), limit, { status: 400, said: SAID }).httpCode).toBe('400');
		expect(limitNotReopenedError(attemptOf(), limit, { status: 429 }).httpCode).toBe('429');
		expect(limitNotReopenedError(attemptOf(), limit, undefined).httpCode).toBe('429');
	});

	it('what was not done is said only of a request that did nothing: a plant not created; nothing for a read, or for a send an earlier try of which may have gone', () => {
		const limit = new LimitNotReopenedError(2_000, 0, 2_000);
		expect(limitNotReopenedError(attemptOf({ request: { api: 'sandbox' } as Attempt['request'] }), limit, undefined).message).toMatch(/\. The plant was not created$/);
		expect(limitNotReopenedError(attemptOf({ idempotent: true }), limit, undefined).message).toBe("The account's rate limit was reached and did not reopen within Max Wait (2 s)");
		expect(limitNotReopenedError(attemptOf({ mayHaveActed: true }), limit, undefined).message).toBe("The account's rate limit was reached and did not reopen within Max Wait (2 s)");
	});
});
