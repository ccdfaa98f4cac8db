/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * Many executions, one account: N executions of Messaging → Send with one item each, all
 * started at once in this process with the same credential (one per turn of the event loop, as
 * a server takes N webhook calls that arrive together), against an emulator that enforces
 * the account's per-second limit with 429 + Retry-After. Run with "Share Limits Across
 * Executions" and without (bench/run.ts runs both, and sharing once more in n8n's legacy
 * expression engine), to show what sharing changes: with it the executions wait for
 * each other and the service refuses nothing; without it each execution's own limit is no limit
 * at all for the account, and only 429 retries (as many as Max Retries allows) get messages out.
 */
import type { ExpressionEngine, LoadedPackage } from '../../test/harness';
import { makeItems, runOurNode, type RunOutcome } from './contenders';
import { maxInWindow, type EmulatorProcess } from './emulator-process';
import { measure, median, settle, type Sample } from './measure';

export interface ExecutionsPlan {
	executions: number;
	/** The account's limit, enforced by the emulator and set as the node's Max Requests Per Second. */
	perSecond: number;
	maxConcurrent: number;
	latencyMs: number;
}

export interface ExecutionsRun extends Sample {
	share: boolean;
	engine: ExpressionEngine;
	executions: number;
	/** Executions that ended without an error, with their one item sent. */
	succeeded: number;
	/** Distinct error messages of the failed executions, with how many had each. */
	errors: Array<{ message: string; count: number }>;
	/** Send requests the emulator saw (attempts, 429s included). */
	requests: number;
	rateLimited: number;
	delivered: number;
	duplicates: number;
	maxInAnyWindow: number;
	/** N / limit: what the account allows at best. */
	idealMs: number;
	/** Start of all executions to the emulator's first send arrival. */
	firstArrivalMs: number;
	/** First to last send arrival at the emulator (429s included). */
	arrivalSpanMs: number;
	/** Last send arrival to the end of the last execution. */
	lastArrivalToDoneMs: number;
	/** n8n's executionTime of the node, per execution: median and max. */
	nodeMsMedian: number;
	nodeMsMax: number;
}

/** Every execution of one run shares this credential id (and so, with sharing on, one limiter). */
let runCount = 0;

export async function executionsRun(
	emulator: EmulatorProcess,
	plan: ExecutionsPlan,
	share: boolean,
	tag: string,
	engine: ExpressionEngine,
	pkg?: LoadedPackage,
): Promise<ExecutionsRun> {
	const { executions, perSecond, maxConcurrent, latencyMs } = plan;
	await emulator.prepare({ latencyMs, rateLimit: { limit: perSecond, windowMs: 1_000 } });
	await settle();
	// A fresh credential id per run: nothing of an earlier run's shared history carries over.
	const credentialId = `bench-executions-${++runCount}`;
	const items = makeItems(executions, tag);
	const options = { maxPerSecond: perSecond, maxConcurrent, shareLimitsAcrossExecutions: share };
	const startEpoch = performance.timeOrigin + performance.now();
	const { value: outcomes, sample } = await measure<RunOutcome[]>(
		async () => {
			// As a server takes 200 webhook calls that arrive at once: each execution starts in its
			// own turn of the event loop, so sends already under way are written and answered in
			// between (started in one turn, every execution would be set up before any sends).
			const running: Array<Promise<RunOutcome>> = [];
			for (const item of items) {
				running.push(runOurNode(emulator.bearer, [item], options, engine, pkg, credentialId));
				await new Promise((resolve) => setImmediate(resolve));
			}
			return await Promise.all(running);
		},
		() => emulator.cpuMs(),
	);
	const doneEpoch = startEpoch + sample.wallMs;
	const state = await emulator.state(true);
	const sends = (state.requests ?? []).filter((r) => r.api === 'send');
	const times = sends.map((r) => r.at);
	const first = times.length ? Math.min(...times) : NaN;
	const last = times.length ? Math.max(...times) : NaN;
	const errorCounts = new Map<string, number>();
	for (const outcome of outcomes) {
		if (outcome.error) errorCounts.set(outcome.error, (errorCounts.get(outcome.error) ?? 0) + 1);
	}
	const nodeMs = outcomes.map((o) => o.nodeMs ?? NaN).filter(Number.isFinite);
	return {
		...sample,
		share,
		engine,
		executions,
		succeeded: outcomes.filter((o) => !o.error && o.succeeded === 1).length,
		errors: [...errorCounts].map(([message, count]) => ({ message, count })),
		requests: sends.length,
		rateLimited: sends.filter((r) => r.outcome === 'rate-limited').length,
		delivered: state.deliveries,
		duplicates: state.duplicates.length,
		maxInAnyWindow: maxInWindow(times, 1_000),
		idealMs: (executions / perSecond) * 1_000,
		firstArrivalMs: first - startEpoch,
		arrivalSpanMs: last - first,
		lastArrivalToDoneMs: doneEpoch - last,
		nodeMsMedian: median(nodeMs),
		nodeMsMax: nodeMs.length > 0 ? Math.max(...nodeMs) : NaN,
	};
}
