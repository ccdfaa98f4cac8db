/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a fake token and a stream for the fake service (README: Lint) */
/**
 * A property-based model test of the whole send path (router -> transport -> scheduler), on
 * simulated time: fast-check draws executions of Messaging → Send that share one credential
 * (their sizes, options, Continue On Fail, a cancel) and a schedule of what the service answers
 * each request (success, 429 with and without Retry-After, the spec's rate reason, 5xx, resets,
 * refused connections, timeouts, item and account failures) and when. After every schedule:
 *
 * - every execution ended (nothing waits for ever);
 * - a later execution of the same credential sends all its items (no place was left taken, no
 *   pause left standing);
 * - the account holds no place and no waiter;
 * - nothing of an execution started after it was cancelled, or after the answer that stopped it;
 * - no item was delivered twice, and an item reported sent was delivered once;
 * - messages to one recipient never overlapped and went in input order.
 *
 * The service and the n8n context are fakes written from the spec and n8n's interface, not
 * from the code under test: what the node does with an answer is the code's; what counts as
 * delivered is the service's.
 */
import fc from 'fast-check';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { resources } from '../../nodes/Messaging/actions/resources';
import { router } from '../../nodes/shared/router';
import { existingAccountOf } from '../../nodes/shared/transport';

type Kind = 'ok' | '429' | '429-retry-after' | 'rate-reason' | '5xx' | 'reset' | 'refused' | 'timeout' | 'invalid-phone' | 'no-credits';

interface Answer {
	kind: Kind;
	delayMs: number;
	retryAfterSeconds: number;
}

/** The account the runs of `credentialId` took for their sends (undefined would mean none did: an assertion on it must not pass on a fresh one). */
function accountOf(credentialId: string) {
	const account = existingAccountOf(credentialId, 'send');
	if (!account) throw new Error(`no account was taken for ${credentialId}`);
	return account;
}

/** Whether the service acted on (delivered) a request answered this way. */
const DELIVERS: Record<Kind, boolean> = {
	ok: true,
	'429': false,
	'429-retry-after': false,
	'rate-reason': false,
	'5xx': true, // processed, then the answer failed
	reset: true, // processed, then the connection dropped
	refused: false,
	timeout: true,
	'invalid-phone': false,
	'no-credits': false,
};

/** Answers that end a send for good under the default options (no retry): they stop a run without Continue On Fail. */
const FINAL: ReadonlySet<Kind> = new Set(['5xx', 'reset', 'timeout', 'invalid-phone', 'no-credits']);

const failure = (reason: string) => ({ message: `Message sending failed | Reason: ${reason}` });

interface Execution {
	items: number;
	/** Recipients are drawn from a small pool, so several messages go to one number. */
	recipients: number[];
	maxConcurrent?: number;
	continueOnFail: boolean;
	maxWaitSeconds: number;
	cancelAtMs?: number;
}

interface RequestRecord {
	execution: number;
	item: number;
	phone: string;
	start: number;
	end: number;
	/** Order of events: requests started and answers handed over can share a millisecond. */
	startSeq: number;
	endSeq: number;
	kind: Kind;
}

const phoneOf = (execution: number, recipient: number) => `+1415555${execution}${String(recipient).padStart(3, '0')}`;

/** The service: answers each request by the schedule, then with success. */
class FakeService {
	readonly requests: RequestRecord[] = [];
	private next = 0;
	private events = 0;

	constructor(private readonly schedule: Answer[]) {}

	/** From now on every request succeeds. */
	acceptEverything(): void {
		this.next = this.schedule.length;
	}

	request(execution: number, items: IDataObject[], options: IHttpRequestOptions): Promise<unknown> {
		const body = options.body as IDataObject;
		const item = items.findIndex((candidate) => candidate.phone === body.phone && candidate.text === body.text);
		const answer = this.schedule[this.next++] ?? { kind: 'ok', delayMs: 5, retryAfterSeconds: 0 };
		const record: RequestRecord = { execution, item, phone: String(body.phone), start: Date.now(), end: Infinity, startSeq: ++this.events, endSeq: Infinity, kind: answer.kind };
		this.requests.push(record);
		return new Promise((resolve, reject) => {
			const signal = options.abortSignal as AbortSignal | undefined;
			const onAbort = () => {
				clearTimeout(timer);
				record.end = Date.now();
				record.endSeq = ++this.events;
				reject(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' }));
			};
			const timer = setTimeout(
				() => {
					signal?.removeEventListener('abort', onAbort);
					record.end = Date.now();
					record.endSeq = ++this.events;
					const response = respond(answer, options);
					if (response instanceof Error) reject(response);
					else resolve(response);
				},
				answer.kind === 'refused' ? 0 : answer.delayMs,
			);
			signal?.addEventListener('abort', onAbort, { once: true });
		});
	}
}

/** An answer as n8n's request helper hands it over (a full response, or the error it throws). */
function respond(answer: Answer, options: IHttpRequestOptions): unknown {
	const full = (statusCode: number, json: unknown, headers: Record<string, string> = {}) => {
		const text = JSON.stringify(json);
		const stream = options.encoding === 'stream';
		return {
			statusCode,
			headers: { 'content-type': 'application/json', ...headers },
			body: stream ? Readable.from([Buffer.from(text)]) : options.json === false ? text : json,
		};
	};
	switch (answer.kind) {
		case 'ok':
			return full(200, { message: 'Message sent successfully' });
		case '429':
			return full(429, failure('Rate limit exceeded (messages per minute or per hour)'));
		case '429-retry-after':
			return full(429, failure('Rate limit exceeded (messages per minute or per hour)'), { 'retry-after': String(answer.retryAfterSeconds) });
		case 'rate-reason':
			return full(400, failure('Rate limit exceeded (messages per minute or per hour)'));
		case '5xx':
			return full(500, failure('Internal error'));
		case 'invalid-phone':
			return full(400, failure('Invalid phone number'));
		case 'no-credits':
			return full(400, failure('Insufficient credits'));
		case 'reset':
			return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		case 'refused':
			return Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect' });
		case 'timeout':
			return Object.assign(new Error('timeout of 30000ms exceeded'), { code: 'ECONNABORTED' });
	}
}

/** The parts of n8n's execute context the node uses, for one execution of Messaging → Send. */
/** Execution IDs are unique in n8n: a node's memory for retries (deliveredItems) is found by them. */
let executionsStarted = 0;

function context(service: FakeService, index: number, execution: Execution, credentialId: string, cancel: AbortSignal): IExecuteFunctions {
	const executionId = `model-${++executionsStarted}`;
	const items: IDataObject[] = Array.from({ length: execution.items }, (_, item) => ({
		phone: phoneOf(index, execution.recipients[item % execution.recipients.length]),
		text: `message ${item}`,
	}));
	const options: IDataObject = { maxWaitSeconds: execution.maxWaitSeconds };
	if (execution.maxConcurrent !== undefined) options.maxConcurrent = execution.maxConcurrent;
	const parameter = (name: string, item: number): unknown => {
		switch (name) {
			case 'resource':
				return 'message';
			case 'operation':
				return 'send';
			case 'phone':
				return items[item].phone;
			case 'text':
				return items[item].text;
			case 'options':
				return options;
			default:
				return name.startsWith('options.') ? options[name.slice('options.'.length)] : undefined;
		}
	};
	const node = {
		id: `node-${index}`,
		name: 'Messaging',
		type: 'n8n-nodes-messaging.messaging',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
		credentials: { messagingBearerApi: { id: credentialId, name: 'Account' } },
	};
	return {
		getNodeParameter: (name: string, item: number, fallback?: unknown) => parameter(name, item) ?? fallback,
		getInputData: () => items.map((json) => ({ json })),
		continueOnFail: () => execution.continueOnFail,
		getNode: () => node,
		getCredentials: async () => ({ accessToken: 'model-token-0123456789', sendBaseUrl: 'https://api.example.test/api:send' }),
		getExecutionCancelSignal: () => cancel,
		getExecutionId: () => executionId,
		getMode: () => 'manual',
		getWorkflow: () => ({ id: 'model-workflow', name: 'Model', active: false }),
		// What a cancelled run writes to n8n's log (its list of what went) is test/bulk/stop-and-share.test.ts's to check.
		logger: { warn: () => undefined },
		helpers: {
			httpRequestWithAuthentication: async (_type: string, requestOptions: IHttpRequestOptions) => await service.request(index, items, requestOptions),
			constructExecutionMetaData: (data: INodeExecutionData[], { itemData }: { itemData: unknown }) => data.map((entry) => ({ ...entry, pairedItem: itemData })),
			returnJsonArray: (data: IDataObject | IDataObject[]) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })),
		},
	} as unknown as IExecuteFunctions;
}

type Outcome = { output: INodeExecutionData[] } | { error: Error };

/**
 * The fake clock under vi.useFakeTimers. Its nextAsync runs the next timer and lets every promise
 * callback run before it returns, as Node does after each timer callback. Vitest's
 * advanceTimersToNextTimerAsync then also runs the other timers due at that moment in one go,
 * before the promise callbacks of the first: a timer could run between an answer and the node's
 * handling of it, which Node never does.
 */
function fakeClock(): { nextAsync(): Promise<number> } {
	return (setTimeout as unknown as { clock: { nextAsync(): Promise<number> } }).clock;
}

/** Moves simulated time on, one timer at a time, until every promise has settled, or `limitMs` has passed. */
async function settle<T>(promises: Array<Promise<T>>, limitMs: number): Promise<Array<T | undefined>> {
	const results: Array<T | undefined> = promises.map(() => undefined);
	let pending = promises.length;
	promises.forEach((promise, index) =>
		void promise.then((value) => {
			results[index] = value;
			pending--;
		}),
	);
	const deadline = Date.now() + limitMs;
	while (pending > 0 && Date.now() < deadline) {
		if (vi.getTimerCount() === 0) await vi.advanceTimersByTimeAsync(1);
		else await fakeClock().nextAsync();
	}
	return results;
}

const LIMIT_MS = 20 * 60_000;

const answerArb: fc.Arbitrary<Answer> = fc.record({
	kind: fc.constantFrom<Kind>('ok', 'ok', 'ok', '429', '429-retry-after', 'rate-reason', '5xx', 'reset', 'refused', 'timeout', 'invalid-phone', 'no-credits'),
	delayMs: fc.integer({ min: 0, max: 400 }),
	retryAfterSeconds: fc.integer({ min: 0, max: 2 }),
});

const executionArb: fc.Arbitrary<Execution> = fc.record(
	{
		items: fc.integer({ min: 1, max: 6 }),
		recipients: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }),
		maxConcurrent: fc.constantFrom(undefined, 1, 2, 4),
		continueOnFail: fc.boolean(),
		maxWaitSeconds: fc.constantFrom(0, 1, 60),
		cancelAtMs: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: undefined }),
	},
	{ requiredKeys: ['items', 'recipients', 'continueOnFail', 'maxWaitSeconds'] },
);

let scenario = 0;

async function check(executions: Execution[], schedule: Answer[]): Promise<FakeService> {
	const credentialId = `model-${++scenario}`;
	const service = new FakeService(schedule);
	const cancels = executions.map(() => new AbortController());
	const started = Date.now();
	const runs = executions.map(async (execution, index): Promise<Outcome> => {
		try {
			const [output] = await router.call(context(service, index, execution, credentialId, cancels[index].signal), resources);
			return { output };
		} catch (error) {
			return { error: error as Error };
		}
	});
	executions.forEach((execution, index) => {
		if (execution.cancelAtMs !== undefined) setTimeout(() => cancels[index].abort(), execution.cancelAtMs);
	});
	const outcomes = await settle(runs, LIMIT_MS);
	expect(outcomes.map((outcome) => outcome !== undefined), 'every execution ended').toEqual(executions.map(() => true));

	for (const [index, execution] of executions.entries()) {
		const mine = service.requests.filter((request) => request.execution === index);
		// Nothing after a cancel, nor after the answer that stopped the run.
		if (execution.cancelAtMs !== undefined) {
			const cancelledAt = started + execution.cancelAtMs;
			expect(mine.filter((request) => request.start > cancelledAt), 'started after the cancel').toEqual([]);
		}
		if (!execution.continueOnFail) {
			const stoppedAt = Math.min(...mine.filter((request) => FINAL.has(request.kind)).map((request) => request.endSeq));
			expect(mine.filter((request) => request.startSeq > stoppedAt), 'started after the answer that stopped the run').toEqual([]);
		}
		// No item delivered twice; an item reported sent was delivered.
		for (let item = 0; item < execution.items; item++) {
			const delivered = mine.filter((request) => request.item === item && DELIVERS[request.kind]).length;
			expect(delivered, `execution ${index} item ${item} delivered`).toBeLessThanOrEqual(1);
			const outcome = outcomes[index]!;
			if ('output' in outcome && outcome.output[item]?.json.success === true) expect(delivered, `item ${item} reported sent`).toBe(1);
		}
		// One recipient's messages never overlap and go in input order.
		for (const phone of new Set(mine.map((request) => request.phone))) {
			const toPhone = mine.filter((request) => request.phone === phone);
			for (let k = 1; k < toPhone.length; k++) {
				expect(toPhone[k].startSeq, `${phone}: request ${k} overlaps the one before`).toBeGreaterThan(toPhone[k - 1].endSeq);
				expect(toPhone[k].item, `${phone}: input order`).toBeGreaterThanOrEqual(toPhone[k - 1].item);
			}
		}
	}

	// A later execution of the credential, two hours on (an hourly limit has passed), against a
	// service that now accepts everything, with the shortest Max Wait: nothing an earlier run left
	// behind may hold it back.
	service.acceptEverything();
	// Time itself moves on (the scheduler's clock is monotonic: a step of the system clock is not time passing).
	await vi.advanceTimersByTimeAsync(7_200_000);
	const later = router.call(context(service, 9, { items: 3, recipients: [0, 1, 2], continueOnFail: false, maxWaitSeconds: 1 }, credentialId, new AbortController().signal), resources);
	const [laterOutcome] = await settle([later.then((output) => output, (error: unknown) => error)], LIMIT_MS);
	expect(laterOutcome, 'a later execution proceeds').toBeDefined();
	expect(laterOutcome).not.toBeInstanceOf(Error);
	expect(service.requests.filter((request) => request.execution === 9 && request.kind === 'ok')).toHaveLength(3);
	expect(accountOf(credentialId).state, 'no place held, no waiter left').toMatchObject({ inFlight: 0, queued: 0 });
	return service;
}

describe('the send path under random schedules of answers, stops and cancels', () => {
	afterEach(() => vi.useRealTimers());

	it('keeps its invariants in 1,000 schedules', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(executionArb, { minLength: 1, maxLength: 3 }), fc.array(answerArb, { maxLength: 30 }), async (executions, schedule) => {
				vi.useFakeTimers({ now: 1_800_000_000_000 });
				try {
					await check(executions, schedule);
				} finally {
					vi.useRealTimers();
				}
			}),
			{ numRuns: 1_000 },
		);
	}, 120_000);

	it('a probe the run abandoned (the execution was cancelled while it was under way) teaches no limit', async () => {
		vi.useFakeTimers({ now: 1_800_000_000_000 });
		const credentialId = `model-${++scenario}`;
		// Item 0 accepted, item 1 refused without Retry-After; its probe is still unanswered at the cancel.
		const service = new FakeService([
			{ kind: 'ok', delayMs: 10, retryAfterSeconds: 0 },
			{ kind: '429', delayMs: 10, retryAfterSeconds: 0 },
			{ kind: 'ok', delayMs: 60_000, retryAfterSeconds: 0 },
		]);
		const cancel = new AbortController();
		const execution: Execution = { items: 3, recipients: [0, 1, 2], maxConcurrent: 1, continueOnFail: false, maxWaitSeconds: 60 };
		const running = router.call(context(service, 0, execution, credentialId, cancel.signal), resources).then(
			() => undefined,
			(error: unknown) => error,
		);
		setTimeout(() => cancel.abort(), 5_000);
		const [outcome] = await settle([running], LIMIT_MS);
		expect((outcome as Error).message).toMatch(/canceled/);
		expect(service.requests.map((request) => request.item)).toEqual([0, 1, 1]);
		expect(service.requests[2].end, 'the probe was under way at the cancel').toBe(Infinity);
		expect(accountOf(credentialId).state.learned).toBeUndefined();
	});

	it('requests let go together go out two per turn of the event loop: those still waiting for their turn when an answer stops the run never go', async () => {
		vi.useFakeTimers({ now: 1_800_000_000_000 });
		// Item 0 alone opens; Auto then lets the other 11 go at once, two per turn. Item 1's server
		// error comes back while most of them still wait for their turn.
		const service = await check(
			[{ items: 12, recipients: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], continueOnFail: false, maxWaitSeconds: 60 }],
			[
				{ kind: 'ok', delayMs: 0, retryAfterSeconds: 0 },
				{ kind: '5xx', delayMs: 0, retryAfterSeconds: 0 },
			],
		);
		// Some of the round went before the answer (two per turn), the rest never did (all at once, every one went before it).
		const sent = service.requests.filter((request) => request.execution === 0).length;
		expect(sent).toBeGreaterThan(2);
		expect(sent).toBeLessThan(12);
	});

	it('the reproduction from issue 18: a run stops while two of its requests wait out a 429; the next execution sends', async () => {
		vi.useFakeTimers({ now: 1_800_000_000_000 });
		await check(
			[{ items: 3, recipients: [0, 1, 2], maxConcurrent: 3, continueOnFail: false, maxWaitSeconds: 60 }],
			[
				{ kind: '5xx', delayMs: 0, retryAfterSeconds: 0 },
				{ kind: '429-retry-after', delayMs: 10, retryAfterSeconds: 1 },
				{ kind: '429-retry-after', delayMs: 10, retryAfterSeconds: 1 },
			],
		);
	});
});
