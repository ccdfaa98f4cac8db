/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * `npm run bench` (= npm run build && tsx bench/run.ts): performance of the Messaging node's
 * direct send in n8n's real engine, against a raw HTTP client and n8n's HTTP Request node, on a
 * loopback emulator of the service. See bench/README.md for what is measured and how.
 *
 *   BENCH_QUICK=1   smoke mode: small N, one repetition (~1 minute)
 *   BENCH_OUT=path  where the JSON goes (default bench/results.json)
 *   BENCH_N8N_DIR   n8n install folder (default: what scripts/install-n8n.sh prints)
 *   BENCH_BUDGET_SEC   time budget of this script (default 285 s; build, npm and tsx start-up, ~10 s, take part of the rest of 5 min)
 *   BENCH_PACKAGE_DIR  measure "ours" from another built copy of the package (e.g. a candidate
 *                      patch; its node_modules must resolve to this repository's)
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { configureHarness, installN8n, loadHttpRequestNode, loadPackage, type ExpressionEngine, type LoadedPackage } from '../test/harness';
import {
	makeItems,
	runHttpRequestNode,
	runOurNode,
	runRawAxios,
	type HttpRequestSetup,
	type OurNodeOptions,
	type RunOutcome,
} from './lib/contenders';
import { EmulatorProcess, maxInWindow, type FaultsPatch } from './lib/emulator-process';
import { runExpressionsOnly, runMinimalSender } from './lib/baselines';
import { executionsRun, type ExecutionsPlan, type ExecutionsRun } from './lib/executions';
import { measure, median, settle, type Sample } from './lib/measure';
import { measurePackageWeight, type PackageWeight } from './lib/package-weight';
import { REPO_ROOT } from './lib/paths';
import { fixed, ratio, table } from './lib/table';

const QUICK = process.env.BENCH_QUICK === '1';
const ENGINE: ExpressionEngine = 'vm'; // what a default n8n 2.41 server uses (N8N_EXPRESSION_ENGINE=vm)

const PLAN = QUICK
	? { reps: 1, bulkN: 300, c1FastN: 300, c1SlowN: 50, pacingN: 60, pacingRate: 50, pacingConcurrency: 8, rlN: 150, rlLimit: 100, requireRuns: 1, executionsN: 60 }
	: { reps: 3, bulkN: 2000, c1FastN: 1000, c1SlowN: 200, pacingN: 200, pacingRate: 50, pacingConcurrency: 8, rlN: 300, rlLimit: 100, requireRuns: 3, executionsN: 200 };
/**
 * The whole `npm run bench` must finish within 5 minutes on 2 cores. A repetition is skipped
 * (and the report says so) when the last one's duration says it would not fit in this budget,
 * counted from this process's start, with room left for the package weight and `npm run build`.
 */
const BUDGET_SEC = Number(process.env.BENCH_BUDGET_SEC ?? 285);
const RESERVE_SEC = 20;
/**
 * Many executions, one account: one-item executions all started at once, the account's 20/s
 * enforced by the emulator, the node's limits shared across the executions or not, and shared
 * once more in n8n's legacy expression engine. Runs once, after the repetitions (its ~2 GB of
 * isolates would inflate the RSS figures of any run after it). What it takes is kept free in
 * the budget.
 */
const EXECUTIONS: ExecutionsPlan = { executions: PLAN.executionsN, perSecond: 20, maxConcurrent: 20, latencyMs: 20 };
const EXECUTIONS_RESERVE_SEC = QUICK ? 20 : 55;
/** Emulator latency for the pacing and 429 runs (a nearby service). */
const SCENARIO_LATENCY_MS = 20;
const RL_WINDOW_MS = 1000;

type ContenderId = 'ours' | 'oursC64' | 'oursLegacy' | 'exprOnly' | 'minimal' | 'raw' | 'rawKeepAlive' | 'http16' | 'http50';

const CONTENDERS: Record<ContenderId, { label: string; extra?: boolean }> = {
	ours: { label: 'Messaging node (ours), vm engine' },
	oursC64: { label: 'Messaging node (ours), Max Concurrent 64', extra: true },
	oursLegacy: { label: 'Messaging node (ours), legacy engine', extra: true },
	exprOnly: { label: 'expressions only: the same 2 per item, no request' },
	minimal: { label: "minimal sender: same 2 + n8n's request helper, no checks" },
	raw: { label: 'raw axios, new TCP conn/request (as n8n)' },
	rawKeepAlive: { label: 'raw axios, keep-alive agent', extra: true },
	http16: { label: 'HTTP Request node, batch 16 / 0 ms' },
	http50: { label: 'HTTP Request node, batch 50 / 0 ms' },
};
const HTTP_IDS: ContenderId[] = ['http16', 'http50'];
const BATCH_SIZE: Partial<Record<ContenderId, number>> = { http16: 16, http50: 50 };

interface Cell {
	id: string;
	latencyMs: number;
	concurrency: number;
	n: number;
	contenders: ContenderId[];
}

const CELLS: Cell[] = [
	{ id: '20ms-c16', latencyMs: 20, concurrency: 16, n: PLAN.bulkN, contenders: ['ours', 'oursC64', 'raw', 'rawKeepAlive', 'http16', 'http50'] },
	{ id: '0ms-c16', latencyMs: 0, concurrency: 16, n: PLAN.bulkN, contenders: ['ours', 'oursLegacy', 'exprOnly', 'minimal', 'raw', 'rawKeepAlive', 'http16', 'http50'] },
	{ id: '0ms-c1', latencyMs: 0, concurrency: 1, n: PLAN.c1FastN, contenders: ['ours', 'raw', 'rawKeepAlive'] },
	{ id: '20ms-c1', latencyMs: 20, concurrency: 1, n: PLAN.c1SlowN, contenders: ['ours', 'raw'] },
];

interface BulkRun extends Sample {
	rep: number;
	cell: string;
	contender: ContenderId;
	n: number;
	itemsPerSec: number;
	cpuMsPerItem: number;
	delivered: number;
	duplicates: number;
	succeeded: number;
	valid: boolean;
	problem?: string;
	loadAvg1: number;
	/** Run start to the emulator's first delivery. */
	firstDeliveryMs: number;
}

/** BENCH_PACKAGE_DIR's package, when given; otherwise the harness loads this repository. */
let oursPkg: LoadedPackage | undefined;

const log = (line = '') => process.stdout.write(`${line}\n`);
const round = (value: number, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

async function main(): Promise<void> {
	const benchStart = performance.now();
	const loadAtStart = os.loadavg();
	const cpus = os.cpus();
	log(`n8n-nodes-messaging benchmark (${QUICK ? 'QUICK smoke mode' : 'full'}) — Node ${process.version}, ${cpus.length} CPUs (${cpus[0]?.model ?? '?'}), load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`);
	if (loadAtStart[0] > cpus.length) {
		log(`WARNING: the machine is busy (1-min load ${loadAtStart[0].toFixed(1)} > ${cpus.length} CPUs); absolute figures will be low and noisy, ratios (interleaved runs) less so.`);
	}

	const emulator = await EmulatorProcess.start();
	const stopEmulator = () => void emulator.stop();
	process.once('SIGINT', () => {
		stopEmulator();
		process.exit(130);
	});
	try {
		await configureHarness({ expressionEngine: ENGINE });
		loadPackage();
		const oursPackageDir = process.env.BENCH_PACKAGE_DIR ? path.resolve(process.env.BENCH_PACKAGE_DIR) : undefined;
		oursPkg = oursPackageDir ? loadPackage({ packageDir: oursPackageDir }) : undefined;
		if (oursPackageDir) log(`"ours" comes from ${oursPackageDir} (BENCH_PACKAGE_DIR)`);

		let httpSetup: (HttpRequestSetup & { n8nDir: string; loadMs: number }) | undefined;
		let httpUnavailable: string | undefined;
		try {
			httpSetup = loadHttpRequestNode(process.env.BENCH_N8N_DIR || installN8n());
		} catch (error) {
			httpUnavailable = (error as Error).stack ?? String(error);
			log(`HTTP Request node could not be loaded into the harness engine, so it is left out:\n${httpUnavailable}`);
		}
		const hasContender = (id: ContenderId) => !HTTP_IDS.includes(id) || httpSetup !== undefined;

		log(`emulator: separate process (pid ${emulator.pid}) at ${emulator.url}; expression engine: ${ENGINE} (n8n 2.41 server default)`);
		if (httpSetup) log(`HTTP Request node: n8n-nodes-base from ${httpSetup.n8nDir}, version ${httpSetup.version}, loaded in ${(httpSetup.loadMs / 1000).toFixed(1)} s`);

		const runOne = async (contender: ContenderId, latencyMs: number, concurrency: number, n: number, tag: string) => {
			await emulator.prepare({ latencyMs });
			await settle();
			const items = makeItems(n, tag);
			const startEpoch = performance.timeOrigin + performance.now();
			const { value, sample } = await measure<RunOutcome>(() => {
				switch (contender) {
					case 'ours':
						return runOurNode(emulator.bearer, items, { maxConcurrent: concurrency }, ENGINE, oursPkg);
					case 'oursC64':
						return runOurNode(emulator.bearer, items, { maxConcurrent: 64 }, ENGINE, oursPkg);
					case 'oursLegacy':
						return runOurNode(emulator.bearer, items, { maxConcurrent: concurrency }, 'legacy', oursPkg);
					case 'exprOnly':
						return runExpressionsOnly(items, ENGINE);
					case 'minimal':
						return runMinimalSender(emulator.bearer, items, concurrency, ENGINE);
					case 'raw':
						return runRawAxios(emulator.bearer, items, concurrency, false);
					case 'rawKeepAlive':
						return runRawAxios(emulator.bearer, items, concurrency, true);
					default:
						return runHttpRequestNode(httpSetup!, emulator.bearer, items, BATCH_SIZE[contender]!, ENGINE);
				}
			}, () => emulator.cpuMs());
			const state = await emulator.state(false);
			const arrivals = await emulator.deliveryTimes();
			const firstDeliveryMs = arrivals.length ? Math.min(...arrivals) - startEpoch : NaN;
			return { value, sample, state, firstDeliveryMs };
		};

		// Warm-up (not recorded): JIT, module caches, the isolate pool, HTTP Request node's lazy parts.
		log('warming up ...');
		for (const contender of ['ours', 'oursLegacy', 'exprOnly', 'minimal', 'raw', 'rawKeepAlive', 'http16'] as ContenderId[]) {
			if (hasContender(contender)) await runOne(contender, 0, 16, QUICK ? 30 : 100, 'warmup');
		}

		const bulkRuns: BulkRun[] = [];
		const pacingRuns: ScenarioRun[] = [];
		const rateLimitRuns: ScenarioRun[] = [];
		/** After the first repetition only the faster batch size (per cell) runs again: with interval 0 both send everything at once. */
		const httpPick = new Map<string, ContenderId>();

		let repsSkipped = '';
		let lastRepSec = 0;
		for (let rep = 0; rep < PLAN.reps; rep++) {
			const elapsedSec = performance.now() / 1000;
			if (rep > 0 && elapsedSec + lastRepSec + RESERVE_SEC + EXECUTIONS_RESERVE_SEC > BUDGET_SEC) {
				repsSkipped = `${PLAN.reps - rep} of ${PLAN.reps} repetitions skipped: after ${elapsedSec.toFixed(0)} s, another (~${lastRepSec.toFixed(0)} s) would overrun the ${BUDGET_SEC} s budget (busy machine?)`;
				log(`WARNING: ${repsSkipped}`);
				break;
			}
			const repStarted = performance.now();
			for (const cell of CELLS) {
				for (const contender of cell.contenders) {
					if (!hasContender(contender)) continue;
					if (HTTP_IDS.includes(contender) && rep > 0 && httpPick.get(cell.id) !== contender) continue;
					const { value, sample, state, firstDeliveryMs } = await runOne(contender, cell.latencyMs, cell.concurrency, cell.n, `r${rep}-${cell.id}-${contender}`);
					const expectedDeliveries = contender === 'exprOnly' ? 0 : cell.n;
					const problems = [
						value.error && `node error: ${value.error}`,
						value.succeeded !== cell.n && `${value.succeeded}/${cell.n} items succeeded`,
						state.deliveries !== expectedDeliveries && `${state.deliveries}/${expectedDeliveries} delivered`,
						state.duplicates.length > 0 && `${state.duplicates.length} duplicate deliveries`,
					].filter(Boolean);
					const run: BulkRun = {
						...sample,
						rep,
						cell: cell.id,
						contender,
						n: cell.n,
						itemsPerSec: (cell.n * 1000) / sample.wallMs,
						cpuMsPerItem: sample.cpuMs / cell.n,
						delivered: state.deliveries,
						duplicates: state.duplicates.length,
						succeeded: value.succeeded,
						valid: problems.length === 0,
						problem: problems.join('; ') || undefined,
						loadAvg1: os.loadavg()[0],
						firstDeliveryMs,
					};
					bulkRuns.push(run);
					log(
						`[rep ${rep + 1}/${PLAN.reps}] ${cell.id.padEnd(8)} ${contender.padEnd(12)} ${fixed(run.itemsPerSec).padStart(5)} items/s  ${fixed(run.wallMs / 1000, 2).padStart(6)} s  ${fixed(run.cpuMsPerItem, 2)} ms CPU/item${run.valid ? '' : `  INVALID: ${run.problem}`}`,
					);
				}
				if (rep === 0) {
					const candidates = HTTP_IDS.filter((id) => cell.contenders.includes(id) && hasContender(id));
					const best = candidates.sort(
						(a, b) => medianOf(bulkRuns, cell.id, b, 'itemsPerSec') - medianOf(bulkRuns, cell.id, a, 'itemsPerSec'),
					)[0];
					if (best) httpPick.set(cell.id, best);
				}
			}
			pacingRuns.push(await pacingRun(emulator, rep));
			rateLimitRuns.push(await rateLimitRun(emulator, rep));
			lastRepSec = (performance.now() - repStarted) / 1000;
		}

		const executionsStarted = performance.now();
		const executionsRuns: ExecutionsRun[] = [];
		// The legacy engine's line shows what is n8n's per-execution set-up in the vm engine and what is the node's.
		for (const [share, engine] of [[true, ENGINE], [false, ENGINE], [true, 'legacy']] as const) {
			const run = await executionsRun(emulator, EXECUTIONS, share, `executions-${share ? 'shared' : 'unshared'}-${engine}`, engine, oursPkg);
			executionsRuns.push(run);
			log(
				`executions ${share ? 'shared  ' : 'unshared'} (${engine}) ${run.executions} x 1 item at ${EXECUTIONS.perSecond}/s: ${fixed(run.wallMs / 1000, 2)} s (ideal ${fixed(run.idealMs / 1000, 2)} s), first send after ${fixed(run.firstArrivalMs / 1000, 2)} s, ${run.rateLimited} x 429, ${run.delivered} delivered, ${run.duplicates} duplicates, ${run.succeeded}/${run.executions} executions succeeded`,
			);
		}
		const executionsSec = (performance.now() - executionsStarted) / 1000;

		log('measuring package weight ...');
		const weightStarted = performance.now();
		const weight = measurePackageWeight(PLAN.requireRuns);
		weight.measureSec = round((performance.now() - weightStarted) / 1000, 1) ?? 0;
		const report = buildReport({ bulkRuns, pacingRuns, rateLimitRuns, executionsRuns, executionsSec, weight, httpSetup, httpUnavailable, httpPick, loadAtStart, emulatorPid: emulator.pid, repsSkipped });
		report.durationSec = round((performance.now() - benchStart) / 1000, 1) ?? 0;
		printReport(report);
		const out = process.env.BENCH_OUT ?? path.join(REPO_ROOT, 'bench', 'results.json');
		writeFileSync(out, `${JSON.stringify(report, null, '\t')}\n`);
		log(`\nwritten: ${path.relative(process.cwd(), out) || out}  (bench time ${report.durationSec} s)`);
		if (report.durationSec > 280) log('WARNING: the bench took longer than its 5-minute budget allows (busy machine?)');
	} finally {
		await emulator.stop();
	}
}

// ---------------------------------------------------------------------------------------------
// Pacing and 429 recovery
// ---------------------------------------------------------------------------------------------

interface ScenarioRun extends Sample {
	rep: number;
	n: number;
	succeeded: number;
	delivered: number;
	duplicates: number;
	error?: string;
	/** Send requests the emulator saw (attempts, including 429s). */
	requests: number;
	rateLimited: number;
	maxInAnyWindow: number;
	/** First to last arrival at the emulator. */
	spanMs: number;
	/** Run start to the first arrival (the node checks every item before its first send). */
	firstRequestMs: number;
	/** The node's own run (n8n's executionTime), without the workflow around it. */
	nodeMs: number;
	idealMs: number;
}

async function scenario(emulator: EmulatorProcess, faults: FaultsPatch, n: number, tag: string, options: OurNodeOptions) {
	await emulator.prepare({ latencyMs: SCENARIO_LATENCY_MS, ...faults });
	await settle();
	const items = makeItems(n, tag);
	const startEpoch = performance.timeOrigin + performance.now();
	const { value, sample } = await measure(() => runOurNode(emulator.bearer, items, options, ENGINE, oursPkg), () => emulator.cpuMs());
	const state = await emulator.state(true);
	const sends = (state.requests ?? []).filter((r) => r.api === 'send');
	const times = sends.map((r) => r.at);
	return {
		...sample,
		n,
		succeeded: value.succeeded,
		error: value.error,
		nodeMs: value.nodeMs ?? NaN,
		delivered: state.deliveries,
		duplicates: state.duplicates.length,
		requests: sends.length,
		rateLimited: sends.filter((r) => r.outcome === 'rate-limited').length,
		times,
		spanMs: times.length ? Math.max(...times) - Math.min(...times) : 0,
		firstRequestMs: times.length ? Math.min(...times) - startEpoch : NaN,
	};
}

async function pacingRun(emulator: EmulatorProcess, rep: number): Promise<ScenarioRun> {
	const { pacingN: n, pacingRate: rate, pacingConcurrency } = PLAN;
	const { times, ...result } = await scenario(emulator, {}, n, `pacing-r${rep}`, { maxConcurrent: pacingConcurrency, maxPerSecond: rate });
	const run: ScenarioRun = { ...result, rep, maxInAnyWindow: maxInWindow(times, 1000), idealMs: (n / rate) * 1000 };
	log(`[rep ${rep + 1}/${PLAN.reps}] pacing   ${rate}/s x ${n}: max ${run.maxInAnyWindow} in any 1 s, node ${fixed(run.nodeMs / 1000, 2)} s (ideal ${fixed(run.idealMs / 1000, 2)} s), first request after ${fixed(run.firstRequestMs / 1000, 2)} s`);
	return run;
}

async function rateLimitRun(emulator: EmulatorProcess, rep: number): Promise<ScenarioRun> {
	const { rlN: n, rlLimit: limit } = PLAN;
	const { times, ...result } = await scenario(emulator, { rateLimit: { limit, windowMs: RL_WINDOW_MS } }, n, `ratelimit-r${rep}`, { maxConcurrent: 16 });
	const admitted = times.length ? maxInWindow(times, RL_WINDOW_MS) : 0;
	const run: ScenarioRun = { ...result, rep, maxInAnyWindow: admitted, idealMs: (n / limit) * RL_WINDOW_MS };
	log(`[rep ${rep + 1}/${PLAN.reps}] 429      ${limit}/s limit x ${n}: ${fixed(run.wallMs / 1000, 2)} s (ideal ${fixed(run.idealMs / 1000, 2)} s), ${run.rateLimited} x 429, ${run.delivered} delivered, ${run.duplicates} duplicates`);
	return run;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

function runsOf(runs: BulkRun[], cell: string, contender: ContenderId): BulkRun[] {
	return runs.filter((r) => r.cell === cell && r.contender === contender && r.valid);
}

function medianOf(runs: BulkRun[], cell: string, contender: ContenderId, key: keyof Sample | 'itemsPerSec' | 'cpuMsPerItem'): number {
	return median(runsOf(runs, cell, contender).map((r) => r[key] as number));
}

interface ContenderSummary {
	label: string;
	extra: boolean;
	runs: number;
	invalidRuns: number;
	itemsPerSec: number | null;
	wallSec: number | null;
	cpuMsPerItem: number | null;
	connectionsPerRequest: number | null;
	expressionsPerItem: number | null;
	rssPeakMb: number | null;
	rssPeakMaxMb: number | null;
	rssGrowthMb: number | null;
	heapPeakMb: number | null;
	loopDelayP99Ms: number | null;
	loopDelayMaxMs: number | null;
	emulatorCpuMsPerRequest: number | null;
	firstDeliverySec: number | null;
}

interface Report {
	package: { dir: string; commit: string; uncommittedChanges: string[] };
	mode: 'quick' | 'full';
	date: string;
	durationSec: number;
	machine: Record<string, unknown>;
	method: Record<string, unknown>;
	bulk: Array<{
		cell: string;
		latencyMs: number;
		concurrency: number;
		n: number;
		contenders: Partial<Record<ContenderId, ContenderSummary>>;
		httpRequestBest?: { contender: ContenderId; itemsPerSec: number | null };
		ratios: Record<string, number | null>;
	}>;
	overheadPerItem: Array<{
		cell: string;
		contender: ContenderId;
		cpuMsPerItem: number | null;
		rawCpuMsPerItem: number | null;
		/** CPU minus the raw client's. */
		overheadMsPerItem: number | null;
		expressionsOnlyCpuMsPerItem: number | null;
		/** CPU minus the raw client's (the HTTP work) minus the expressions-only node's (the workflow's expressions in n8n): n8n's request helper and the node's own work. */
		beyondExpressionsMsPerItem: number | null;
		minimalSenderCpuMsPerItem: number | null;
		/** CPU minus the minimal sender's: the node's own work (checks, limiter, retry rule, output), without n8n's. */
		ownMsPerItem: number | null;
		expressionsPerItem: number | null;
	}>;
	pacing: Record<string, unknown>;
	rateLimit429: Record<string, unknown>;
	executionsShared: ExecutionsSummary;
	packageWeight: PackageWeight;
	goals: Array<{ goal: string; measured: string; met: boolean }>;
	runs: { bulk: BulkRun[]; pacing: ScenarioRun[]; rateLimit429: ScenarioRun[]; executions: ExecutionsRun[] };
}

function summarize(runs: BulkRun[], cell: Cell, contender: ContenderId): ContenderSummary {
	const ok = runsOf(runs, cell.id, contender);
	const all = runs.filter((r) => r.cell === cell.id && r.contender === contender);
	const med = (pick: (r: BulkRun) => number, digits = 2) => round(median(ok.map(pick)), digits);
	return {
		label: CONTENDERS[contender].label,
		extra: CONTENDERS[contender].extra === true,
		runs: all.length,
		invalidRuns: all.length - ok.length,
		itemsPerSec: med((r) => r.itemsPerSec, 1),
		wallSec: med((r) => r.wallMs / 1000, 3),
		cpuMsPerItem: med((r) => r.cpuMsPerItem, 3),
		connectionsPerRequest: med((r) => r.connections / r.n, 3),
		expressionsPerItem: med((r) => r.expressions / r.n, 2),
		rssPeakMb: med((r) => r.rssPeakMb, 1),
		rssPeakMaxMb: round(Math.max(...ok.map((r) => r.rssPeakMb)), 1),
		rssGrowthMb: med((r) => r.rssPeakMb - r.rssStartMb, 1),
		heapPeakMb: med((r) => r.heapPeakMb, 1),
		loopDelayP99Ms: med((r) => r.loopDelayP99Ms, 1),
		loopDelayMaxMs: round(Math.max(...ok.map((r) => r.loopDelayMaxMs)), 1),
		emulatorCpuMsPerRequest: med((r) => (r.emulatorCpuMs ?? NaN) / r.n, 3),
		firstDeliverySec: med((r) => r.firstDeliveryMs / 1000, 3),
	};
}

interface ExecutionsLine {
	shareLimitsAcrossExecutions: boolean;
	executions: number;
	succeededExecutions: number;
	/** Failed executions' messages, with how many had each. */
	errors: Array<{ message: string; count: number }>;
	rateLimitedAnswers: number;
	requests: number;
	delivered: number;
	duplicates: number;
	/** Send requests (429s included) the emulator saw in its busiest 1 s. */
	maxInAny1sWindow: number;
	/** First execution's start to the last one's end. */
	wallSec: number | null;
	wallVsIdeal: number | null;
	/** Start to the emulator's first send arrival. */
	firstSendSec: number | null;
	/** First send arrival to the last execution's end: the part the node's limiter governs. */
	firstSendToDoneSec: number | null;
	firstSendToDoneVsIdeal: number | null;
	firstToLastArrivalSec: number | null;
	cpuMsPerExecution: number | null;
	loopDelayMaxMs: number | null;
	rssPeakMb: number | null;
	/** n8n's executionTime of the node, per execution. */
	nodeSecMedian: number | null;
	nodeSecMax: number | null;
}

interface ExecutionsSummary {
	executions: number;
	itemsPerExecution: 1;
	start: string;
	perSecond: number;
	nodeOptions: Record<string, number | boolean | string>;
	emulator: string;
	emulatorLatencyMs: number;
	expressionEngine: ExpressionEngine;
	idealSec: number;
	cellSec: number | null;
	with: ExecutionsLine | null;
	without: ExecutionsLine | null;
	/** With sharing, n8n's legacy expression engine: no isolate to set up per execution. */
	withLegacyEngine: ExecutionsLine | null;
	whereTheTimeGoes: string;
}

function executionsLine(run: ExecutionsRun | undefined): ExecutionsLine | null {
	if (!run) return null;
	const afterFirstSend = run.wallMs - run.firstArrivalMs;
	return {
		shareLimitsAcrossExecutions: run.share,
		executions: run.executions,
		succeededExecutions: run.succeeded,
		errors: run.errors,
		rateLimitedAnswers: run.rateLimited,
		requests: run.requests,
		delivered: run.delivered,
		duplicates: run.duplicates,
		maxInAny1sWindow: run.maxInAnyWindow,
		wallSec: round(run.wallMs / 1000, 3),
		wallVsIdeal: round(run.wallMs / run.idealMs, 4),
		firstSendSec: round(run.firstArrivalMs / 1000, 3),
		firstSendToDoneSec: round(afterFirstSend / 1000, 3),
		firstSendToDoneVsIdeal: round(afterFirstSend / run.idealMs, 4),
		firstToLastArrivalSec: round(run.arrivalSpanMs / 1000, 3),
		cpuMsPerExecution: round(run.cpuMs / run.executions, 2),
		loopDelayMaxMs: round(run.loopDelayMaxMs, 1),
		rssPeakMb: round(run.rssPeakMb, 1),
		nodeSecMedian: round(run.nodeMsMedian / 1000, 3),
		nodeSecMax: round(run.nodeMsMax / 1000, 3),
	};
}

function buildReport(input: {
	bulkRuns: BulkRun[];
	pacingRuns: ScenarioRun[];
	rateLimitRuns: ScenarioRun[];
	executionsRuns: ExecutionsRun[];
	executionsSec: number;
	weight: PackageWeight;
	httpSetup?: HttpRequestSetup & { n8nDir: string; loadMs: number };
	httpUnavailable?: string;
	httpPick: Map<string, ContenderId>;
	loadAtStart: number[];
	emulatorPid: number;
	repsSkipped: string;
}): Report {
	const { bulkRuns, pacingRuns, rateLimitRuns, weight, httpSetup } = input;
	const bulk: Report['bulk'] = CELLS.map((cell) => {
		const contenders: Partial<Record<ContenderId, ContenderSummary>> = {};
		for (const id of cell.contenders) {
			if (bulkRuns.some((r) => r.cell === cell.id && r.contender === id)) contenders[id] = summarize(bulkRuns, cell, id);
		}
		const ips = (id: ContenderId) => contenders[id]?.itemsPerSec ?? NaN;
		const httpIds = HTTP_IDS.filter((id) => contenders[id]);
		const bestHttp = httpIds.sort((a, b) => ips(b) - ips(a))[0];
		return {
			cell: cell.id,
			latencyMs: cell.latencyMs,
			concurrency: cell.concurrency,
			n: cell.n,
			contenders,
			httpRequestBest: bestHttp ? { contender: bestHttp, itemsPerSec: contenders[bestHttp]!.itemsPerSec } : undefined,
			ratios: {
				oursVsRaw: round(ips('ours') / ips('raw'), 3),
				oursVsRawKeepAlive: round(ips('ours') / ips('rawKeepAlive'), 3),
				oursVsHttpRequestBest: bestHttp ? round(ips('ours') / ips(bestHttp), 3) : null,
				oursC64VsHttpRequestBest: bestHttp ? round(ips('oursC64') / ips(bestHttp), 3) : null,
				oursLegacyVsRaw: round(ips('oursLegacy') / ips('raw'), 3),
				oursLegacyVsHttpRequestBest: bestHttp ? round(ips('oursLegacy') / ips(bestHttp), 3) : null,
				httpRequestBestVsRaw: bestHttp ? round(ips(bestHttp) / ips('raw'), 3) : null,
			},
		};
	});

	const overheadPerItem: Report['overheadPerItem'] = [];
	for (const entry of bulk.filter((b) => b.latencyMs === 0)) {
		const raw = entry.contenders.raw?.cpuMsPerItem ?? null;
		const expressionsOnly = entry.contenders.exprOnly?.cpuMsPerItem ?? null;
		const minimal = entry.contenders.minimal?.cpuMsPerItem ?? null;
		for (const id of ['ours', 'oursLegacy', ...HTTP_IDS] as ContenderId[]) {
			const summary = entry.contenders[id];
			if (!summary) continue;
			const cpu = summary.cpuMsPerItem;
			overheadPerItem.push({
				cell: entry.cell,
				contender: id,
				cpuMsPerItem: cpu,
				rawCpuMsPerItem: raw,
				overheadMsPerItem: cpu !== null && raw !== null ? round(cpu - raw, 3) : null,
				expressionsOnlyCpuMsPerItem: expressionsOnly,
				// The expressions-only run is the vm engine's: the legacy line has no such baseline.
				beyondExpressionsMsPerItem: cpu !== null && raw !== null && expressionsOnly !== null && id !== 'oursLegacy' ? round(cpu - raw - expressionsOnly, 3) : null,
				minimalSenderCpuMsPerItem: minimal,
				ownMsPerItem: cpu !== null && minimal !== null && id !== 'oursLegacy' ? round(cpu - minimal, 3) : null,
				expressionsPerItem: summary.expressionsPerItem,
			});
		}
	}

	const pacingTarget = PLAN.pacingRate;
	const pacingMax = Math.max(...pacingRuns.map((r) => r.maxInAnyWindow));
	// Counted from the node's start (n8n's executionTime of the node), as a user sees it in the run.
	const pacingRatios = pacingRuns.map((r) => r.nodeMs / r.idealMs);
	const pacing = {
		n: PLAN.pacingN,
		maxPerSecond: pacingTarget,
		maxConcurrent: PLAN.pacingConcurrency,
		emulatorLatencyMs: SCENARIO_LATENCY_MS,
		idealSec: (PLAN.pacingN / pacingTarget),
		maxInAny1sWindow: pacingMax,
		maxInAny1sWindowPerRun: pacingRuns.map((r) => r.maxInAnyWindow),
		nodeSecMedian: round(median(pacingRuns.map((r) => r.nodeMs / 1000)), 3),
		nodeVsIdealMedian: round(median(pacingRatios), 4),
		nodeVsIdealPerRun: pacingRatios.map((v) => round(v, 4)),
		workflowWallSecMedian: round(median(pacingRuns.map((r) => r.wallMs / 1000)), 3),
		firstToLastArrivalSecMedian: round(median(pacingRuns.map((r) => r.spanMs / 1000)), 3),
		firstToLastArrivalIdealSec: (PLAN.pacingN - 1) / pacingTarget,
		firstRequestSecMedian: round(median(pacingRuns.map((r) => r.firstRequestMs / 1000)), 3),
		allDelivered: pacingRuns.every((r) => r.delivered === r.n && r.duplicates === 0 && !r.error),
	};

	const rlRatios = rateLimitRuns.map((r) => r.wallMs / r.idealMs);
	const rateLimit429 = {
		n: PLAN.rlN,
		limit: PLAN.rlLimit,
		windowMs: RL_WINDOW_MS,
		retryAfter: "emulator's own: seconds until its window frees, rounded up (>= 1)",
		maxConcurrent: 16,
		nodePacing: 'none',
		emulatorLatencyMs: SCENARIO_LATENCY_MS,
		idealSec: PLAN.rlN / PLAN.rlLimit,
		idealNote: `N / allowed rate. A sliding window lets the first ${PLAN.rlLimit} through at once, so the strict lower bound is ${(Math.ceil(PLAN.rlN / PLAN.rlLimit) - 1) * (RL_WINDOW_MS / 1000)} s.`,
		wallSecMedian: round(median(rateLimitRuns.map((r) => r.wallMs / 1000)), 3),
		wallVsIdealMedian: round(median(rlRatios), 4),
		wallVsIdealPerRun: rlRatios.map((v) => round(v, 4)),
		firstRequestSecMedian: round(median(rateLimitRuns.map((r) => r.firstRequestMs / 1000)), 3),
		firstToLastArrivalSecMedian: round(median(rateLimitRuns.map((r) => r.spanMs / 1000)), 3),
		rateLimitedAnswersPerRun: rateLimitRuns.map((r) => r.rateLimited),
		requestsPerRun: rateLimitRuns.map((r) => r.requests),
		deliveredPerRun: rateLimitRuns.map((r) => r.delivered),
		duplicatesPerRun: rateLimitRuns.map((r) => r.duplicates),
		errors: rateLimitRuns.map((r) => r.error ?? null),
	};

	const shared = executionsLine(input.executionsRuns.find((r) => r.share && r.engine === ENGINE));
	const sharedLegacy = executionsLine(input.executionsRuns.find((r) => r.share && r.engine === 'legacy'));
	const executionsShared: ExecutionsSummary = {
		executions: EXECUTIONS.executions,
		itemsPerExecution: 1,
		start: 'all at once in this process, one per turn of the event loop (as a server takes webhook calls that arrive together), the same credential id for every execution',
		perSecond: EXECUTIONS.perSecond,
		nodeOptions: { maxPerSecond: EXECUTIONS.perSecond, maxConcurrent: EXECUTIONS.maxConcurrent, maxRetries: 'default (5)', shareLimitsAcrossExecutions: 'true (with) / false (without)' },
		emulator: `rateLimit ${EXECUTIONS.perSecond} per 1 s sliding window over the sends, 429 + its own Retry-After (seconds until the window frees, rounded up)`,
		emulatorLatencyMs: EXECUTIONS.latencyMs,
		expressionEngine: ENGINE,
		idealSec: EXECUTIONS.executions / EXECUTIONS.perSecond,
		cellSec: round(input.executionsSec, 1),
		with: shared,
		without: executionsLine(input.executionsRuns.find((r) => !r.share)),
		withLegacyEngine: sharedLegacy,
		whereTheTimeGoes:
			"wall = firstSend + firstSendToDone. The executions start at once, one per turn of the event loop as a server takes webhook calls that arrive together, so the first ones send while n8n still sets up the others (with the vm engine an expression isolate each, see cpuMsPerExecution). Started all in one turn instead, every execution is set up before any sends: 200 took 20.4 s (2.04x) that way, 11 s of it before the first send. firstSendToDone is the part the node's limiter governs: the limiter counts a request in a window from its start until a window length (+1%) after its answer, so the account's 20/s takes a little over 1 s per 20.",
	};

	const goals: Report['goals'] = [];
	for (const cellId of ['20ms-c16', '0ms-c16']) {
		const entry = bulk.find((b) => b.cell === cellId)!;
		const vsHttp = entry.ratios.oursVsHttpRequestBest;
		goals.push({ goal: `${cellId}: ours >= 1.1x HTTP Request node (best batching)`, measured: vsHttp === null ? 'n/a (HTTP Request node not loaded)' : `${vsHttp.toFixed(2)}x`, met: vsHttp !== null && vsHttp >= 1.1 });
	}
	const oursOverhead = overheadPerItem.find((o) => o.cell === '0ms-c16' && o.contender === 'ours');
	const beyond = oursOverhead?.beyondExpressionsMsPerItem ?? null;
	goals.push({
		goal: "ours: CPU per item beyond the workflow's expressions and the raw client's HTTP work <= 0.3 ms",
		measured: beyond === null ? 'n/a' : `${beyond.toFixed(3)} ms (the node's own, over a minimal sender: ${oursOverhead?.ownMsPerItem?.toFixed(3) ?? 'n/a'} ms)`,
		met: beyond !== null && beyond <= 0.3,
	});
	goals.push({ goal: `pacing: never over ${pacingTarget} in any 1 s window`, measured: `max ${pacingMax}`, met: pacingMax <= pacingTarget });
	goals.push({
		goal: 'pacing: node run within 5% of ideal, from its start (every run)',
		measured: pacingRatios.map((v) => `${((v - 1) * 100).toFixed(1)}%`).join(', '),
		met: pacingRatios.every((v) => Math.abs(v - 1) <= 0.05),
	});
	goals.push({
		goal: '429 recovery: within 1.2x of ideal (median)',
		measured: `${median(rlRatios).toFixed(2)}x`,
		met: median(rlRatios) <= 1.2,
	});
	goals.push({
		goal: '429 recovery: every item delivered exactly once',
		measured: rateLimitRuns.map((r) => `${r.delivered}/${r.n} delivered, ${r.duplicates} dup`).join('; '),
		met: rateLimitRuns.every((r) => r.delivered === r.n && r.duplicates === 0),
	});

	if (shared) {
		goals.push({
			goal: `executions, with sharing: 0 rate-limit refusals and wall within 10% of ideal (${executionsShared.idealSec} s)`,
			measured: `${shared.rateLimitedAnswers} x 429; wall ${fixed(shared.wallSec ?? undefined, 2)} s = ${fixed(shared.wallVsIdeal ?? undefined, 2)}x, first send after ${fixed(shared.firstSendSec ?? undefined, 2)} s; ${fixed(shared.cpuMsPerExecution ?? undefined, 0)} ms CPU per execution`,
			met: shared.rateLimitedAnswers === 0 && shared.wallVsIdeal !== null && shared.wallVsIdeal <= 1.1,
		});
		goals.push({
			goal: 'executions, with sharing: first send to last execution done within 10% of ideal (the limiter\'s part)',
			measured: `${fixed(shared.firstSendToDoneSec ?? undefined, 2)} s = ${fixed(shared.firstSendToDoneVsIdeal ?? undefined, 2)}x; max ${shared.maxInAny1sWindow} sends in any 1 s`,
			met: shared.firstSendToDoneVsIdeal !== null && shared.firstSendToDoneVsIdeal <= 1.1 && shared.maxInAny1sWindow <= EXECUTIONS.perSecond,
		});
		goals.push({
			goal: 'executions, with sharing: every execution succeeds, every message delivered exactly once',
			measured: `${shared.succeededExecutions}/${shared.executions} succeeded, ${shared.delivered} delivered, ${shared.duplicates} dup`,
			met: shared.succeededExecutions === shared.executions && shared.delivered === shared.executions && shared.duplicates === 0,
		});
	}
	if (sharedLegacy) {
		goals.push({
			goal: `executions, with sharing, legacy expression engine: 0 rate-limit refusals and wall within 10% of ideal (${executionsShared.idealSec} s)`,
			measured: `${sharedLegacy.rateLimitedAnswers} x 429; wall ${fixed(sharedLegacy.wallSec ?? undefined, 2)} s = ${fixed(sharedLegacy.wallVsIdeal ?? undefined, 2)}x, first send after ${fixed(sharedLegacy.firstSendSec ?? undefined, 2)} s`,
			met: sharedLegacy.rateLimitedAnswers === 0 && sharedLegacy.wallVsIdeal !== null && sharedLegacy.wallVsIdeal <= 1.1,
		});
	}

	const n8nVersion = (pkg: string) => {
		try {
			return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
		} catch {
			return 'unknown';
		}
	};
	const cpus = os.cpus();
	return {
		package: packageState(),
		mode: QUICK ? 'quick' : 'full',
		date: new Date().toISOString(),
		durationSec: 0,
		machine: {
			node: process.version,
			platform: `${os.platform()} ${os.release()} ${os.arch()}`,
			cpus: cpus.length,
			cpuModel: cpus[0]?.model,
			totalMemGb: round(os.totalmem() / 1024 ** 3, 1),
			loadAverageAtStart: input.loadAtStart.map((v) => round(v, 2)),
			loadAverageAtEnd: os.loadavg().map((v) => round(v, 2)),
			n8nCore: n8nVersion('n8n-core'),
			n8nWorkflow: n8nVersion('n8n-workflow'),
		},
		method: {
			repetitions: PLAN.reps,
			repetitionsCompleted: pacingRuns.length,
			repetitionsSkipped: input.repsSkipped || null,
			order: 'per repetition: each cell runs its contenders one after another (A B C A B C ...), then the pacing and 429 runs',
			expressionEngine: `${ENGINE} (isolated-vm, the n8n 2.41 server default); the legacy engine is an extra line`,
			isolatePoolSize: Number(process.env.N8N_EXPRESSION_ENGINE_POOL_SIZE ?? 2),
			emulator: `separate process (pid ${input.emulatorPid}), test/emulator/cli.ts, driven through /__emulator/`,
			emulatorWhy:
				'the engine blocks its event loop while it evaluates expressions (see loopDelay*), which would delay an in-process emulator\'s arrival stamps and latency timers; the emulator\'s own CPU (emulatorCpuMsPerRequest) would also be counted as the engine\'s',
			cpu: 'process.cpuUsage() of the bench process (user+system, all threads incl. isolated-vm) over the run',
			memory: 'process.memoryUsage().rss sampled every 20 ms; RSS is process-wide, so rssGrowthMb (peak minus start) is the per-contender figure',
			raw: 'axios, same requests, fixed number in flight; without keep-alive = n8n connection behaviour (n8n-core builds a new http.Agent per request); keep-alive is an extra line',
			httpRequestNode: httpSetup
				? `n8n-nodes-base HTTP Request v${httpSetup.version} from ${httpSetup.n8nDir}, in the same engine; POST, Generic Credential Type -> Header Auth, JSON body fields phone/text from expressions, Options -> Batching {batchSize, batchInterval: 0}. With interval 0 the node sends every item at once, whatever the batch size (HttpRequestV3.node.js sleeps only when batchInterval > 0); after repetition 1 only the faster batch size per cell (${[...input.httpPick].map(([cell, id]) => `${cell}: ${id}`).join(', ')}) runs again.`
				: `not loaded: ${input.httpUnavailable}`,
			c1Cells: `concurrency 1 uses N=${PLAN.c1FastN} at 0 ms and N=${PLAN.c1SlowN} at 20 ms (N=${PLAN.bulkN} at c1/20 ms would take ~45 s per run and contender; the bench must stay under 5 minutes on 2 cores)`,
			oursPackageDir: process.env.BENCH_PACKAGE_DIR ?? REPO_ROOT,
			pacingAndRateLimitLatencyMs: SCENARIO_LATENCY_MS,
		},
		bulk,
		overheadPerItem,
		pacing,
		rateLimit429,
		executionsShared,
		packageWeight: weight,
		goals,
		runs: { bulk: bulkRuns, pacing: pacingRuns, rateLimit429: rateLimitRuns, executions: input.executionsRuns },
	};
}

/** Which state of the package was measured: npm run build compiles the working tree, other people's uncommitted edits included. */
function packageState(): Report['package'] {
	if (process.env.BENCH_PACKAGE_DIR) {
		return { dir: path.resolve(process.env.BENCH_PACKAGE_DIR), commit: 'n/a (BENCH_PACKAGE_DIR)', uncommittedChanges: [] };
	}
	const dir = REPO_ROOT;
	const git = (args: string[]) => {
		try {
			return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
		} catch {
			return '';
		}
	};
	return {
		dir,
		commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
		uncommittedChanges: git(['status', '--porcelain', '--', 'nodes', 'credentials', 'package.json'])
			.split('\n')
			.filter(Boolean),
	};
}

function printReport(report: Report): void {
	log('');
	const reps = report.runs.pacing.length;
	log(`== Bulk direct send: medians of ${reps} run(s)${reps < PLAN.reps ? ` (${PLAN.reps} planned; see the warning above)` : ''}, expression engine ${ENGINE}, emulator in its own process ==`);
	const rows: Array<Array<string | number>> = [];
	for (const entry of report.bulk) {
		const cellLabel = `${entry.latencyMs} ms, c${entry.concurrency}, N=${entry.n}`;
		let first = true;
		for (const [id, s] of Object.entries(entry.contenders) as Array<[ContenderId, ContenderSummary]>) {
			const ips = s.itemsPerSec ?? NaN;
			const raw = entry.contenders.raw?.itemsPerSec ?? NaN;
			const http = entry.httpRequestBest?.itemsPerSec ?? NaN;
			rows.push([
				first ? cellLabel : '',
				`${s.label}${s.extra ? ' [extra]' : ''}${entry.httpRequestBest?.contender === id && HTTP_IDS.length > 1 ? ' *best' : ''}`,
				fixed(s.itemsPerSec ?? undefined),
				ratio(ips / raw),
				ratio(ips / http),
				fixed(s.cpuMsPerItem ?? undefined, 2),
				fixed(s.connectionsPerRequest ?? undefined, 2),
				fixed(s.expressionsPerItem ?? undefined, 1),
				`${fixed(s.rssPeakMb ?? undefined)} (+${fixed(s.rssGrowthMb ?? undefined)})`,
				fixed(s.loopDelayMaxMs ?? undefined),
				fixed(s.emulatorCpuMsPerRequest ?? undefined, 2),
				fixed(s.firstDeliverySec ?? undefined, 2),
				s.invalidRuns ? `${s.runs - s.invalidRuns}/${s.runs}` : `${s.runs}`,
			]);
			first = false;
		}
	}
	log(
		table(
			['cell', 'contender', 'items/s', 'vs raw', 'vs HTTP', 'CPU ms/item', 'conn/req', 'expr/item', 'RSS peak MB (+growth)', 'loop max ms', 'emu CPU ms/req', '1st send s', 'runs'],
			rows,
		),
	);
	log('loop max ms: longest event-loop stall in the run (engine runs block while they evaluate expressions; the HTTP Request node builds every request before any leaves).');
	log('1st send s: run start to the emulator\'s first delivery (ours checks every item before its first send).');
	log('vs raw: items/s over the raw client without keep-alive (n8n\'s connection behaviour); vs HTTP: over the HTTP Request node\'s best batching in that latency (it has no concurrency setting: with interval 0 all N are in flight at once).');

	log('');
	log('== CPU per item at 0 ms latency, side by side: the HTTP work (raw client), the workflow\'s expressions (expressions-only node), what is beyond both (n8n\'s request helper + the node\'s own work), and the node\'s own work alone (over a minimal sender through n8n\'s helper) ==');
	log(
		table(
			['cell', 'contender', 'CPU ms/item', 'expr/item', 'raw client', 'expressions only', 'beyond = CPU - raw - expressions', 'minimal sender', 'own = CPU - minimal sender'],
			report.overheadPerItem.map((o) => [
				o.cell,
				CONTENDERS[o.contender].label,
				fixed(o.cpuMsPerItem ?? undefined, 3),
				fixed(o.expressionsPerItem ?? undefined, 1),
				fixed(o.rawCpuMsPerItem ?? undefined, 3),
				fixed(o.expressionsOnlyCpuMsPerItem ?? undefined, 3),
				fixed(o.beyondExpressionsMsPerItem ?? undefined, 3),
				fixed(o.minimalSenderCpuMsPerItem ?? undefined, 3),
				fixed(o.ownMsPerItem ?? undefined, 3),
			]),
		),
	);

	const p = report.pacing as Record<string, number | number[] | boolean>;
	log('');
	log(`== Pacing: maxPerSecond ${p.maxPerSecond}, maxConcurrent ${p.maxConcurrent}, N=${p.n}, emulator latency ${p.emulatorLatencyMs} ms ==`);
	log(`max requests the emulator saw in any 1 s window: ${p.maxInAny1sWindow} (per run: ${(p.maxInAny1sWindowPerRun as number[]).join(', ')}; target ${p.maxPerSecond})`);
	log(`node run time (from the node's start): median ${fixed(p.nodeSecMedian as number, 2)} s vs ideal ${fixed(p.idealSec as number, 2)} s = ${fixed(((p.nodeVsIdealMedian as number) - 1) * 100, 1)}% (per run: ${(p.nodeVsIdealPerRun as number[]).map((v) => `${((v - 1) * 100).toFixed(1)}%`).join(', ')}); whole workflow ${fixed(p.workflowWallSecMedian as number, 2)} s; first request after ${fixed(p.firstRequestSecMedian as number, 2)} s, first-to-last arrival ${fixed(p.firstToLastArrivalSecMedian as number, 2)} s (ideal ${fixed(p.firstToLastArrivalIdealSec as number, 2)} s)`);

	const r = report.rateLimit429 as Record<string, number | number[] | string | Array<string | null>>;
	log('');
	log(`== 429 recovery: emulator limit ${r.limit} per ${r.windowMs} ms (Retry-After from the emulator), N=${r.n}, maxConcurrent 16, no node pacing ==`);
	log(`time to deliver all: median ${fixed(r.wallSecMedian as number, 2)} s vs ideal ${fixed(r.idealSec as number, 2)} s = ${fixed(r.wallVsIdealMedian as number, 2)}x (per run: ${(r.wallVsIdealPerRun as number[]).map((v) => `${v.toFixed(2)}x`).join(', ')}); ${r.idealNote}`);
	log(`first request after ${fixed(r.firstRequestSecMedian as number, 2)} s, first-to-last arrival ${fixed(r.firstToLastArrivalSecMedian as number, 2)} s`);
	log(`429 answers per run: ${(r.rateLimitedAnswersPerRun as number[]).join(', ')}; delivered: ${(r.deliveredPerRun as number[]).join(', ')}; duplicates: ${(r.duplicatesPerRun as number[]).join(', ')}`);

	const x = report.executionsShared;
	log('');
	log(`== Many executions, one account: ${x.executions} executions of 1 item started at once, the same credential, Max Requests Per Second ${x.perSecond} and Max Concurrent ${x.nodeOptions.maxConcurrent}; the emulator enforces ${x.perSecond}/s with 429 + Retry-After, latency ${x.emulatorLatencyMs} ms; ideal ${x.idealSec} s ==`);
	log(
		table(
			['Share Limits Across Executions', '429s', 'wall s', 'vs ideal', '1st send s', '1st send -> done s', 'vs ideal', 'delivered', 'dup', 'max in 1 s', 'executions ok', 'CPU ms/exec', 'loop max ms', 'RSS peak MB'],
			[x.with, x.without, x.withLegacyEngine]
				.filter((l): l is ExecutionsLine => l !== null)
				.map((l) => [
					`${l.shareLimitsAcrossExecutions ? 'with (shared)' : 'without'}${l === x.withLegacyEngine ? ', legacy engine' : ''}`,
					l.rateLimitedAnswers,
					fixed(l.wallSec ?? undefined, 2),
					ratio(l.wallVsIdeal ?? undefined),
					fixed(l.firstSendSec ?? undefined, 2),
					fixed(l.firstSendToDoneSec ?? undefined, 2),
					ratio(l.firstSendToDoneVsIdeal ?? undefined),
					`${l.delivered}/${l.executions}`,
					l.duplicates,
					l.maxInAny1sWindow,
					`${l.succeededExecutions}/${l.executions}`,
					fixed(l.cpuMsPerExecution ?? undefined, 0),
					fixed(l.loopDelayMaxMs ?? undefined),
					fixed(l.rssPeakMb ?? undefined),
				]),
		),
	);
	for (const l of [x.with, x.without]) {
		for (const e of l?.errors ?? []) log(`${l!.shareLimitsAcrossExecutions ? 'with' : 'without'}: ${e.count} execution(s) failed: ${e.message}`);
	}
	log(`where the time goes: ${x.whereTheTimeGoes}`);
	log(`(this cell took ${fixed(x.cellSec ?? undefined, 1)} s)`);

	const w = report.packageWeight;
	log('');
	log(`== Package weight ==`);
	log(`npm pack: ${fixed(w.packedBytes / 1024, 1)} kB packed, ${fixed(w.unpackedBytes / 1024, 1)} kB unpacked, ${w.entryCount} files`);
	log(
		table(
			['dist file', `cold require ms (median of ${w.requireRuns})`, 'with n8n-workflow loaded'],
			[
				['n8n-workflow alone (baseline)', fixed(w.n8nWorkflowRequireMs, 1), ''],
				...w.files.map((f) => [f.file, fixed(f.coldRequireMs, 1), f.withN8nWorkflowLoadedMs === null ? 'n/a (no runtime import)' : fixed(f.withN8nWorkflowLoadedMs, 1)]),
			],
			1,
		),
	);

	log('');
	log('== Goals ==');
	log(table(['goal', 'measured', 'met'], report.goals.map((g) => [g.goal, g.measured, g.met ? 'yes' : 'NO'])));
	const m = report.machine;
	log('');
	log(`package: ${report.package.dir} at ${report.package.commit}${report.package.uncommittedChanges.length ? `, with uncommitted changes in ${report.package.uncommittedChanges.length} file(s) of nodes/, credentials/, package.json (measured as built)` : ''}`);
	log(`machine: Node ${m.node}, ${m.cpus} CPUs (${m.cpuModel}), ${m.platform}; load average at start ${(m.loadAverageAtStart as number[]).join(' ')}, at end ${(m.loadAverageAtEnd as number[]).join(' ')}; n8n-core ${m.n8nCore}; ${report.date}`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
