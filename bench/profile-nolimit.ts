/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * Runs the no-limit cell's contender (ours, or the HTTP Request node with CONTENDER=http) a few
 * times against the emulator in its own process, for `node --cpu-prof`: where a send's CPU goes.
 */
import { configureHarness, installN8n, loadHttpRequestNode, loadPackage } from '../test/harness';
import { makeItems, runHttpRequestNode, runOurNode } from './lib/contenders';
import { EmulatorProcess } from './lib/emulator-process';

async function main(): Promise<void> {
	const emulator = await EmulatorProcess.start();
	try {
		await configureHarness({ expressionEngine: 'vm' });
		loadPackage();
		const http = loadHttpRequestNode(process.env.BENCH_N8N_DIR || installN8n());
		const contender = process.env.CONTENDER ?? 'ours';
		for (let rep = 0; rep < 3; rep++) {
			await emulator.prepare({ latencyMs: 20 });
			const items = makeItems(2_000, `profile-${rep}`);
			const started = performance.now();
			const cpu = process.cpuUsage();
			const outcome = contender === 'http' ? await runHttpRequestNode(http, emulator.bearer, items, undefined, 'vm') : await runOurNode(emulator.bearer, items, process.env.MAXC ? { maxConcurrent: Number(process.env.MAXC) } : {}, 'vm');
			const used = process.cpuUsage(cpu);
			console.log(
				`${contender} rep ${rep}: ${outcome.succeeded} sent, ${Math.round(2_000 / ((performance.now() - started) / 1000))} items/s, CPU ${((used.user + used.system) / 1000 / 2_000).toFixed(3)} ms/item`,
			);
		}
	} finally {
		await emulator.stop();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
