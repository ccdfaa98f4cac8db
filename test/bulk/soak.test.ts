/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Fault soak: thousands of direct sends with Continue On Fail while the emulator injects every
 * kind of fault the retry policy must tell apart (README "Bulk sending: fast and safe"):
 *
 *   429 + Retry-After       refused, not processed   -> retried (whole run waits), delivered once
 *   reset before processing nothing processed        -> retried with backoff, delivered once
 *   5xx after processing    delivered, then 500/502  -> NOT retried, error "may have been delivered"
 *   200 with failure body   not delivered            -> error item, not retried
 *
 * The emulator records every request with its outcome, so each item's whole story is
 * read back per recipient and compared with its output item.
 *
 * SOAK_N=10000 npx vitest run test/bulk/soak.test.ts   runs a bigger soak (default 2,000).
 */
import type { IDataObject } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startEmulator, type Emulator, type Outcome } from '../emulator';
import {
	MAY_HAVE_BEEN_DELIVERED,
	bulkItems,
	deliveryKey,
	errorText,
	outcomesOf,
	pairingProblems,
	phoneOf,
	requestsByRecipient,
	runDirectSend,
	textOf,
} from './support';

const N = Number(process.env.SOAK_N ?? 2_000);
const SEED = Number(process.env.SOAK_SEED ?? 20_240_611);
// Every 429 says Retry-After: 1 and, by design, pauses the WHOLE run for that second (the
// limit is the account's). At 5% 429s the run's length is therefore about one second per
// "wave" of requests that contains a 429: with 16 in flight that is ~35 requests per second
// (2,000 items ≈ 60 s), with 32 ≈ 50 s, with 128 ≈ 17 waves ≈ 20-25 s. The soak uses 128 in
// flight, which also makes the interleaving harsher; SOAK_CONCURRENCY overrides it.
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 128);
const FAULTS = { latencyMs: 2, p429: 0.05, pResetBeforeProcessing: 0.02, p5xxAfterProcessing: 0.02, pSuccessFalse: 0.01 };
const RETRIABLE: ReadonlySet<Outcome> = new Set(['rate-limited', 'reset']);
const TERMINAL: ReadonlySet<Outcome> = new Set(['delivered', '5xx-after', 'success-false']);

let emulator: Emulator;

beforeAll(async () => {
	emulator = await startEmulator({ seed: SEED });
});
afterAll(async () => {
	await emulator?.close();
});

describe(`fault soak: ${N} direct sends, Continue On Fail, concurrency ${CONCURRENCY}`, () => {
	it(
		'one paired output per item, no duplicate, nothing lost, each fault handled by the policy',
		async () => {
			emulator.reset();
			emulator.setFaults({ ...FAULTS, seed: SEED });
			const items = bulkItems(N);

			const run = await runDirectSend(emulator, {
				items,
				continueOnFail: true,
				// maxRetries 8: six retriable faults in a row (p = 0.07^6) must not fail an item.
				options: { maxConcurrent: CONCURRENCY, maxRetries: 8, maxWaitSeconds: 5, timeoutSeconds: 10 },
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
			const tally = { delivered: 0, mayHaveBeenDelivered: 0, refused: 0, retriedThenDelivered: 0 };
			for (let index = 0; index < N; index++) {
				const story = outcomesOf(byRecipient.get(phoneOf(index)));
				const last = story.at(-1);
				const output = run.items[index]?.json ?? {};
				const error = errorText(run.items[index]);
				const delivered = counts.get(deliveryKey(index)) ?? 0;
				const report = (problem: string) =>
					problems.push(`item ${index}: ${problem} (requests: ${story.join(' > ') || 'none'}; output ${JSON.stringify(output)})`);

				// Retriable faults only before the last attempt; exactly one attempt that reached the service.
				if (story.length === 0 || !story.slice(0, -1).every((o) => RETRIABLE.has(o)) || !TERMINAL.has(last!)) {
					report('expected retriable faults, then exactly one attempt the service acted on');
					continue;
				}
				if (story.some((o) => RETRIABLE.has(o)) && last === 'delivered') tally.retriedThenDelivered++;

				switch (last) {
					case 'delivered':
						tally.delivered++;
						if (delivered !== 1) report(`delivered ${delivered} times`);
						if (output.success !== true || output.to !== phoneOf(index) || error !== undefined) report('delivered but not a success item');
						break;
					case '5xx-after':
						tally.mayHaveBeenDelivered++;
						// The service delivered it and then failed: one delivery, no retry, and the item says so.
						if (delivered !== 1) report(`delivered ${delivered} times`);
						if (!error || !MAY_HAVE_BEEN_DELIVERED.test(error)) report('5xx after processing, but the error does not say "may have been delivered"');
						if (output.success === true) report('5xx after processing reported as success');
						break;
					case 'success-false':
						tally.refused++;
						if (delivered !== 0) report(`refused with a failure body but delivered ${delivered} times`);
						if (!error || MAY_HAVE_BEEN_DELIVERED.test(error) || !/delivery error/i.test(error)) {
							report('200-with-failure should be an error item with the service reason');
						}
						break;
				}
			}
			expect(problems.slice(0, 20)).toEqual([]);

			// The totals tie out: every delivery belongs to exactly one item, none is unaccounted for.
			expect(emulator.deliveries.length).toBe(tally.delivered + tally.mayHaveBeenDelivered);
			expect(tally.delivered + tally.mayHaveBeenDelivered + tally.refused).toBe(N);
			const successItems = run.items.filter((item) => item.json.success === true).length;
			expect(successItems).toBe(tally.delivered);

			// The faults actually happened in this run (the test is not vacuous).
			const seen = (outcome: Outcome) => emulator.requests.filter((r) => r.outcome === outcome).length;
			expect(seen('rate-limited')).toBeGreaterThan(N * 0.02);
			expect(seen('reset')).toBeGreaterThan(N * 0.005);
			expect(tally.mayHaveBeenDelivered).toBeGreaterThan(N * 0.005);
			expect(tally.refused).toBeGreaterThan(N * 0.002);
			expect(tally.retriedThenDelivered).toBeGreaterThan(N * 0.03);
			console.info(`soak: ${JSON.stringify(tally)}; 429s ${seen('rate-limited')}, resets ${seen('reset')}`);
		},
		Math.max(60_000, N * 40),
	);
});
