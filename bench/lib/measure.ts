/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * What one measured run records: wall time, CPU time of this process, RSS peak (sampled),
 * event-loop delay, new TCP connections and n8n expression evaluations.
 */
import diagnostics from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { n8nWorkflow } from '../../test/harness';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** New client TCP sockets of this process (net.connect), published by Node for every connection. */
let connections = 0;
diagnostics.subscribe('net.client.socket', () => {
	connections += 1;
});

/** Expressions n8n evaluates (either engine goes through Expression#renderExpression). */
let expressions = 0;
const proto = n8nWorkflow.Expression.prototype as unknown as { renderExpression: (...args: unknown[]) => unknown };
const render = proto.renderExpression;
proto.renderExpression = function (this: unknown, ...args: unknown[]) {
	expressions += 1;
	return render.apply(this, args);
};

export interface Sample {
	wallMs: number;
	/** user + system CPU of this process (all its threads, so isolated-vm included). */
	cpuMs: number;
	rssStartMb: number;
	rssPeakMb: number;
	heapPeakMb: number;
	connections: number;
	expressions: number;
	loopDelayP99Ms: number;
	loopDelayMaxMs: number;
	/** CPU the emulator process used during the run. */
	emulatorCpuMs?: number;
}

const SAMPLE_MS = 20;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Between runs: collect garbage, then wait until this process is quiet (under 10% of a core for
 * 50 ms). The isolate pool rebuilds an isolate (~100 ms CPU) in the background after every run
 * that used one; without waiting, that CPU would be billed to whichever contender runs next.
 */
export async function settle(maxMs = 1_500): Promise<number> {
	const started = performance.now();
	gc();
	await sleep(50);
	for (;;) {
		const before = process.cpuUsage();
		await sleep(50);
		const used = process.cpuUsage(before);
		if ((used.user + used.system) / 1000 < 5 || performance.now() - started > maxMs) break;
	}
	gc();
	await sleep(10);
	return performance.now() - started;
}

export async function measure<T>(fn: () => Promise<T>, emulatorCpu?: () => number | undefined): Promise<{ value: T; sample: Sample }> {
	const mb = (bytes: number) => bytes / (1024 * 1024);
	const rssStart = process.memoryUsage.rss();
	let rssPeak = rssStart;
	let heapPeak = process.memoryUsage().heapUsed;
	// One 20 ms timer samples memory and how late it fires (event-loop delay: what an in-process
	// emulator's arrival stamps and latency timers would suffer).
	const lags: number[] = [];
	let last = performance.now();
	const sampler = setInterval(() => {
		const now = performance.now();
		lags.push(Math.max(0, now - last - SAMPLE_MS));
		last = now;
		const { rss, heapUsed } = process.memoryUsage();
		if (rss > rssPeak) rssPeak = rss;
		if (heapUsed > heapPeak) heapPeak = heapUsed;
	}, SAMPLE_MS);
	const connections0 = connections;
	const expressions0 = expressions;
	const emulatorCpu0 = emulatorCpu?.();
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	try {
		const value = await fn();
		const wallMs = performance.now() - t0;
		const cpu = process.cpuUsage(cpu0);
		const emulatorCpu1 = emulatorCpu?.();
		const rssEnd = process.memoryUsage.rss();
		if (rssEnd > rssPeak) rssPeak = rssEnd;
		return {
			value,
			sample: {
				wallMs,
				cpuMs: (cpu.user + cpu.system) / 1000,
				rssStartMb: mb(rssStart),
				rssPeakMb: mb(rssPeak),
				heapPeakMb: mb(heapPeak),
				connections: connections - connections0,
				expressions: expressions - expressions0,
				loopDelayP99Ms: percentile(lags, 0.99),
				loopDelayMaxMs: lags.length ? Math.max(...lags) : 0,
				emulatorCpuMs:
					emulatorCpu0 !== undefined && emulatorCpu1 !== undefined ? emulatorCpu1 - emulatorCpu0 : undefined,
			},
		};
	} finally {
		clearInterval(sampler);
	}
}

export function percentile(values: number[], q: number): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function median(values: number[]): number {
	const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
