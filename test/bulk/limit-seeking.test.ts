/* eslint-disable no-console -- not shipped: test code, run by Node outside n8n; prints the refusals it counted (README: Lint) */
/**
 * An account limit nobody told the node: the defaults find it, keep to it and remember it.
 *
 * The emulator enforces a sliding window over the send API that the node knows nothing of,
 * shrunk from a minute to WINDOW_MS to keep `npm test` short (the node learns the window from
 * what it observes; the bench uses real minutes). Three times the limit in items, no options:
 * every item is delivered exactly once, the run succeeds, and the whole run takes at most 1.2x
 * the ideal (the limit's worth at once, then the next as soon as the window lets it: two
 * windows and a few answers). A later run of the same credential gets no refusal at all. (A
 * counter reset on every clock window is held to the windows it needs instead: there the time
 * turns on whether a probe lands just before or just after a reset, which a busy machine moves.)
 */
import { sleep } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import type { RateLimitFault } from '../emulator';
import {
	bulkItems,
	directSendParameters,
	errorText,
	pairingProblems,
	runOn,
	type SendOptions,
	sendAccountState,
	sendRequests,
} from './support';
import { useEmulator } from '../emulator/use';
import { APPOINTMENT_REMINDER, mapperValue, templateById } from '../nodes/setup';

const LIMIT = 10;
const WINDOW_MS = 5_000;
const LATENCY_MS = 20;

const emulator = useEmulator({ seed: 3 });
/** Another account of the service, at its own base URL: a credential edited to reach it. */
const otherAccount = useEmulator({ seed: 4 });

/** One execution of Messaging → Send with `options` (none: the defaults), for one credential. */
async function execution(items: IDataObject[], credentialId: string, options: SendOptions = {}) {
	return await runOn(emulator, { parameters: directSendParameters(options), items, credentialId });
}

const refusals = () => sendRequests(emulator).filter((request) => request.outcome === 'rate-limited').length;

/**
 * The refusals of the requests under way at the first refusal: from it, each arriving within
 * 200 ms of the request before it, to the first quiet 200 ms (the node waits at least 250 ms
 * before its first probe, and sends it alone).
 */
function refusedUnderWay(requests: Array<{ at: number; outcome: string }>): number {
	const first = requests.findIndex((request) => request.outcome === 'rate-limited');
	if (first < 0) return 0;
	let count = 1;
	for (let index = first + 1; index < requests.length && requests[index].at - requests[index - 1].at < 200; index++) {
		if (requests[index].outcome === 'rate-limited') count++;
	}
	return count;
}

/** Two windows, and the answers of the first and last sends (at the slowest latency). */
const idealMs = (jitterMs: number) => 2 * WINDOW_MS + 3 * (LATENCY_MS + jitterMs);

describe.each([
	{ name: "the spec's 400 reason, no Retry-After", rule: { answer: 'reason' }, credentialId: 'seek-reason', jitterMs: 0 },
	{ name: '429 with Retry-After', rule: { answer: '429' }, credentialId: 'seek-429', jitterMs: 0 },
	// Answers cross on the way back: a refusal can come before the acceptances of requests that
	// arrived before it. Those count in the limit learned (they once taught 1 or 2 of 10).
	{ name: "the spec's 400 reason, answers taking 20-120 ms", rule: { answer: 'reason' }, credentialId: 'seek-jitter', jitterMs: 100 },
] as Array<{ name: string; rule: Partial<RateLimitFault>; credentialId: string; jitterMs: number }>)('an account limit of $name, unknown to the node', ({ rule, credentialId, jitterMs }) => {
	const IDEAL_MS = idealMs(jitterMs);
	it(`defaults, ${3 * LIMIT} items: all delivered once within 1.2x the ideal; a later run gets no refusal, and keeps the whole limit`, async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, latencyJitterMs: jitterMs, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, ...rule } });
		const first = await execution(bulkItems(3 * LIMIT), credentialId);
		expect(first.error).toBeUndefined();
		expect(pairingProblems(first.items, 3 * LIMIT)).toEqual([]);
		expect(first.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.deliveries).toHaveLength(3 * LIMIT);
		expect(emulator.duplicates()).toEqual([]);
		const foundWith = refusals();
		// While the limit is found: the requests under way when the first refusal came, then the
		// probes, one per round window length up to the window (0.25, 0.5, 1, 1.5, 2, 3, 4, 5 s), or
		// the one Retry-After named. Those under way keep arriving while answers are read (on a busy
		// machine, for longer than 200 ms after the first refusal: seen in CI); the first probe waits
		// 250 ms at least after the last of them, so they end at the first 200 ms without a request.
		const underWay = refusedUnderWay(sendRequests(emulator));
		console.log(`limit-seeking (${rule.answer}): ${foundWith} refusals while finding the limit (${underWay} under way at the first, ${foundWith - underWay} probes); run ${Math.round(first.elapsedMs)} ms, ideal ${IDEAL_MS} ms`);
		expect(underWay).toBeGreaterThan(0);
		// Auto opened to 16 after the first answer, and grows by one per accepted answer.
		expect(underWay).toBeLessThanOrEqual(16 + 2 * LIMIT);
		expect(foundWith - underWay).toBeLessThanOrEqual(rule.answer === '429' ? 1 : 8);
		expect(first.elapsedMs).toBeLessThanOrEqual(1.2 * IDEAL_MS);
		expect(emulator.maxRequestsInWindow(WINDOW_MS, (request) => request.outcome === 'delivered')).toBeLessThanOrEqual(LIMIT);

		// The limit is known now: a later execution of the credential starts at it, the whole of it:
		// the limit's worth in each window (the first waits for the last run's window to pass).
		const before = sendRequests(emulator).length;
		const second = await execution(bulkItems(6 * LIMIT).slice(3 * LIMIT), credentialId);
		expect(second.error).toBeUndefined();
		expect(emulator.deliveries).toHaveLength(6 * LIMIT);
		expect(refusals()).toBe(foundWith);
		const arrivals = sendRequests(emulator).slice(before).map((request) => request.at);
		const mostInAWindow = Math.max(...arrivals.map((at) => arrivals.filter((other) => other >= at && other < at + WINDOW_MS).length));
		console.log(`limit-seeking (${rule.answer}, jitter ${jitterMs} ms): a later run of ${3 * LIMIT} in ${Math.round(second.elapsedMs)} ms, at most ${mostInAWindow} in a window`);
		expect(mostInAWindow).toBe(LIMIT);
	}, 60_000);
});

describe('executions arriving in steps against an account limit unknown to the node (webhooks, a CRM trigger)', () => {
	it(`one item, two more ${((0.69 * WINDOW_MS) / 1000).toFixed(2)} s later, then ${3 * LIMIT - 3} at ${(1.4 * WINDOW_MS) / 1000} s, the spec's 400 reason: all delivered once within 1.2x the ideal, at the whole limit`, async () => {
		// The burst finds the window partly filled by the executions before it, and the refusals
		// begin when it has sent only part of the limit: learned from that burst alone, the limit
		// was 8 per 3 s, then 3 per 7.5 s, and these took 2.5x the ideal (an outside review, on n8n
		// 1.123 with one webhook execution per message).
		emulator.setFaults({ latencyMs: LATENCY_MS, latencyJitterMs: 0, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer: 'reason' } });
		const credentialId = 'seek-steps';
		const items = bulkItems(3 * LIMIT);
		const started = performance.now();
		const steps: Array<[number, IDataObject[]]> = [
			[0, items.slice(0, 1)],
			[0.69 * WINDOW_MS, items.slice(1, 3)],
			[1.4 * WINDOW_MS, items.slice(3)],
		];
		const runs = steps.map(async ([at, stepItems]) => {
			await sleep(at);
			return await execution(stepItems, credentialId);
		});
		const outcomes = await Promise.all(runs);
		const tookMs = performance.now() - started;
		for (const outcome of outcomes) expect(outcome.error).toBeUndefined();
		expect(emulator.deliveries).toHaveLength(3 * LIMIT);
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.maxRequestsInWindow(WINDOW_MS, (request) => request.outcome === 'delivered')).toBeLessThanOrEqual(LIMIT);
		// Ideal: each as soon as the window lets it, from when its execution began (the first 10 in
		// the window: 1 + 2 + 7; then the two steps leave it in turn, then the burst's 7): three windows
		// and a half past the first send, and the last answer.
		const idealMs = 1.4 * WINDOW_MS + 2 * WINDOW_MS + 2 * LATENCY_MS;
		console.log(`limit-seeking (executions in steps): ${refusals()} refusals; ${Math.round(tookMs)} ms, ideal ${idealMs} ms`);
		expect(tookMs).toBeLessThanOrEqual(1.2 * idealMs);
	}, 90_000);
});

describe('two account limits at once, unknown to the node', () => {
	it("a gateway's 5 per second (429 + Retry-After) before 15 per 6 s (the spec's 400 reason), 45 items: all delivered once within 1.2x the ideal, both limits learned, a later run not refused", async () => {
		// Learned as one limit, the pause behind the longer one taught its window with the second's
		// count (5 per 6 s), or the one limit flipped between the two at each pause: every window refused again.
		const gateway = { limit: 5, windowMs: 1_000 };
		emulator.setFaults({ latencyMs: LATENCY_MS, latencyJitterMs: 0, rateLimit: { limit: 15, windowMs: 6_000, answer: 'reason', gateway } });
		const credentialId = 'seek-two-limits';
		const first = await execution(bulkItems(45), credentialId);
		expect(first.error).toBeUndefined();
		expect(first.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.deliveries).toHaveLength(45);
		expect(emulator.duplicates()).toEqual([]);
		// Ideal: 5 a second for 15, the next 15 as the 6 s window lets them, then the last 15.
		const idealMs = 2 * 6_000 + 2 * 1_000 + 3 * LATENCY_MS;
		const foundWith = refusals();
		console.log(`limit-seeking (two limits): ${foundWith} refusals; run ${Math.round(first.elapsedMs)} ms, ideal ${idealMs} ms`);
		expect(first.elapsedMs).toBeLessThanOrEqual(1.2 * idealMs);
		expect(emulator.maxRequestsInWindow(6_000, (request) => request.outcome === 'delivered')).toBeLessThanOrEqual(15);

		// Both learned: the scheduler of the package the engine runs (dist/, loaded by Node's require).
		const { learned, learnedLonger } = sendAccountState(credentialId);
		expect(learned).toMatchObject({ base: 5, windowMs: 1_000 });
		expect(learnedLonger).toMatchObject({ count: 15, windowMs: 6_000 });

		const second = await execution(bulkItems(60).slice(45), credentialId);
		expect(second.error).toBeUndefined();
		expect(emulator.deliveries).toHaveLength(60);
		expect(refusals()).toBe(foundWith);
	}, 90_000);
});

describe('an account limit counted per clock window (a counter reset on every multiple of the window, as per clock minute), unknown to the node', () => {
	it(`defaults, ${3 * LIMIT} items, the spec's 400 reason: all delivered once in the three clock windows it needs; the window is learned whole, and a later run gets no refusal`, async () => {
		// The first pause sees the counter reset before a whole window has passed (the run began
		// into the clock's window) and takes that for the window; the next refusal corrects it. Begun
		// 2 s into a window, the reset comes 3 s after the first sends, a round length the probes meet.
		// A machine busy enough to hold the opening for seconds can put its first message before a
		// reset and the rest after: then the service accepted 11 "in a row" (1 + 10), the node learns
		// 11, and a later run meets one refusal and its probes before it drops to 10 (a known limit of
		// learning a clock window). That is not this test's case: it runs again on another account,
		// at most three times in all.
		const phase = () => Date.now() % WINDOW_MS;
		const windowOf = (at: number) => Math.floor(at / WINDOW_MS);
		let startedAt = 0;
		let credentialId = '';
		let first: Awaited<ReturnType<typeof execution>>;
		for (let attempt = 0; ; attempt++) {
			emulator.reset();
			while (Math.abs(phase() - 2_000) > 100) await sleep(Math.max(1, (2_000 - phase() + WINDOW_MS) % WINDOW_MS));
			startedAt = Date.now();
			credentialId = `seek-clock-${attempt}`;
			emulator.setFaults({ latencyMs: LATENCY_MS, latencyJitterMs: 0, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer: 'reason', counting: 'clock' } });
			first = await execution(bulkItems(3 * LIMIT), credentialId);
			const sends = sendRequests(emulator);
			const firstRefusal = sends.find((request) => request.outcome === 'rate-limited');
			if (!firstRefusal || windowOf(sends[0].at) === windowOf(firstRefusal.at)) break;
			console.log(`limit-seeking (clock window): the opening straddled a reset (first send ${sends[0].at % WINDOW_MS} ms into a window, started ${startedAt % WINDOW_MS}); again on another account`);
			expect(attempt).toBeLessThan(2);
		}
		expect(first.error).toBeUndefined();
		expect(first.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.deliveries).toHaveLength(3 * LIMIT);
		expect(emulator.duplicates()).toEqual([]);
		// Ideal: the limit's worth at once, the next at the reset, the last at the reset after
		// (counted from the first send: a busy machine may hold the start into the next window).
		const opening = sendRequests(emulator);
		const ideal = opening[0].at - startedAt + WINDOW_MS - (opening[0].at % WINDOW_MS) + WINDOW_MS + 3 * LATENCY_MS;
		const foundWith = refusals();
		const phaseOf = (at: number) => `${Math.floor(at / WINDOW_MS) % 100}:${Math.round(at % WINDOW_MS)}`;
		console.log(`limit-seeking (clock window): ${foundWith} refusals; run ${Math.round(first.elapsedMs)} ms, ideal ${ideal} ms; started ${phaseOf(startedAt)}, first send ${phaseOf(opening[0].at)}, first refusal ${phaseOf(opening.find((request) => request.outcome === 'rate-limited')!.at)}`);
		// Counted in the service's windows, not in time: CI ran this 1.8 s past 1.2x the ideal, the
		// rest of the suite running beside it, still inside the third window. The limit's worth in the
		// window of the first send, and the rest in the two after it. Learning 9 of the 10 (leaving the
		// probe that reopened the window out of the count) left the last item for a fourth. The time
		// against the ideal is held under simulated time (test/unit/limit-two-limits.test.ts, "10 per
		// clock window of 5 s").
		const deliveredIn = opening.filter((request) => request.outcome === 'delivered').map((request) => windowOf(request.at) - windowOf(opening[0].at));
		expect(deliveredIn.filter((window) => window === 0)).toHaveLength(LIMIT);
		expect(Math.max(...deliveredIn)).toBe(2);

		const second = await execution(bulkItems(4 * LIMIT).slice(3 * LIMIT), credentialId);
		console.log(`limit-seeking (clock window), later run: ${sendRequests(emulator).slice(opening.length).map((request) => `${phaseOf(request.at)} ${request.outcome === 'delivered' ? '+' : 'x'}`).join(', ')}; first run's last: ${opening.slice(-3).map((request) => phaseOf(request.at)).join(', ')}`);
		expect(second.error).toBeUndefined();
		expect(emulator.deliveries).toHaveLength(4 * LIMIT);
		expect(refusals()).toBe(foundWith);
	}, 90_000);
});

describe('a limit that cannot be waited out', () => {
	it('a one-item execution (a webhook, a CRM event) that gives up says its message was not sent', async () => {
		// It said "Re-run only the items listed as not sent" and listed none.
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 0, windowMs: 3_600_000, answer: 'reason' } });
		const run = await execution(bulkItems(1), 'seek-one-item', { maxWaitSeconds: 1 });
		expect(run.error?.message).toMatch(/did not reopen within Max Wait \(1 s\)/);
		expect((run.error as { description?: string }).description).toMatch(/Re-run only the items listed as not sent\. Not sent: item 0\.$/);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('an hourly limit stops the run within Max Wait + 1 s, saying what the limit was, what was sent and what to set', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: LIMIT, windowMs: 3_600_000, answer: 'reason' } });
		const run = await execution(bulkItems(LIMIT + 5), 'seek-hourly', { maxWaitSeconds: 3 });
		const firstRefusal = sendRequests(emulator).find((request) => request.outcome === 'rate-limited')!;
		const endedAt = performance.timeOrigin + performance.now();
		expect(endedAt - firstRefusal.at).toBeLessThan(3_000 + 1_000);
		expect(run.error?.message).toMatch(/rate limit was reached after it accepted 10 in the last hour and did not reopen within Max Wait \(3 s\)/);
		// The status the service refused with: the direct send's 400 with the rate-limit reason, not a 429 it never sent.
		expect((run.error as { httpCode?: string }).httpCode).toBe('400');
		const description = (run.error as { description?: string }).description ?? '';
		expect(description).toMatch(/Max Wait to 3600/);
		expect(description).toMatch(/Sent before the run stopped: items 0-9\./);
		// Beside n8n's Retry button: where a retry would send those again (outside review, queue mode).
		expect(description).toMatch(/A Retry in this n8n process does not send those again \(the node remembers its last 20 failed runs for 24 hours\); on another queue-mode worker, or after a restart, it does\./);
		// The item that gave up carries the error, and is listed as not sent with every other item past
		// the limit: its message says the limit did not reopen, not that it went unsent, and a re-run
		// of the items listed as not sent left it out.
		const failedItem = (run.error as { context?: { itemIndex?: number } }).context?.itemIndex;
		expect(failedItem).toBe(10);
		expect(description).toMatch(/Not sent: items 10-14\./);
		expect(emulator.deliveries).toHaveLength(LIMIT);
	}, 30_000);

	it('a run that gave up leaves nothing behind: once the limit is gone, the next execution of the credential sends', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 2, windowMs: 3_600_000, answer: 'reason' } });
		const first = await execution(bulkItems(4), 'seek-gave-up', { maxWaitSeconds: 1 });
		expect(first.error?.message).toMatch(/did not reopen within Max Wait \(1 s\)/);
		// The plan was raised (or the hour passed): the service takes everything now.
		emulator.setFaults({ rateLimit: null });
		const before = sendRequests(emulator).length;
		const later = await execution(bulkItems(6).slice(4), 'seek-gave-up', { maxWaitSeconds: 1 });
		expect(later.error).toBeUndefined();
		expect(sendRequests(emulator).slice(before).map((request) => request.outcome)).toEqual(['delivered', 'delivered']);
	}, 30_000);

	it('after a run gave up at an hourly limit, the next execution asks the service with one request, not with Auto\'s whole round (outside review: 25 at once, all refused)', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 2, windowMs: 3_600_000, answer: 'reason' } });
		const first = await execution(bulkItems(40), 'seek-gave-up-next', { maxWaitSeconds: 1 });
		expect(first.error?.message).toMatch(/did not reopen within Max Wait \(1 s\)/);
		const before = sendRequests(emulator).length;
		const later = await execution(bulkItems(65).slice(40), 'seek-gave-up-next', { maxWaitSeconds: 1 });
		expect(later.error?.message).toMatch(/did not reopen within Max Wait \(1 s\)/);
		const sent = sendRequests(emulator).slice(before);
		// One request first; once it is refused, only the pause's probes (a few within Max Wait's second).
		expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(LATENCY_MS);
		expect(sent.length).toBeLessThanOrEqual(5);
		expect(emulator.deliveries).toHaveLength(2);

		// The limit gone, the one request is accepted and Auto is back at its level: the rest goes at once.
		// Answers take 200 ms here, so a round is told from a busy machine's pause within one.
		const slowMs = 200;
		emulator.setFaults({ latencyMs: slowMs, rateLimit: null });
		const after = sendRequests(emulator).length;
		const third = await execution(bulkItems(90).slice(65), 'seek-gave-up-next', { maxWaitSeconds: 1 });
		expect(third.error).toBeUndefined();
		const went = sendRequests(emulator).slice(after);
		expect(went).toHaveLength(25);
		// The second goes after the first one's answer, and Auto is back at the level it had before: the
		// other 24 go as one round, not in rounds that grow from one again (1, 2, 4, ...: five or more).
		expect(went[1].at - went[0].at).toBeGreaterThanOrEqual(slowMs);
		const rounds = 1 + went.slice(1).filter((request, index) => request.at - went[index].at >= slowMs * 0.75).length;
		expect(rounds).toBe(2);
	}, 30_000);

	it('with Continue On Fail, every item past the limit says so, and none waits longer than Max Wait', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 2, windowMs: 3_600_000, answer: 'reason' } });
		const started = performance.now();
		const run = await runOn(emulator, {
			parameters: directSendParameters({ maxWaitSeconds: 2 }),
			items: bulkItems(8),
			credentialId: 'seek-hourly-cof',
			continueOnFail: true,
		});
		expect(pairingProblems(run.items, 8)).toEqual([]);
		expect(run.items.slice(0, 2).every((item) => item.json.success === true)).toBe(true);
		for (const item of run.items.slice(2)) expect(errorText(item)).toMatch(/did not reopen within Max Wait \(2 s\)/);
		expect(performance.now() - started).toBeLessThan(2_000 + 1_000 + 1_000);
	}, 30_000);

	it('with Continue On Fail and Max Concurrent 1, the items after the one that gave up fail with it, without a request (each waited out Max Wait in turn)', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 2, windowMs: 3_600_000, answer: 'reason' } });
		const run = await runOn(emulator, {
			parameters: directSendParameters({ maxWaitSeconds: 1, maxConcurrent: 1 }),
			items: bulkItems(6),
			credentialId: 'seek-hourly-cof-c1',
			continueOnFail: true,
		});
		expect(pairingProblems(run.items, 6)).toEqual([]);
		for (const item of run.items.slice(2)) expect(errorText(item)).toMatch(/did not reopen within Max Wait \(1 s\)/);
		// Only item 2 was ever refused (before the fix, 17 refusals: items 2-5 each paused and probed).
		const refused = sendRequests(emulator).filter((request) => request.outcome === 'rate-limited');
		expect(refused.length).toBeGreaterThan(0);
		expect(new Set(refused.map((request) => (request.body as IDataObject).phone))).toEqual(new Set([(bulkItems(3)[2] as IDataObject).phone]));
	}, 30_000);
});

describe('a service that also counts the requests it refuses (a sliding log that records each request before it checks)', () => {
	// Each refused probe holds such a window shut for a window more, and the requests refused with
	// the first one hold it until they leave: the probe at Max Wait found it full, and the run
	// stopped with 5 of 15 sent. The pause now spends a budget of refused probes, and its last probe
	// goes once those refused with the first have left (scheduler rule 5g); once a refusal shows that
	// the node's own refused requests fill the learned window, the learned limit counts them (5h).
	it('with the defaults (Max Wait shrunk to the 5 s window), every message goes once and the run succeeds; a later run is not refused', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 5, windowMs: 5_000, answer: 'reason', counting: 'every' } });
		const credentialId = 'seek-counts-refused-defaults';
		const run = await execution(bulkItems(15), credentialId, { maxWaitSeconds: 5 });
		expect(run.error).toBeUndefined();
		expect(run.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.deliveries).toHaveLength(15);
		expect(emulator.duplicates()).toEqual([]);
		expect(sendAccountState(credentialId)).toMatchObject({ learned: { count: 5, windowMs: 5_000 }, refusalsCount: true });
		const foundWith = refusals();
		const later = await execution(bulkItems(30).slice(15), credentialId, { maxWaitSeconds: 5 });
		expect(later.error).toBeUndefined();
		expect(emulator.deliveries).toHaveLength(30);
		expect(refusals()).toBe(foundWith);
	}, 90_000);

	// A limit of 3 a minute or fewer counted this way is still not waited out (README, "A service that
	// also counts the requests it refuses"). What the README tells a user to do then: set the plan's
	// limit, and the node never meets a refusal that would count.
	it("with the plan's limit set (Max Requests Per Second 5 against 5 per second), every message goes once and none is refused", async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: 5, windowMs: 1_000, answer: 'reason', counting: 'every' } });
		const run = await execution(bulkItems(15), 'seek-counts-refused', { maxPerSecond: 5 });
		expect(run.error).toBeUndefined();
		expect(run.items.every((item) => item.json.success === true)).toBe(true);
		expect(emulator.deliveries).toHaveLength(15);
		expect(emulator.duplicates()).toEqual([]);
		expect(refusals()).toBe(0);
	});
});

describe('a credential edited to reach another account', () => {
	it('does not carry over the limit learned for the account before: the next run sends at once what the new one allows', async () => {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer: 'reason' } });
		const credentialId = 'seek-edited';
		const learning = await execution(bulkItems(2 * LIMIT), credentialId);
		expect(learning.error).toBeUndefined();
		expect(sendAccountState(credentialId).learned).toMatchObject({ count: LIMIT, windowMs: WINDOW_MS });

		// The same credential, its Send Base URL now another account's, which has no such limit (an
		// outside review's went on at the 10 per 10 s learned before: 60 items took a minute, not 1 s).
		otherAccount.setFaults({ latencyMs: LATENCY_MS });
		const items = bulkItems(3 * LIMIT);
		const moved = await runOn(emulator, { parameters: directSendParameters(), items, credentialId, credentialData: otherAccount.credentials.messagingBearerApi });
		expect(moved.error).toBeUndefined();
		expect(otherAccount.deliveries).toHaveLength(3 * LIMIT);
		const sends = sendRequests(otherAccount);
		expect(sends.every((request) => request.outcome === 'delivered')).toBe(true);
		// Learned, the run would send LIMIT per window: its last send could not come before two windows had passed.
		expect(sends.at(-1)!.at - sends[0].at).toBeLessThan(WINDOW_MS);
	}, 60_000);
});

/**
 * The service's limit counts messages, and the spec does not say which operations it covers
 * (part 8): the emulator counts the direct send and the template send in one window, and so does
 * the node for one credential. Whoever arrives while a bulk run holds the limit gets the next
 * places as they reopen, also while the limit is still being found.
 */
describe('one limit over the direct send and the template send, and executions that arrive during a bulk run', () => {
	const bulkSize = 3 * LIMIT;
	/** Starts a bulk direct send, and resolves once the service has refused one of its requests (with the run, still under way). */
	async function bulkUntilRefused(credentialId: string) {
		emulator.setFaults({ latencyMs: LATENCY_MS, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer: 'reason' } });
		const running = execution(bulkItems(bulkSize), credentialId);
		while (refusals() === 0) await sleep(5);
		return { running };
	}
	/** When the bulk run's `n`-th message (1-based) was delivered. */
	const bulkDelivered = (n: number) => emulator.deliveries.filter((delivery) => delivery.api === 'send' && delivery.recipient !== SMALL_PHONE)[n - 1].at;
	const SMALL_PHONE = '+14155550000';

	it(`a template send arriving while a bulk direct send is finding the limit goes in the next window, not after the bulk run (outside review: it failed at Max Wait with none sent)`, async () => {
		const credentialId = 'one-limit-two-apis';
		const { running: bulk } = await bulkUntilRefused(credentialId);
		const templateRun = runOn(emulator, {
			parameters: { resource: 'message', operation: 'sendTemplate', phoneNumber: '={{ $json.phone }}', template: templateById(APPOINTMENT_REMINDER), variables: mapperValue({ body1: 'Ada', body2: 'Friday' }) },
			items: [0, 1, 2].map((index) => ({ phone: `+1415555${String(9000 + index)}` })),
			credentialId,
		});
		const [bulkRun, template] = await Promise.all([bulk, templateRun]);
		expect(bulkRun.error).toBeUndefined();
		expect(template.error).toBeUndefined();
		expect(template.items.map((item) => item.json.success)).toEqual([true, true, true]);
		expect(emulator.duplicates()).toEqual([]);
		const templateDeliveries = emulator.deliveries.filter((delivery) => delivery.api === 'templateSend');
		expect(templateDeliveries).toHaveLength(3);
		expect(emulator.deliveries).toHaveLength(bulkSize + 3);
		// In the window after the first one, beside the bulk run's, not once the bulk run is done.
		expect(Math.max(...templateDeliveries.map((delivery) => delivery.at))).toBeLessThan(bulkDelivered(2 * LIMIT));
	}, 60_000);

	it('a one-item execution arriving while a bulk run is finding the limit goes in the next window, not behind the bulk run\'s refused sends (outside review: three windows later)', async () => {
		const credentialId = 'fair-while-learning';
		const { running: bulk } = await bulkUntilRefused(credentialId);
		// Well inside the pause (its window is 5 s): the one item waits there, unsent, as a first try.
		await sleep(1_000);
		const small = execution([{ phone: SMALL_PHONE, text: 'your code is 1234' }], credentialId);
		const [bulkRun, smallRun] = await Promise.all([bulk, small]);
		expect(bulkRun.error).toBeUndefined();
		expect(smallRun.error).toBeUndefined();
		expect(emulator.duplicates()).toEqual([]);
		const smallDelivery = emulator.deliveries.find((delivery) => delivery.recipient === SMALL_PHONE);
		expect(smallDelivery).toBeDefined();
		// The bulk run's refused sends (about twice the limit) fill two windows: it goes in the first.
		expect(smallDelivery!.at).toBeLessThan(bulkDelivered(2 * LIMIT));
	}, 60_000);
});
