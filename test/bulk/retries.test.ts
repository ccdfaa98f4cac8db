/**
 * What is retried and what is not (README "Bulk sending: fast and safe"), with scripted
 * faults so every run is deterministic:
 *   - 429: the whole run waits for Retry-After (measured at the emulator); Max Wait caps it;
 *   - a send that timed out, got a 5xx or lost its connection after it was written is NOT
 *     retried and says it may have been delivered; a 429 or a connection never made is;
 *   - reads and deletes ARE retried after a 5xx or a timeout;
 *   - "Retry Sends After Server Errors" retries sends (at-least-once, by choice).
 */
import { sleep } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { startEmulator,  type RequestRecord } from '../emulator';
import { now } from '../emulator/state';
import { runNode } from '../harness';
import {
	bulkItems,
	deliveryKey,
	directSendParameters,
	errorText,
	MAY_HAVE_BEEN_DELIVERED,
	pairingProblems,
	phoneOf,
	runOn,
	sendRequests,
} from './support';
import { useEmulator } from '../emulator/use';

const emulator = useEmulator({ seed: 5 });

const requestsTo = (api: RequestRecord['api']) => emulator.requests.filter((request) => request.api === api);
const phoneOfRequest = (request: RequestRecord) => (request.body as { phone: string }).phone;
// `at` (performance clock) and the scheduler's Date.now() may disagree by a few ms.
const CLOCK_SLACK_MS = 10;
// Requests the client started before it read a 429 may still arrive just after it was answered
// (they were under way); after this grace nothing new may arrive until the retry time.
const UNDER_WAY_GRACE_MS = 50;

describe('429: the whole run waits for Retry-After', () => {
	it('no request of the run reaches the service before the retry time (paced run)', async () => {
		const latencyMs = 20;
		emulator.setFaults({ latencyMs, script: ['429'] });
		// Paced at 5/s, item k may start no sooner than 200k ms after the run began. Requests started
		// before the node read the 429 were under way and may still arrive before the retry time; one
		// started after it may not. When the node read the 429 is not seen at the service, but it is
		// bounded: the node waits Retry-After from its read before it sends item 0 again. So an item
		// that arrives early must have been due by then. (An arrival-time allowance of one request
		// failed on a machine kept busy four times over: the node read the 429 late, by which time
		// items 1 and 2 were both due and under way.) Without the pause, items 1-4 arrive 200 ms apart
		// within the second, due long after the 429 was read.
		const runStart = now();
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 4, maxPerSecond: 5 }), items: bulkItems(6) });
		expect(run.error).toBeUndefined();
		expect(pairingProblems(run.items, 6)).toEqual([]);
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries).toHaveLength(6);

		const [limited, ...rest] = sendRequests(emulator);
		expect(limited.outcome).toBe('rate-limited');
		expect(phoneOfRequest(limited)).toBe(phoneOf(0));
		// The 429 was answered latencyMs after it arrived; Retry-After: 1 second from then.
		const answeredAt = limited.at + latencyMs;
		const retryTime = answeredAt + 1_000;
		const retried = rest.filter((request) => phoneOfRequest(request) === phoneOf(0));
		expect(retried).toHaveLength(1);
		expect(retried[0].at).toBeGreaterThanOrEqual(retryTime - CLOCK_SLACK_MS);
		const readBy = retried[0].at - 1_000;
		const early = rest.filter((request) => request.at < retryTime - CLOCK_SLACK_MS);
		const phones = Array.from({ length: 6 }, (_, index) => phoneOf(index));
		const itemOf = (request: RequestRecord) => phones.indexOf(phoneOfRequest(request));
		const letGo = early.filter((request) => runStart + 200 * itemOf(request) > readBy + CLOCK_SLACK_MS);
		expect(letGo.map((request) => `item ${itemOf(request)} at +${Math.round(request.at - answeredAt)} ms (due +${Math.round(runStart + 200 * itemOf(request) - answeredAt)} ms, 429 read by +${Math.round(readBy - answeredAt)} ms)`)).toEqual([]);
		expect(rest.filter((request) => request.at >= retryTime - CLOCK_SLACK_MS).length).toBeGreaterThanOrEqual(2);
		// Item 0 was retried after the pause and delivered once.
		expect(retried.map((request) => request.outcome)).toEqual(['delivered']);
		expect(emulator.deliveryCounts().get(deliveryKey(0))).toBe(1);
	});

	it('with 4 in flight: requests already under way finish, nothing new starts until the retry time', async () => {
		const latencyMs = 40;
		emulator.setFaults({ latencyMs, script: ['429'] });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 4 }), items: bulkItems(12) });
		expect(run.error).toBeUndefined();
		expect(pairingProblems(run.items, 12)).toEqual([]);
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries).toHaveLength(12);

		const requests = sendRequests(emulator);
		const limited = requests.find((request) => request.outcome === 'rate-limited')!;
		const answeredAt = limited.at + latencyMs;
		const early = requests.filter((request) => request.at > answeredAt + UNDER_WAY_GRACE_MS && request.at < answeredAt + 1_000 - CLOCK_SLACK_MS);
		expect(early.map((request) => `${phoneOfRequest(request)} at +${Math.round(request.at - answeredAt)} ms`)).toEqual([]);
		expect(requests.filter((request) => request.at >= answeredAt + 1_000 - CLOCK_SLACK_MS).length).toBeGreaterThanOrEqual(5);
		expect(run.elapsedMs).toBeGreaterThan(1_000);
	});

	it('Retry-After as an HTTP date from a real sliding-window limit: every item delivered exactly once', async () => {
		emulator.setFaults({ rateLimit: { limit: 4, windowMs: 1_000, retryAfterFormat: 'date' } });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 2 }), items: bulkItems(10) });
		expect(run.error).toBeUndefined();
		expect(pairingProblems(run.items, 10)).toEqual([]);
		expect(run.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries).toHaveLength(10);
		expect(sendRequests(emulator).some((request) => request.outcome === 'rate-limited')).toBe(true);
		// A date Retry-After has 1 s resolution and the emulator rounds it up: never more than
		// the limit of deliveries within one window.
		expect(emulator.maxRequestsInWindow(1_000, (request) => request.outcome === 'delivered')).toBeLessThanOrEqual(4);
	}, 20_000);

	it('Max Wait caps it: a Retry-After above Max Wait fails the item with the rate-limit reason, without waiting', async () => {
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 60_000, retryAfterSeconds: 30 } });
		const run = await runOn(emulator, {
			parameters: directSendParameters({ maxConcurrent: 1, maxWaitSeconds: 2 }),
			items: bulkItems(3),
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(pairingProblems(run.items, 3)).toEqual([]);
		for (const item of run.items) {
			expect(errorText(item)).toMatch(/rate limit/i);
			expect(errorText(item)).toMatch(/30 s.*Max Wait \(2 s\)/);
		}
		expect(emulator.deliveries).toHaveLength(0);
		// The first item asked once and gave up at once (no 30 s wait, no retry); the account is
		// paused for 30 s, so the others fail with the same reason without a call.
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('a fractional Max Wait is stated as set (0.5 s), not rounded into a contradiction ("wait 1 s, more than Max Wait (1 s)")', async () => {
		emulator.setFaults({ script: ['429'] });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxWaitSeconds: 0.5 }), items: bulkItems(1), continueOnFail: true });
		expect(errorText(run.items[0])).toMatch(/wait 1 s, more than Max Wait \(0\.5 s\)/);
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it("Max Wait 0 against the spec's reason (no Retry-After): the first refusal ends the wait, with no probe sent at once to be refused again", async () => {
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 60_000, answer: 'reason' } });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxWaitSeconds: 0 }), items: bulkItems(3), continueOnFail: true });
		for (const item of run.items) expect(errorText(item)).toMatch(/rate limit/i);
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('Max Wait without Continue On Fail: the run fails with the rate-limit reason', async () => {
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 60_000, retryAfterSeconds: 30 } });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxWaitSeconds: 2 }), items: bulkItems(3) });
		expect(run.error?.message).toMatch(/rate limit/i);
		expect(run.error?.name).toBe('NodeApiError');
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('a gateway that keeps refusing with a Retry-After of 0.01 s is tried every 250 ms at most, not once per round trip, until Max Wait', async () => {
		emulator.setFaults({ rateLimit: { limit: 0, windowMs: 3_600_000 }, retryAfter: '0.01' });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxWaitSeconds: 2 }), items: bulkItems(1) });
		expect(run.error?.message).toMatch(/rate limit/i);
		// The refusal that begins the pause, its probe 10 ms later, then one per 250 ms and the last at
		// Max Wait: at most 2 + 2 s / 250 ms + 1. Before the gap a probe went every few milliseconds.
		const sends = sendRequests(emulator);
		expect(sends.every((request) => request.outcome === 'rate-limited')).toBe(true);
		expect(sends.length).toBeLessThanOrEqual(11);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('a Retry-After within Max Wait is waited for (Max Wait is a cap, not a wait)', async () => {
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 60_000, retryAfterSeconds: 1 } });
		const run = await runOn(emulator, {
			parameters: directSendParameters({ maxWaitSeconds: 1, maxRetries: 1 }),
			items: bulkItems(2),
			continueOnFail: true,
		});
		// Item 1 is refused with Retry-After: 1 (= Max Wait), waits, is refused again, and fails after its one retry.
		expect(run.items[0].json.success).toBe(true);
		expect(errorText(run.items[1])).toMatch(/rate limit/i);
		expect(sendRequests(emulator).map((request) => request.outcome)).toEqual(['delivered', 'rate-limited', 'rate-limited']);
		const [, first, second] = sendRequests(emulator);
		expect(second.at - first.at).toBeGreaterThanOrEqual(1_000 - CLOCK_SLACK_MS);
	});
});

describe('sends are not retried when the service may have acted on them', () => {
	it.each(['5xx-after', '5xx-before'] as const)('a send answered %s is not retried and says it may have been delivered', async (fault) => {
		emulator.setFaults({ script: [fault] });
		const run = await runOn(emulator, { parameters: directSendParameters(), items: bulkItems(2), continueOnFail: true });
		expect(errorText(run.items[0])).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect(run.items[1].json.success).toBe(true);
		expect(sendRequests(emulator).map((request) => request.outcome)).toEqual([fault, 'delivered']);
		expect(emulator.duplicates()).toEqual([]);
	});

	it('a refusal the service made before acting (429) IS retried, and delivered once', async () => {
		// A short Retry-After keeps the test quick; the waiting itself is covered above.
		emulator.setFaults({ script: ['429', '429'], retryAfter: '0.1' });
		const run = await runOn(emulator, { parameters: directSendParameters(), items: bulkItems(1) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.success).toBe(true);
		expect(sendRequests(emulator).map((request) => request.outcome)).toEqual(['rate-limited', 'rate-limited', 'delivered']);
		expect(emulator.deliveries).toHaveLength(1);
	});

	// That it is retried is decideRetry's 'notReached' rule (test/unit/retryPolicy.test.ts): a
	// refused port cannot count the attempts that reached it.
	it('a connection that was never made (refused) fails as "could not reach", never "may have been delivered"', async () => {
		// Nothing listens on the port of a server that was started and closed: ECONNREFUSED.
		const closed = await startEmulator();
		const deadUrl = closed.credentials.messagingBearerApi.sendBaseUrl;
		await closed.close();
		const started = performance.now();
		const run = await runOn(emulator, {
			parameters: directSendParameters({ maxRetries: 2 }),
			items: bulkItems(1),
			continueOnFail: true,
			credentials: { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, sendBaseUrl: deadUrl } },
		});
		expect(errorText(run.items[0])).toMatch(/Could not reach 127\.0\.0\.1:\d+: the connection was refused/);
		expect(errorText(run.items[0])).not.toMatch(MAY_HAVE_BEEN_DELIVERED);
		// Two retries with backoff (at most 0.25 s + 0.5 s): not for long.
		expect(performance.now() - started).toBeLessThan(3_000);
	});

	it('Retry Sends After Server Errors: a timed-out send is retried too', async () => {
		emulator.setFaults({ script: ['hang'] });
		const run = await runOn(emulator, {
			parameters: directSendParameters({ retrySendsOnServerError: true, timeoutSeconds: 1 }),
			items: bulkItems(1),
		});
		expect(run.error).toBeUndefined();
		expect(sendRequests(emulator).map((request) => request.outcome)).toEqual(['hang', 'delivered']);
	});

	it('Max Retries bounds the retries of what is retried (a read after 5xx answers)', async () => {
		emulator.setFaults({ script: ['5xx-before', '5xx-before', '5xx-before', '5xx-before'] });
		const run = await runOn(emulator, { parameters: { resource: 'template', operation: 'getAll', returnAll: true, options: { maxRetries: 2 } } });
		expect(run.error?.message).toMatch(/503|unavailable/i);
		expect(emulator.requests.filter((request) => request.api === 'templates').map((request) => request.outcome)).toEqual(['5xx-before', '5xx-before', '5xx-before']);
	});

	it('rate refusals are not bounded by Max Retries but by Max Wait: four 429s in a row, Max Retries 2, the item is delivered', async () => {
		emulator.setFaults({ script: ['429', '429', '429', '429'], retryAfter: '0.05' });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxRetries: 2 }), items: bulkItems(1), continueOnFail: true });
		expect(run.items[0].json.success).toBe(true);
		expect(sendRequests(emulator).map((request) => request.outcome)).toEqual(['rate-limited', 'rate-limited', 'rate-limited', 'rate-limited', 'delivered']);
		expect(emulator.deliveries).toHaveLength(1);
	});

	it('rate refusals leave Max Retries whole for what it bounds: three 429s, then a 5xx on a read, Max Retries 1, the read is tried again', async () => {
		emulator.setFaults({ script: ['429', '429', '429', '5xx-before'], retryAfter: '0.05' });
		const run = await runOn(emulator, { parameters: { resource: 'template', operation: 'getAll', returnAll: true, options: { maxRetries: 1 } } });
		expect(run.error).toBeUndefined();
		expect(requestsTo('templates').map((request) => request.outcome)).toEqual(['rate-limited', 'rate-limited', 'rate-limited', '5xx-before', 'ok']);
	});
});

describe('reads and deletes are retried after a 5xx or a timeout', () => {
	const templatesGetAll = { resource: 'template', operation: 'getAll', returnAll: true, options: {} };

	it.each(['5xx-after', '5xx-before'] as const)('template getAll after %s', async (fault) => {
		emulator.setFaults({ script: [fault] });
		const run = await runOn(emulator, { parameters: templatesGetAll });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.template_id)).toEqual(emulator.templates.map((template) => template.template_id));
		expect(requestsTo('templates').map((request) => request.outcome)).toEqual([fault, 'ok']);
	});

	it.each(['5xx-after', '5xx-before'] as const)('plant getAll after %s', async (fault) => {
		emulator.setFaults({ script: [fault, fault] });
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { resource: 'plant', operation: 'getAll', returnAll: false, limit: 2, options: {} },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.name)).toEqual(['Monstera', 'Aloe vera']);
		expect(requestsTo('plantsList').map((request) => request.outcome)).toEqual([fault, fault, 'ok']);
		expect(requestsTo('plantsList').every((request) => request.query.limit === '2')).toBe(true);
	});

	it('plant delete after a 5xx before processing', async () => {
		emulator.setFaults({ script: ['5xx-before'] });
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: { resource: 'plant', operation: 'delete', plantId: 2, options: {} } });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ deleted: true, id: 2 }]);
		expect(requestsTo('plantsDelete').map((request) => request.outcome)).toEqual(['5xx-before', 'ok']);
		expect(emulator.plants().map((plant) => plant.id)).toEqual([1, 3]);
	});

	it('plant delete after a 5xx AFTER processing: the retry finds the plant gone, and that is success', async () => {
		// The first DELETE was carried out, then answered 500. Repeating a DELETE is safe exactly
		// because its end state is the same; the retry's 404 means "already deleted", not a failure.
		emulator.setFaults({ script: ['5xx-after'] });
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: { resource: 'plant', operation: 'delete', plantId: 2, options: {} } });
		expect(requestsTo('plantsDelete').map((request) => request.status)).toEqual([500, 404]);
		expect(emulator.plants().map((plant) => plant.id)).toEqual([1, 3]);
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ deleted: true, id: 2 }]);
	});

	it('plant create (a POST) is not retried after a 5xx', async () => {
		emulator.setFaults({ script: ['5xx-after'] });
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { resource: 'plant', operation: 'create', name: 'Fern', plantId: 40, additionalFields: {}, options: {} },
			continueOnFail: true,
		});
		expect(errorText(run.items[0])).toMatch(/internal server error/i);
		expect(requestsTo('plantsCreate')).toHaveLength(1);
		expect(emulator.plants().filter((plant) => plant.id === 40)).toHaveLength(1);
	});
});

describe('a request that may have been carried out, waiting to go again when the run stops', () => {
	it('Retry Sends After Server Errors: a send answered 5xx after delivery, its retry cut off by another item\'s failure, is not listed as "Not sent"', async () => {
		// Item 0 is delivered and answered 500: it waits to be sent again. Item 1 is refused for good meanwhile: the run stops.
		emulator.setFaults({ script: ['5xx-after', 'success-false'] });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 2, retrySendsOnServerError: true }), items: bulkItems(3) });
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual([phoneOf(0)]);
		const description = (run.error as { description?: string }).description ?? '';
		// Before: "Not sent: items 0, 2", and a re-run of the items "not sent" sent item 0 again.
		expect(description).toMatch(/Not sent: item 2\./);
		// The run's error is item 0's (the first in input order), which says it may have been delivered; item 1 failed.
		expect(run.error?.message).toMatch(/may have been delivered/);
		expect(description).toMatch(/Failed: item 1\./);
	});
});

describe("n8n's Retry On Fail on a send node", () => {
	const retryOnFail = (continueOnFail: boolean, options: Parameters<typeof directSendParameters>[0] = { maxConcurrent: 1 }) => ({
		type: 'messaging',
		parameters: directSendParameters(options),
		credentials: ['messagingBearerApi'],
		continueOnFail,
		retryOnFail: true,
		maxTries: 3,
		waitBetweenTries: 0,
	});

	it.each([false, true])('re-runs the node, and the items already delivered are not sent again (Continue On Fail: %s)', async (continueOnFail) => {
		// A request is refused for good the first time (the service says it failed: nothing was
		// delivered); n8n then runs the whole node again (with Continue On Fail it does so when the
		// first output item carries an error: the first request fails then).
		emulator.setFaults({ script: continueOnFail ? ['success-false'] : ['ok', 'ok', 'success-false'] });
		const run = await runNode({ node: retryOnFail(continueOnFail), items: bulkItems(4), credentials: emulator.credentials as never, expressionEngine: 'legacy' });
		expect(run.error).toBeUndefined();
		expect(run.items.every((item) => item.json.success === true)).toBe(true);
		// Every message delivered exactly once, though the node ran twice.
		expect(emulator.deliveries).toHaveLength(4);
		expect(emulator.duplicates()).toEqual([]);
		expect(sendRequests(emulator).filter((request) => request.outcome === 'success-false')).toHaveLength(1);
	});

	it.each([
		['5xx-after', false],
		['5xx-after', true],
		['reset-after', false],
		['reset-after', true],
	] as const)('a send whose fate is unknown (%s, Continue On Fail: %s) is not sent again: n8n gets the same failure for it', async (fault, continueOnFail) => {
		// The fault delivers the message, then the answer is lost: the node cannot know it went.
		emulator.setFaults({ script: continueOnFail ? [fault] : ['ok', fault] });
		const uncertain = continueOnFail ? 0 : 1;
		const run = await runNode({ node: retryOnFail(continueOnFail), items: bulkItems(3), credentials: emulator.credentials as never, expressionEngine: 'legacy' });
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries.map((delivery) => delivery.recipient).sort()).toEqual([0, 1, 2].map(phoneOf));
		// Each message went out once: the uncertain one is not sent again, the one never sent goes on a retry.
		expect(sendRequests(emulator).map(phoneOfRequest).sort()).toEqual([0, 1, 2].map(phoneOf));
		if (continueOnFail) {
			expect(run.error).toBeUndefined();
			expect(errorText(run.items[uncertain])).toMatch(MAY_HAVE_BEEN_DELIVERED);
			expect(run.items.filter((item) => item.json.success === true)).toHaveLength(2);
		} else {
			expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
			expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(uncertain);
			// The summary is the run's own, not stacked up over the tries.
			expect((run.error as { description?: string }).description?.match(/Sent before the run stopped/g)).toHaveLength(1);
		}
	});

	it('with Retry Sends After Server Errors, a send whose tries may each have been carried out goes Max Retries + 1 times in all, not again on n8n\'s retry, and says it may have been delivered', async () => {
		// Item 1 is delivered and answered 500 on each of its 3 tries (Max Retries 2). Before: its
		// error read "... (3 tries)" alone, and n8n's Retry On Fail sent it 3 times more per run.
		emulator.setFaults({ script: ['ok', '5xx-after', '5xx-after', '5xx-after'] });
		const run = await runNode({
			node: retryOnFail(false, { maxConcurrent: 1, retrySendsOnServerError: true, maxRetries: 2 }),
			items: bulkItems(3),
			credentials: emulator.credentials as never,
			expressionEngine: 'legacy',
		});
		expect(run.error?.message).toMatch(/^Internal server error \(3 tries\)\. The message may have been delivered, perhaps more than once: .* Check before resending\. \[item 1\]$/);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(1);
		expect(sendRequests(emulator).filter((request) => phoneOfRequest(request) === phoneOf(1))).toHaveLength(3);
		// Item 0 went once; item 2 (never sent before the stop) went on n8n's retry, once.
		expect(sendRequests(emulator).map(phoneOfRequest).filter((phone) => phone !== phoneOf(1)).sort()).toEqual([phoneOf(0), phoneOf(2)]);
	});

	it('with Retry Sends After Server Errors, a send waiting for its next try when the run stopped is not sent again by n8n\'s retry', async () => {
		// Item 0 is delivered and answered 500: it waits to go again. Item 1 is refused for good meanwhile: the run stops.
		emulator.setFaults({ script: ['5xx-after', 'success-false'] });
		await runNode({
			node: retryOnFail(false, { maxConcurrent: 2, retrySendsOnServerError: true }),
			items: bulkItems(3),
			credentials: emulator.credentials as never,
			expressionEngine: 'legacy',
		});
		expect(sendRequests(emulator).filter((request) => phoneOfRequest(request) === phoneOf(0))).toHaveLength(1);
		expect(emulator.duplicates()).toEqual([]);
	});

	it('with Retry Sends After Server Errors, a last try refused in the service\'s words still says an earlier one may have been carried out', async () => {
		// Its second try is refused in the service's words (nothing sent then); the first was delivered, its answer lost.
		emulator.setFaults({ script: ['5xx-after', 'success-false'] });
		const run = await runOn(emulator, { parameters: directSendParameters({ retrySendsOnServerError: true, maxRetries: 2 }), items: bulkItems(1), continueOnFail: true });
		expect(errorText(run.items[0])).toMatch(/\. The message may have been delivered all the same: an earlier try may have been carried out/);
		expect(emulator.deliveries).toHaveLength(1);
	});

	it.each(['wrong-shape-200', 'html-200', 'redirect-303', 'redirect-302'] as const)('a send answered %s (the node cannot tell whether it went) is not sent again either', async (fault) => {
		emulator.setFaults({ script: ['ok', fault] });
		const run = await runNode({ node: retryOnFail(false), items: bulkItems(3), credentials: emulator.credentials as never, expressionEngine: 'legacy' });
		expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(1);
		// Each message went out once: item 1 not again, item 2 (never sent) on a retry.
		expect(sendRequests(emulator).map(phoneOfRequest).sort()).toEqual([0, 1, 2].map(phoneOf));
	});

	it.each([
		['ok', 'success-false', 0],
		['ok', '5xx-after', 1],
	] as const)('an item is known by its input, not its request: with a text from $now, item %#\'s message (%s, then %s) is not sent again on the retry', async (first, second, once) => {
		emulator.setFaults({ script: [first, second] });
		const node = retryOnFail(false);
		const run = await runNode({
			node: { ...node, parameters: { ...node.parameters, text: '={{ $json.text + " at " + $now.toMillis() }}' } },
			items: bulkItems(3),
			credentials: emulator.credentials as never,
			expressionEngine: 'legacy',
		});
		// Before: remembered by its request, whose text had changed by the retry: sent, and delivered, twice.
		expect(emulator.deliveries.filter((delivery) => delivery.recipient === phoneOf(once))).toHaveLength(1);
		expect(sendRequests(emulator).filter((request) => phoneOfRequest(request) === phoneOf(0))).toHaveLength(1);
		if (second === '5xx-after') expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
	});

	it('a Stop is seen by the retry n8n starts after it: the run ends at once, with nothing more sent', async () => {
		emulator.setFaults({ latencyMs: 20 });
		const cancel = new AbortController();
		const running = runNode({
			node: { ...retryOnFail(true, { maxPerSecond: 2, maxConcurrent: 1 }), waitBetweenTries: 10 },
			items: bulkItems(12),
			credentials: emulator.credentials as never,
			expressionEngine: 'legacy',
			signal: cancel.signal,
		});
		for (let waited = 0; sendRequests(emulator).length < 1 && waited < 10_000; waited += 10) await sleep(10);
		cancel.abort();
		const run = await running;
		const sent = sendRequests(emulator).length;
		// Before: the retry ran as if nothing had happened, through its pacing (11 s here), every
		// request refused by n8n's helper on the fired signal, and ended "successfully" with items
		// that said only "canceled".
		expect(run.run.status).toBe('canceled');
		expect(run.error?.message).toBe('The execution was canceled');
		expect(sent).toBeLessThanOrEqual(2);
	});

	it('a send abandoned when the run stopped is not sent again either', async () => {
		// Item 0 gets no answer; item 1 is refused, which stops the run: item 0 is abandoned a
		// second later, and may have been delivered.
		emulator.setFaults({ script: ['hang-forever', 'success-false'] });
		const run = await runNode({ node: retryOnFail(false, { maxConcurrent: 2 }), items: bulkItems(2), credentials: emulator.credentials as never, expressionEngine: 'legacy' });
		expect(run.error?.message).toMatch(/The run stopped at an earlier failure while waiting for .*may have been delivered/i);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(0);
		expect(sendRequests(emulator).map(phoneOfRequest).sort()).toEqual([phoneOf(0), phoneOf(1), phoneOf(1)]);
	});
});

describe("the Retry button of a failed execution (n8n runs a new execution from the node that failed, with the same input)", () => {
	const sendNode = { type: 'messaging', parameters: directSendParameters({ maxConcurrent: 1 }), credentials: ['messagingBearerApi'] };
	const run = async (items: ReturnType<typeof bulkItems>, retryOf?: string, hooksAsN8n1 = false) =>
		await runNode({ node: sendNode, items, credentials: emulator.credentials as never, expressionEngine: 'legacy', retryOf, hooksAsN8n1 });

	it.each([
		['n8n 2.x: the hooks name the execution retried', false],
		['n8n 1.x: found by its inputs', true],
	])('%s: what the failed run delivered is not sent again, and its output is as it was', async (_, asN8n1) => {
		// Item 2 is refused for good (nothing delivered): the run stops with items 0 and 1 delivered, item 3 not sent.
		emulator.setFaults({ script: ['ok', 'ok', 'success-false'] });
		const items = bulkItems(4);
		const failed = await run(items, undefined, asN8n1);
		expect(failed.error?.message).toMatch(/\[item 2\]/);
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual([phoneOf(0), phoneOf(1)]);

		const retried = await run(items, failed.run.executionId, asN8n1);
		expect(retried.error).toBeUndefined();
		expect(retried.items.map((item) => item.json.success)).toEqual([true, true, true, true]);
		// Before: items 0 and 1 went again (2 duplicates per retry).
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual([0, 1, 2, 3].map(phoneOf));
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 2, 2, 3].map(phoneOf));
	});

	it('one that may have been delivered is not sent again on the retry either, and says so again', async () => {
		emulator.setFaults({ script: ['ok', '5xx-after'] });
		const items = bulkItems(3);
		const failed = await run(items);
		expect(failed.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		const retried = await run(items, failed.run.executionId);
		expect(retried.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect((retried.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(1);
		expect(emulator.duplicates()).toEqual([]);
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 2].map(phoneOf));
	});

	it('a Retry of a cancelled execution is saved as failed, not cancelled, with the item the cancel left in doubt (outside review: saved as cancelled)', async () => {
		emulator.setFaults({ script: ['ok', 'hang-forever'] });
		const items = bulkItems(3);
		const cancel = new AbortController();
		const stopping = runNode({ node: sendNode, items, credentials: emulator.credentials as never, expressionEngine: 'legacy', signal: cancel.signal });
		while (sendRequests(emulator).length < 2) await sleep(10);
		cancel.abort();
		const stopped = await stopping;
		expect(stopped.run.status).toBe('canceled');

		const retried = await run(items, stopped.run.executionId);
		// n8n saves an execution whose error says "canceled" as cancelled: this one was not.
		expect(retried.run.status).toBe('error');
		expect(retried.error?.message).toMatch(/^The execution was stopped while waiting for .*may have been delivered/i);
		expect(retried.error?.message).not.toMatch(/cancel/i);
		expect((retried.error as { description?: string }).description).toMatch(/in the run this one retries: it was not sent again/);
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 2].map(phoneOf));
		expect(emulator.duplicates()).toEqual([]);
	});

	it('a retry of that retry still knows what the first run delivered', async () => {
		emulator.setFaults({ script: ['ok', 'success-false', 'success-false'] });
		const items = bulkItems(3);
		const first = await run(items);
		const second = await run(items, first.run.executionId);
		expect(second.error?.message).toMatch(/\[item 1\]/);
		const third = await run(items, second.run.executionId);
		expect(third.error).toBeUndefined();
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual([0, 1, 2].map(phoneOf));
	});

	it('a second Retry of the failed execution does not send again what the first Retry delivered (n8n still offers it when that one failed too)', async () => {
		// The run: items 0 and 1 delivered, item 2 refused. Its first Retry: item 2 delivered, item 3 refused.
		emulator.setFaults({ script: ['ok', 'ok', 'success-false', 'ok', 'success-false'] });
		const items = bulkItems(4);
		const failed = await run(items);
		const firstRetry = await run(items, failed.run.executionId);
		expect(firstRetry.error?.message).toMatch(/\[item 3\]/);
		const secondRetry = await run(items, failed.run.executionId);
		expect(secondRetry.error).toBeUndefined();
		// Before: item 2 went again.
		expect(emulator.duplicates()).toEqual([]);
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 2, 2, 3, 3].map(phoneOf));
		expect(secondRetry.items.map((item) => item.json.success)).toEqual([true, true, true, true]);
	});

	it('a new execution with the same input (not a retry) sends everything, and so does an n8n 1.x retry whose inputs differ', async () => {
		emulator.setFaults({ script: ['ok', 'success-false'] });
		const items = bulkItems(2);
		await run(items);
		await run(items);
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 0, 1].map(phoneOf));

		emulator.reset();
		emulator.setFaults({ script: ['ok', 'success-false'] });
		const failed = await run(items, undefined, true);
		await run([items[0], { ...items[1], text: 'changed' }], failed.run.executionId, true);
		expect(sendRequests(emulator).map(phoneOfRequest)).toEqual([0, 1, 0, 1].map(phoneOf));
	});
});
