/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Stopping is prompt, and limits hold across executions.
 *
 * - A paced run that stops at a failure, or that n8n cancels, returns within a second however
 *   long its pacing would still make it wait (every wait is interruptible).
 * - With "Share Limits Across Executions" (the default), executions in one process that use
 *   the same credential and API group share Max Requests Per Second/Minute and Max Concurrent
 *   Requests, measured at the emulator; different credentials never wait for each other; a
 *   cancelled execution leaves the queue at once.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it, vi } from 'vitest';

import type { RequestRecord } from '../emulator';
import { recordWarnings } from '../harness';
import {
	bulkItems,
	directSendParameters,
	pairingProblems,
	phoneOf,
	runOn,
	type SendOptions,
	sendAccountState,
	sendRequests,
} from './support';
import { useEmulator } from '../emulator/use';

const emulator = useEmulator({ seed: 17 });

interface ExecutionOptions {
	items: IDataObject[];
	options: SendOptions & { shareLimitsAcrossExecutions?: boolean };
	credentialId: string;
	signal?: AbortSignal;
	continueOnFail?: boolean;
	/** The workflow's Timeout Workflow setting, in ms. */
	timeoutMs?: number;
}

/** One execution of Messaging → Send; `endedAt` (epoch ms) when the whole run was over. */
async function execution(run: ExecutionOptions) {
	const result = await runOn(emulator, {
		parameters: directSendParameters(run.options),
		items: run.items,
		credentialId: run.credentialId,
		continueOnFail: run.continueOnFail,
		signal: run.signal,
		timeoutMs: run.timeoutMs,
	});
	return { ...result, endedAt: Date.now() };
}

/** Items whose recipients do not clash with another execution's. */
const itemsFrom = (first: number, count: number) => bulkItems(first + count).slice(first);

const isSend = (request: RequestRecord) => request.api === 'send';

describe('stopping is prompt', () => {
	it('a run paced at 6/min that fails at its first item ends within 1 s, and nothing else is sent', async () => {
		emulator.setFaults({ script: ['5xx-after'] });
		const run = await execution({ items: bulkItems(40), options: { maxPerMinute: 6, maxConcurrent: 4 }, credentialId: 'stop-on-failure' });
		expect(run.error?.message).toMatch(/may have been delivered/i);
		const [failed] = sendRequests(emulator);
		// From the failing answer to the end of the whole run (the 39 others were waiting ~10 s each).
		expect(run.endedAt - failed.at).toBeLessThan(1_000);
		expect(sendRequests(emulator)).toHaveLength(1);
		expect((run.error as { description?: string }).description).toMatch(/Not sent: items 1-39/);
	});

	it('the same run cancelled from n8n ends within 1 s of the cancel', async () => {
		const cancel = new AbortController();
		const running = execution({
			items: bulkItems(40),
			options: { maxPerMinute: 6, maxConcurrent: 4 },
			credentialId: 'cancelled-run',
			signal: cancel.signal,
		});
		// Let the first request go out and the others settle into their waits.
		await new Promise((resolve) => setTimeout(resolve, 300));
		const cancelledAt = performance.now();
		cancel.abort();
		const run = await running;
		expect(performance.now() - cancelledAt).toBeLessThan(1_000);
		expect(run.run.status).toBe('canceled');
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('cancelled with a send under way: the summary says it may have been delivered, apart from the items never sent', async () => {
		emulator.setFaults({ latencyMs: 5_000 });
		const cancel = new AbortController();
		const running = execution({ items: bulkItems(3), options: { maxConcurrent: 1 }, credentialId: 'cancel-one-under-way', signal: cancel.signal });
		for (let waited = 0; sendRequests(emulator).length < 1 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
		cancel.abort();
		const run = await running;
		expect(run.run.status).toBe('canceled');
		expect(sendRequests(emulator)).toHaveLength(1);
		expect((run.error as { description?: string }).description).toMatch(/May have been delivered \(not sent again; check before resending\): item 0\. Not sent: items 1-2\./);
		expect(run.error?.message).toBe('The execution was canceled');
	}, 30_000);

	it("a run ended by the workflow's Timeout Workflow says so, names no item, and lists what became of each", async () => {
		emulator.setFaults({ latencyMs: 5_000 });
		const run = await execution({ items: bulkItems(3), options: { maxConcurrent: 1 }, credentialId: 'timed-out', timeoutMs: 1_500 });
		expect(run.run.status).toBe('canceled');
		expect(run.error?.message).toBe("The execution was canceled: it ran past the Timeout Workflow set in the workflow's settings");
		// The first send is under way at the timeout, unless a busy machine had not started it yet.
		const started = sendRequests(emulator).length;
		expect(started).toBeLessThanOrEqual(1);
		expect((run.error as { description?: string }).description).toMatch(
			started === 1 ? /May have been delivered \(not sent again; check before resending\): item 0\. Not sent: items 1-2\./ : /Not sent: items 0-2\./,
		);
	}, 30_000);

	it('cancelled while items wait for their turn (paced): they are listed as not sent, the one under way as may have been delivered, in the error and in n8n\'s log', async () => {
		emulator.setFaults({ latencyMs: 5_000 });
		// A server saves a cancelled execution when the cancel comes, before the node's error: its log is where the list reaches the user.
		const warnings = await recordWarnings();
		try {
			const cancel = new AbortController();
			const running = execution({ items: bulkItems(3), options: { maxConcurrent: 4, maxPerSecond: 1 }, credentialId: 'cancel-waiting-turn', signal: cancel.signal });
			for (let waited = 0; sendRequests(emulator).length < 1 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
			cancel.abort();
			const run = await running;
			expect(sendRequests(emulator)).toHaveLength(1);
			const summary = /May have been delivered \(not sent again; check before resending\): item 0\. Not sent: items 1-2\./;
			expect((run.error as { description?: string }).description).toMatch(summary);
			// A cancel is no item's: items 1-2 waited for their turn with the cancel as their error, and
			// the message named the first of them (outside review: "The execution was canceled [item 273]").
			expect(run.error?.message).toBe('The execution was canceled');
			expect(warnings.lines.filter((line) => summary.test(line))).toHaveLength(1);
		} finally {
			warnings.stop();
		}
	}, 30_000);

	it('requests under way when a run is cancelled teach its credential nothing: Auto keeps its 32 for the next execution (as failures, each cut it by 0.9, to 1)', async () => {
		emulator.setFaults({ latencyMs: 5_000 });
		const cancel = new AbortController();
		const running = execution({ items: bulkItems(40), options: {}, credentialId: 'cancel-under-way', signal: cancel.signal });
		// The first request alone (unanswered, one more goes after 1 s and after 3 s), then a round of
		// 32 at its answer: wait for the round to be under way.
		try {
			for (let waited = 0; sendRequests(emulator).length < 33 && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
			expect(sendRequests(emulator).length).toBeGreaterThanOrEqual(33);
		} finally {
			// Cancelled also when the check fails: its sends would reach the next tests' emulator.
			cancel.abort();
			await running;
		}
		expect(sendAccountState('cancel-under-way').autoConcurrency).toBeGreaterThanOrEqual(32);
	}, 30_000);

	it('a Retry-After pause ends at once when the run stops at another failure', async () => {
		// Item 0 is told to wait 30 s; item 1 fails for good meanwhile: the run must not sit out the pause.
		emulator.setFaults({ script: ['429', '5xx-after'], retryAfter: '30' });
		const run = await execution({ items: bulkItems(2), options: { maxConcurrent: 2 }, credentialId: 'pause-then-stop' });
		expect(run.error).toBeDefined();
		expect(run.endedAt - sendRequests(emulator)[1].at).toBeLessThan(1_000);
	});
});

describe('limits shared across executions', () => {
	it('four concurrent executions of one credential never exceed its shared 10/s in any 1 s window', async () => {
		const runs = await Promise.all(
			[0, 1, 2, 3].map((execution_) =>
				execution({ items: itemsFrom(execution_ * 10, 10), options: { maxPerSecond: 10, maxConcurrent: 4 }, credentialId: 'shared-account' }),
			),
		);
		for (const run of runs) {
			expect(run.error).toBeUndefined();
			expect(pairingProblems(run.items, 10)).toEqual([]);
		}
		const arrivals = sendRequests(emulator).map((request) => request.at);
		expect(arrivals).toHaveLength(40);
		expect(emulator.duplicates()).toEqual([]);
		expect(emulator.maxRequestsInWindow(1_000, isSend)).toBeLessThanOrEqual(10);
		// 40 requests at 10/s: at least about 3.9 s, the limit really governed all four.
		expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThan(3_500);
	}, 20_000);

	it('without sharing, each execution keeps only its own limit (the account sees the sum)', async () => {
		await Promise.all(
			[0, 1].map((execution_) =>
				execution({
					items: itemsFrom(execution_ * 10, 10),
					options: { maxPerSecond: 10, maxConcurrent: 4, shareLimitsAcrossExecutions: false },
					credentialId: 'unshared-account',
				}),
			),
		);
		expect(emulator.maxRequestsInWindow(1_000, isSend)).toBeGreaterThan(10);
	}, 20_000);

	it('different credentials never wait for each other', async () => {
		const started = performance.now();
		const runs = await Promise.all(
			['account-a', 'account-b'].map((credentialId, index) =>
				execution({ items: itemsFrom(index * 5, 5), options: { maxPerSecond: 5, maxConcurrent: 5 }, credentialId }),
			),
		);
		for (const run of runs) expect(run.error).toBeUndefined();
		// Each account sends its 5 within its own second; one shared limiter would need two.
		expect(performance.now() - started).toBeLessThan(1_800);
		expect(sendRequests(emulator)).toHaveLength(10);
	}, 20_000);

	it('shared Max Concurrent Requests: two executions together never have more than 2 under way', async () => {
		emulator.setFaults({ latencyMs: 60 });
		await Promise.all(
			[0, 1].map((execution_) =>
				execution({ items: itemsFrom(execution_ * 6, 6), options: { maxConcurrent: 2 }, credentialId: 'concurrency-account' }),
			),
		);
		// A request stays at the service for 60 ms: arrivals closer than that were under way together.
		expect(emulator.maxRequestsInWindow(55, isSend)).toBeLessThanOrEqual(2);
		expect(sendRequests(emulator)).toHaveLength(12);
	}, 20_000);

	it('an execution that arrives while a bulk run is under way is not queued behind the bulk run (Auto concurrency)', async () => {
		emulator.setFaults({ latencyMs: 150 });
		// A: 6 items with the defaults; B, one item, starts once A's first request is under way.
		const first = execution({ items: itemsFrom(0, 6), options: {}, credentialId: 'auto-concurrency' });
		while (sendRequests(emulator).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		const second = execution({ items: itemsFrom(6, 1), options: {}, credentialId: 'auto-concurrency' });
		const [a, b] = await Promise.all([first, second]);
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		const order = sendRequests(emulator).map((request) => (request.body as IDataObject).phone);
		// Auto begins with one request; as places open, the run with fewer under way goes first:
		// B's item right after A's second, not after A's six.
		expect(order).toHaveLength(7);
		expect(order.indexOf(phoneOf(6))).toBeLessThanOrEqual(2);
	}, 20_000);

	it('a cancelled waiting execution leaves the queue within 1 s; the others go on', async () => {
		const first = execution({ items: itemsFrom(0, 2), options: { maxPerSecond: 1 }, credentialId: 'queue-account' });
		const cancel = new AbortController();
		const waiting = execution({ items: itemsFrom(2, 3), options: { maxPerSecond: 1 }, credentialId: 'queue-account', signal: cancel.signal });
		await new Promise((resolve) => setTimeout(resolve, 200));
		const cancelledAt = performance.now();
		cancel.abort();
		const cancelled = await waiting;
		expect(performance.now() - cancelledAt).toBeLessThan(1_000);
		expect(cancelled.run.status).toBe('canceled');
		const done = await first;
		expect(done.error).toBeUndefined();
		// The cancelled execution's items never went out; the first one's both did.
		const recipients = sendRequests(emulator).map((request) => (request.body as IDataObject).phone);
		expect(recipients).toEqual([phoneOf(0), phoneOf(1)]);
	}, 20_000);

	it('a run cancelled while it backs off before a retry gives its slot back: the next execution still sends', async () => {
		// Deletes are retried after a reset (the plant is gone either way), after a backoff: its
		// full 250 ms here (no jitter), so the cancel below lands in it.
		const random = vi.spyOn(Math, 'random').mockReturnValue(1);
		emulator.setFaults({ script: ['reset-after'] });
		const deletePlant = (id: number, signal?: AbortSignal) =>
			runOn(emulator, {
				type: 'sandboxPlants',
				parameters: { resource: 'plant', operation: 'delete', plantId: id, options: { maxConcurrent: 1, maxRetries: 5 } },
				credentialId: 'backoff-account',
				signal,
			});
		const cancel = new AbortController();
		const first = deletePlant(1, cancel.signal);
		while (emulator.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
		await new Promise((resolve) => setTimeout(resolve, 100));
		cancel.abort();
		expect((await first).run.status).toBe('canceled');
		random.mockRestore();
		expect(emulator.requests).toHaveLength(1);
		emulator.setFaults({ script: [] });
		// With the one shared slot leaked, this would wait forever.
		const second = await Promise.race([deletePlant(2), new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 3_000))]);
		expect(second).not.toBe('stuck');
		expect((second as Awaited<ReturnType<typeof deletePlant>>).error).toBeUndefined();
	}, 20_000);

	it('a run that stops while two of its requests wait out a 429 never stalls the account: the next execution of the credential sends', async () => {
		// Three requests go out at once: the first to arrive fails for good and stops run A; the
		// other two are refused with Retry-After 1 and are read after the run has stopped, while
		// they would wait to be tried again.
		emulator.setFaults({ script: ['5xx-after', '429', '429'] });
		const runA = await execution({ items: itemsFrom(0, 3), options: { maxConcurrent: 3 }, credentialId: 'stall-after-stop' });
		expect(runA.error?.message).toMatch(/may have been delivered/i);
		expect(sendRequests(emulator)).toHaveLength(3);
		// Run B, same credential and API group, three good items, 2 at once: every place run A took
		// is back (two kept places never given back would leave it none).
		const runB = await execution({ items: itemsFrom(10, 3), options: { maxConcurrent: 2 }, credentialId: 'stall-after-stop' });
		expect(runB.error).toBeUndefined();
		expect(runB.items).toHaveLength(3);
		expect(emulator.deliveries.map((delivery) => delivery.recipient).filter((phone) => itemsFrom(10, 3).some((item) => item.phone === phone))).toHaveLength(3);
	});

	it('a Retry-After from the service pauses every execution sharing the credential', async () => {
		emulator.setFaults({ script: ['429'], retryAfter: '1' });
		const first = execution({ items: itemsFrom(0, 1), options: {}, credentialId: 'paused-account' });
		while (!sendRequests(emulator).some((request) => request.outcome === 'rate-limited')) {
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		const second = execution({ items: itemsFrom(1, 1), options: {}, credentialId: 'paused-account' });
		const runs = await Promise.all([first, second]);
		for (const run of runs) expect(run.error).toBeUndefined();
		const [refused, ...later] = sendRequests(emulator);
		expect(refused.outcome).toBe('rate-limited');
		// The second execution started after the refusal and still waited out the second it asked for.
		expect(later.map((request) => (request.body as IDataObject).phone).sort()).toEqual([phoneOf(0), phoneOf(1)]);
		for (const request of later) expect(request.at - refused.at).toBeGreaterThan(950);
		expect(emulator.duplicates()).toEqual([]);
	}, 20_000);
});
