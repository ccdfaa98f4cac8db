/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Fault soak: thousands of direct sends with Continue On Fail while the emulator injects every
 * kind of fault the retry policy must tell apart (README "Bulk sending: fast and safe"):
 *
 *   429 + Retry-After              refused, not processed   -> retried (whole run waits), delivered once
 *   5xx after processing           delivered, then 500/502  -> NOT retried, "may have been delivered"
 *   reset / close after processing delivered, no answer      -> NOT retried, "may have been delivered"
 *   5xx whose text says rate limit delivered, then 503       -> NOT retried (judged by status), "may have been delivered"
 *   reset before processing        nothing processed        -> NOT retried: to the client it looks exactly
 *                                                              like a reset after; "may have been delivered"
 *   200 with failure body          not delivered            -> error item with the service reason, not retried
 *   redirect (301..308) to the trap not processed           -> error item naming the redirect, nothing at the trap
 *   HTML / empty / wrong-shape 200 not processed           -> "Unexpected answer", "may have been delivered"
 *
 * (The echoed key is a 401: it stops every later item by design, so it is tested on its own in
 * test/nodes/network-faults.test.ts, not here.)
 *
 * The emulator records every request with its outcome, so each item's whole story is read back
 * per recipient and compared with its output item: 0 duplicate deliveries, 0 false successes,
 * 0 lost items (exactly one output per item, paired), and every item that may have been
 * delivered says so.
 *
 * SOAK_N=10000 npx vitest run test/bulk/soak.test.ts   runs a bigger soak (default 2,000).
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import type { Outcome, RequestRecord } from '../emulator';
import {
	bulkItems,
	deliveryKey,
	directSendParameters,
	errorText,
	MAY_HAVE_BEEN_DELIVERED,
	pairingProblems,
	phoneOf,
	requestsByRecipient,
	runOn,
	textOf,
} from './support';
import { useEmulator } from '../emulator/use';

const N = Number(process.env.SOAK_N ?? 2_000);
const SEED = Number(process.env.SOAK_SEED ?? 20_240_611);
// Every 429 says Retry-After: 1 and, by design, pauses the WHOLE run for that second (the
// limit is the account's). At 5% 429s the run's length is therefore about one second per
// "wave" of requests that contains a 429: with 16 in flight that is ~35 requests per second
// (2,000 items ≈ 60 s), with 32 ≈ 50 s, with 128 ≈ 17 waves ≈ 20-25 s. The soak uses 128 in
// flight, which also makes the interleaving harsher; SOAK_CONCURRENCY overrides it.
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 128);
const FAULTS = {
	latencyMs: 2,
	p429: 0.05,
	pResetBeforeProcessing: 0.01,
	p5xxAfterProcessing: 0.02,
	pSuccessFalse: 0.01,
	pResetAfterProcessing: 0.02,
	pCloseAfterProcessing: 0.01,
	pRedirect: 0.01,
	pHtml200: 0.01,
	pEmpty200: 0.005,
	pWrongShape200: 0.005,
	p5xxRateLimitText: 0.005,
};

/** Tried again: the service refused it before acting. */
const RETRIABLE: ReadonlySet<Outcome> = new Set(['rate-limited']);

/** How each last attempt must end up: delivered or not, and what the item must say. */
const TERMINAL: Partial<Record<Outcome, { delivered: 0 | 1; error?: RegExp; mayHaveBeenDelivered?: (request: RequestRecord) => boolean }>> = {
	delivered: { delivered: 1 },
	'5xx-after': { delivered: 1, error: /internal server error|bad gateway/i, mayHaveBeenDelivered: () => true },
	'reset-after': { delivered: 1, error: /dropped before an answer came/, mayHaveBeenDelivered: () => true },
	'close-after': { delivered: 1, error: /dropped before an answer came/, mayHaveBeenDelivered: () => true },
	'5xx-ratelimit-text': { delivered: 1, error: /^Rate limit exceeded/, mayHaveBeenDelivered: () => true },
	reset: { delivered: 0, error: /dropped before an answer came/, mayHaveBeenDelivered: () => true },
	'success-false': { delivered: 0, error: /delivery error/i, mayHaveBeenDelivered: () => false },
	// 303 "See Other" is how a server says it processed a POST, and 302 how most frameworks do; the other redirects ask to send it elsewhere.
	redirected: { delivered: 0, error: /answered HTTP 30[12378], a redirect to .*; redirects are not followed/, mayHaveBeenDelivered: (request) => request.status === 302 || request.status === 303 },
	'html-200': { delivered: 0, error: /^Unexpected answer from .*\(HTTP 200, text\/html instead of JSON\)/, mayHaveBeenDelivered: () => true },
	'empty-200': { delivered: 0, error: /^Unexpected answer from .*\(HTTP 200, an empty body\)/, mayHaveBeenDelivered: () => true },
	'wrong-shape-200': { delivered: 0, error: /^Unexpected answer from .*\(HTTP 200, JSON of another shape\)/, mayHaveBeenDelivered: () => true },
};

const emulator = useEmulator({ seed: SEED, resetEachTest: false });

describe(`fault soak: ${N} direct sends, Continue On Fail, concurrency ${CONCURRENCY}`, () => {
	it(
		'one paired output per item, no duplicate, nothing lost, each fault handled by the policy',
		async () => {
			emulator.reset();
			emulator.setFaults({ ...FAULTS, seed: SEED });
			const items = bulkItems(N);

			const run = await runOn(emulator, {
				parameters: directSendParameters({ maxConcurrent: CONCURRENCY, maxRetries: 8, maxWaitSeconds: 5, timeoutSeconds: 10 }),
				items,
				continueOnFail: true,
			});
			console.info(`soak: ${N} items in ${(run.elapsedMs / 1000).toFixed(1)} s, ${emulator.requests.length} requests`);

			// The run itself: no node error, one output per input, in order, paired.
			expect(run.error).toBeUndefined();
			expect(run.run.status).toBe('success');
			expect(pairingProblems(run.items, N)).toEqual([]);

			// The service side: nothing delivered twice, every request answered and accounted for.
			expect(emulator.duplicates()).toEqual([]);
			expect(emulator.requests.filter((r) => r.outcome === 'pending')).toEqual([]);
			expect(emulator.requests.filter((r) => r.api !== 'send')).toEqual([]);
			const byRecipient = requestsByRecipient(emulator.requests);
			expect(byRecipient.size).toBe(N);
			const counts = emulator.deliveryCounts();

			// Every request's body is exactly the item's phone and text.
			const badBodies = emulator.requests.filter((r) => {
				const body = r.body as IDataObject;
				const index = Number(/#(\d+) /.exec(String(body.text))?.[1]);
				return !(body.phone === phoneOf(index) && body.text === textOf(index) && Object.keys(body).length === 2);
			});
			expect(badBodies.map((r) => r.body)).toEqual([]);

			const problems: string[] = [];
			const tally = { delivered: 0, deliveredButFailed: 0, notDelivered: 0, retriedThenDelivered: 0 };
			const lastOutcomes = new Map<Outcome, number>();
			for (let index = 0; index < N; index++) {
				const requests = byRecipient.get(phoneOf(index)) ?? [];
				const story = requests.map((request) => request.outcome);
				const last = requests.at(-1);
				const expected = last && TERMINAL[last.outcome];
				const output = run.items[index]?.json ?? {};
				const error = errorText(run.items[index]);
				const delivered = counts.get(deliveryKey(index)) ?? 0;
				const report = (problem: string) =>
					problems.push(`item ${index}: ${problem} (requests: ${story.join(' > ') || 'none'}; output ${JSON.stringify(output)})`);

				// Retriable faults only before the last attempt, and one last attempt that ended it.
				if (!last || !expected || !story.slice(0, -1).every((o) => RETRIABLE.has(o))) {
					report('expected only retriable faults, then exactly one attempt that ended the item');
					continue;
				}
				lastOutcomes.set(last.outcome, (lastOutcomes.get(last.outcome) ?? 0) + 1);
				if (story.length > 1 && last.outcome === 'delivered') tally.retriedThenDelivered++;

				// At most one delivery, exactly as the last attempt's fault says.
				if (delivered !== expected.delivered) report(`delivered ${delivered} times, expected ${expected.delivered}`);
				// No false success: a success item only for a delivered message with the success answer.
				if (output.success === true && last.outcome !== 'delivered') report('reported as success, but the answer was not the success answer');
				if (last.outcome === 'delivered') {
					tally.delivered++;
					if (output.success !== true || output.to !== phoneOf(index) || error !== undefined) report('delivered but not a success item');
					continue;
				}
				if (delivered === 1) tally.deliveredButFailed++;
				else tally.notDelivered++;
				if (!error || !expected.error!.test(error)) report(`the error does not say what happened (${expected.error})`);
				// Every item that may have been delivered says so; one that provably was not does not.
				const mayHave = expected.mayHaveBeenDelivered!(last);
				if (mayHave !== MAY_HAVE_BEEN_DELIVERED.test(error ?? '')) {
					report(mayHave ? 'may have been delivered, but the error does not say so' : 'says "may have been delivered", but it was refused');
				}
			}
			expect(problems.slice(0, 20)).toEqual([]);

			// The totals tie out: every delivery belongs to exactly one item, none is unaccounted for.
			expect(emulator.deliveries.length).toBe(tally.delivered + tally.deliveredButFailed);
			expect(tally.delivered + tally.deliveredButFailed + tally.notDelivered).toBe(N);
			const successItems = run.items.filter((item) => item.json.success === true).length;
			expect(successItems).toBe(tally.delivered);
			// Nothing followed a redirect: no key and no message at the second origin.
			expect(emulator.trapRequests).toEqual([]);

			// The faults actually happened in this run (the test is not vacuous).
			const seen = (outcome: Outcome) => emulator.requests.filter((r) => r.outcome === outcome).length;
			expect(seen('rate-limited')).toBeGreaterThan(N * 0.02);
			expect(tally.retriedThenDelivered).toBeGreaterThan(N * 0.03);
			for (const outcome of Object.keys(TERMINAL) as Outcome[]) {
				expect(lastOutcomes.get(outcome) ?? 0, `${outcome} ended no item`).toBeGreaterThan(0);
			}
			expect(new Set(emulator.requests.filter((r) => r.outcome === 'redirected').map((r) => r.status)).size).toBeGreaterThan(1);
			console.info(`soak: ${JSON.stringify(tally)}; 429s ${seen('rate-limited')}; last outcomes ${JSON.stringify(Object.fromEntries(lastOutcomes))}`);
		},
		Math.max(60_000, N * 40),
	);
});
