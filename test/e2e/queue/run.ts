/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Queue mode, for real (`npm run test:queue`): n8n's distributed engine with this package.
 *
 * Starts PostgreSQL and Redis (Debian's packages, free loopback ports, private data folders),
 * the service emulator (in this process) with a per-minute limit the node is not told of,
 * an n8n 2.41.1 main instance and two `n8n worker`s in queue mode, each with the packed
 * package installed as a community package. Publishes Webhook -> Messaging (Send), calls
 * the production webhook once per message, concurrently, and checks that:
 *   - every execution finished with success, with the message it was given;
 *   - the emulator delivered every message exactly once (none lost, none twice);
 *   - the executions ran on the workers (every one on exactly one worker, each worker some).
 * Prints a summary (times, 429s, per-worker counts); exits 1 when a check fails. Everything
 * it started is stopped, and its data removed, also on failure or Ctrl+C; the logs stay in
 * test/e2e/.work/queue/logs/.
 *
 * Settings (environment, all optional): QUEUE_EXECUTIONS (40), QUEUE_ACCOUNT_PER_MINUTE
 * (30, the emulator's limit), QUEUE_ACCOUNT_ANSWER (how the emulator refuses: 429 with
 * Retry-After, or `reason`: the spec's 400 "Rate limit exceeded" without one), QUEUE_WORKERS
 * (2), QUEUE_NODE_LIMITS (off: the node's options are left alone, so each worker finds its share
 * of the account's limit on its own; 1: Max Requests Per Minute = the limit / workers),
 * QUEUE_SHARE_LIMITS (on; 0 = off).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startEmulator, type Emulator } from '../../emulator';
import {
	freePort,
	importCredentials,
	installTarball,
	locateN8n,
	n8nEnv,
	packPackage,
	PACKAGE_NAME,
	REPO_ROOT,
	startN8n,
	type N8nServer,
} from '../support/n8n';
import { N8nRest, postToWebhook, webhookTrigger } from '../support/rest';
import { CREDENTIAL_REFS, credentialImports, missingPackageTypes } from '../support/stack';
import { locatePostgresAndRedis, startPostgres, startRedis } from './services';

function envInt(name: string, fallback: number, min: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}, got '${raw}'`);
	return value;
}

const EXECUTIONS = envInt('QUEUE_EXECUTIONS', 40, 1);
const ACCOUNT_PER_MINUTE = envInt('QUEUE_ACCOUNT_PER_MINUTE', 30, 1);
const WORKERS = envInt('QUEUE_WORKERS', 2, 1);
const ACCOUNT_ANSWER = process.env.QUEUE_ACCOUNT_ANSWER === 'reason' ? 'reason' : '429';
const NODE_LIMITS = process.env.QUEUE_NODE_LIMITS === '1';
/** Jobs each worker runs at once (n8n's default). */
const WORKER_CONCURRENCY = 10;
/** Webhook calls under way at once. */
const CALL_CONCURRENCY = 10;
/** The whole scenario, start-up included (not the one-time n8n install). */
const BUDGET_MS = 10 * 60_000;
/** From the first webhook call until every execution has finished. */
const FINISH_TIMEOUT_MS = 5 * 60_000;

const WORK_DIR = join(REPO_ROOT, 'test', 'e2e', '.work', 'queue');
const LOG_DIR = join(WORK_DIR, 'logs');
const WEBHOOK_PATH = 'queue-mode-send';
const SEND_NODE = 'Send Message';
const MESSAGING_NODE_TYPE = `${PACKAGE_NAME}.messaging`;

const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const log = (line: string) => console.log(`[queue ${seconds(Date.now() - started)}] ${line}`);

/** What was started, stopped in reverse order by shutdown(). */
const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
let shuttingDown: Promise<void> | undefined;
/** Set by a signal: what fails afterwards is the shutdown's doing, not a finding. */
let interrupted = false;

function shutdown(): Promise<void> {
	shuttingDown ??= (async () => {
		const since = Date.now();
		const took: string[] = [];
		for (const { name, stop } of stops.reverse()) {
			const t = Date.now();
			await stop().catch((error: Error) => console.error(`stopping ${name} failed: ${error.message}`));
			if (Date.now() - t >= 1_000) took.push(`${name} ${seconds(Date.now() - t)}`);
		}
		log(`everything stopped in ${seconds(Date.now() - since)}${took.length ? ` (${took.join(', ')})` : ''}; data removed`);
	})();
	return shuttingDown;
}

interface Message {
	phone: string;
	text: string;
}

async function main(): Promise<string[]> {
	rmSync(WORK_DIR, { recursive: true, force: true });
	mkdirSync(LOG_DIR, { recursive: true });

	const installDir = await locateN8n();
	const pgBin = await locatePostgresAndRedis();
	log(`n8n in ${installDir}; PostgreSQL in ${pgBin}`);
	const tarball = await packPackage();
	log(`packed ${tarball}`);

	const [pg, redis] = await Promise.all([
		startPostgres({ binDir: pgBin, dir: join(WORK_DIR, 'postgres'), logFile: join(LOG_DIR, 'postgres.log') }),
		startRedis({ dir: join(WORK_DIR, 'redis'), logFile: join(LOG_DIR, 'redis.log') }),
	]);
	stops.push({ name: 'PostgreSQL', stop: pg.stop }, { name: 'Redis', stop: redis.stop });
	log(`PostgreSQL on 127.0.0.1:${pg.port}, Redis on 127.0.0.1:${redis.port}`);

	const emulator = await startEmulator();
	stops.push({ name: 'emulator', stop: emulator.close });
	log(`emulator: ${emulator.url}`);

	/** One process of the cluster: its own user folder (as on its own machine), the shared DB and queue. */
	const processEnv = async (name: string, port: number, extra: Record<string, string> = {}) => {
		const userFolder = join(WORK_DIR, name);
		mkdirSync(userFolder, { recursive: true });
		await installTarball(tarball, userFolder);
		stops.push({ name: `${name} user folder`, stop: async () => rmSync(userFolder, { recursive: true, force: true }) });
		return n8nEnv({
			userFolder,
			port,
			brokerPort: await freePort(),
			extra: {
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redis.port),
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(pg.port),
				DB_POSTGRESDB_DATABASE: pg.database,
				DB_POSTGRESDB_USER: pg.user,
				DB_POSTGRESDB_PASSWORD: pg.password,
				// After a failure or Ctrl+C, a worker would wait 30 s for its running jobs.
				N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
				...extra,
			},
		});
	};

	const mainPort = await freePort();
	const mainEnv = await processEnv('main', mainPort);
	await importCredentials(
		installDir,
		mainEnv,
		credentialImports(emulator).filter((c) => c.type === 'messagingBearerApi'),
		join(WORK_DIR, 'import'),
	);
	rmSync(join(WORK_DIR, 'import'), { recursive: true, force: true });
	log('credential imported (the database is migrated)');

	const mainServer = await startN8n({ installDir, env: mainEnv, port: mainPort, logFile: join(LOG_DIR, 'main.log'), readinessTimeoutMs: 180_000 });
	stops.push({ name: 'n8n main', stop: mainServer.stop });
	log(`n8n main ready at ${mainServer.baseUrl}`);

	const starts = await Promise.allSettled(
		Array.from({ length: WORKERS }, async (_, i) => {
			const name = `worker-${i + 1}`;
			const healthPort = await freePort();
			const env = await processEnv(name, await freePort(), {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			});
			const server = await startN8n({
				installDir,
				env,
				port: healthPort,
				command: ['worker', `--concurrency=${WORKER_CONCURRENCY}`],
				logFile: join(LOG_DIR, `${name}.log`),
				readinessTimeoutMs: 180_000,
			});
			return { name, server };
		}),
	);
	const workers = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
	// In parallel: each waits for its running jobs before it exits.
	stops.push({ name: 'n8n workers', stop: async () => void (await Promise.all(workers.map((w) => w.server.stop()))) });
	const failedStart = starts.find((start) => start.status === 'rejected');
	if (failedStart) throw failedStart.reason;
	rmSync(dirname(tarball), { recursive: true, force: true });
	log(`${WORKERS} workers ready (health on ${workers.map((w) => w.server.port).join(', ')})`);

	const rest = new N8nRest(mainServer.baseUrl, installDir);
	await rest.setupOwner();
	await rest.login();
	const missing = await missingPackageTypes(rest);
	if (missing.length > 0) throw new Error(`n8n main did not load the package: missing ${missing.join(', ')} (see ${mainServer.logFile})`);

	const shareLimits = process.env.QUEUE_SHARE_LIMITS !== '0';
	const perWorkerLimit = Math.max(1, Math.floor(ACCOUNT_PER_MINUTE / WORKERS));
	const workflow = await rest.createWorkflow({
		name: 'Queue mode: webhook -> message',
		nodes: [
			webhookTrigger(WEBHOOK_PATH),
			{
				id: randomUUID(),
				name: SEND_NODE,
				type: MESSAGING_NODE_TYPE,
				typeVersion: 1,
				position: [300, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					phone: '={{ $json.body.phone }}',
					text: '={{ $json.body.text }}',
					// Left alone, as users do: the node finds the account's limit. Or the account's limit
					// divided by the workers (the node's limits hold per process).
					options: NODE_LIMITS ? { maxPerMinute: perWorkerLimit, maxWaitSeconds: 90, shareLimitsAcrossExecutions: shareLimits } : {},
				},
				credentials: { messagingBearerApi: CREDENTIAL_REFS.messagingBearerApi },
			},
		],
		connections: { Webhook: { main: [[{ node: SEND_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	await rest.activateWorkflow(workflow.id);
	const shareText = NODE_LIMITS ? `Max Requests Per Minute ${perWorkerLimit} per worker, shared limits ${shareLimits ? 'on' : 'off'}` : 'no options set';
	log(`workflow ${workflow.id} published; ${shareText}`);

	emulator.reset();
	// A sliding one-minute window, refused with 429 + Retry-After (the real time until the window
	// frees) or as the spec reports it (400, "Rate limit exceeded", no Retry-After).
	emulator.setFaults({ rateLimit: { limit: ACCOUNT_PER_MINUTE, windowMs: 60_000, answer: ACCOUNT_ANSWER } });

	const runId = randomUUID().slice(0, 8);
	const messages: Message[] = Array.from({ length: EXECUTIONS }, (_, i) => ({
		phone: `+1415555${String(1000 + i).padStart(4, '0')}`,
		text: `Queue mode ${runId}: message ${i + 1} of ${EXECUTIONS}`,
	}));
	const firedAt = Date.now();
	await inParallel(messages, CALL_CONCURRENCY, (message) => postToWebhook(`${mainServer.baseUrl}/webhook/${WEBHOOK_PATH}`, message));
	log(`${EXECUTIONS} webhook calls answered in ${seconds(Date.now() - firedAt)}`);

	const executions = await rest.waitForExecutionsOf(workflow.id, EXECUTIONS, firedAt + FINISH_TIMEOUT_MS);
	const runWallMs = Date.now() - firedAt;
	log(`${executions.length} executions finished ${seconds(runWallMs)} after the first call`);

	return await check({ rest, emulator, messages, executions, workers, runWallMs, perWorkerLimit, shareText });
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	const lane = async () => {
		while (next < items.length) await work(items[next++]);
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

type ExecutionSummary = { id: string; status: string; mode: string };

function countBy(values: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
}

/** Execution ids a worker's log says it started ("Worker started execution 12 (job 7)"). */
function executionsInLog(file: string): string[] {
	return [...readFileSync(file, 'utf8').matchAll(/Worker started execution (\S+) \(job /g)].map((m) => m[1]);
}

async function check(run: {
	rest: N8nRest;
	emulator: Emulator;
	messages: Message[];
	executions: ExecutionSummary[];
	workers: Array<{ name: string; server: N8nServer }>;
	runWallMs: number;
	perWorkerLimit: number;
	shareText: string;
}): Promise<string[]> {
	const { rest, emulator, messages, executions, workers } = run;
	const problems: string[] = [];

	// 1. Every execution succeeded and sent the message it was given.
	if (executions.length !== messages.length) problems.push(`${executions.length} executions for ${messages.length} webhook calls`);
	const expectedPhones = new Set(messages.map((m) => m.phone));
	const outputPhones: string[] = [];
	for (const { id } of executions) {
		const execution = await rest.getExecution(id);
		if (execution.status !== 'success') {
			const error = execution.data?.resultData?.error;
			problems.push(`execution ${id}: status ${execution.status}${error ? ` (${error.message ?? ''} ${error.description ?? ''})` : ''}`);
			continue;
		}
		const item = execution.data.resultData.runData[SEND_NODE]?.[0]?.data?.main?.[0]?.[0]?.json;
		if (!item || item.success !== true || !expectedPhones.has(String(item.to))) {
			problems.push(`execution ${id}: unexpected output of ${SEND_NODE}: ${JSON.stringify(item)}`);
		} else outputPhones.push(String(item.to));
	}
	const repeatedOutputs = Object.entries(countBy(outputPhones)).filter(([, n]) => n > 1);
	if (repeatedOutputs.length > 0) problems.push(`several executions sent to the same number: ${JSON.stringify(repeatedOutputs)}`);

	// 2. Every message delivered exactly once.
	const delivered = countBy(emulator.deliveries.map((d) => `${d.recipient}|${d.content}`));
	const lost = messages.filter((m) => !delivered[`${m.phone}|${m.text}`]);
	const twice = Object.entries(delivered).filter(([, n]) => n > 1);
	const unexpected = Object.keys(delivered).filter((key) => !messages.some((m) => `${m.phone}|${m.text}` === key));
	if (lost.length > 0) problems.push(`${lost.length} messages never delivered: ${lost.map((m) => m.phone).join(', ')}`);
	if (twice.length > 0) problems.push(`messages delivered more than once: ${JSON.stringify(twice)}`);
	if (unexpected.length > 0) problems.push(`deliveries nobody asked for: ${unexpected.join(', ')}`);

	// 3. Spread over the workers: each execution on exactly one worker, every worker some.
	const ids = new Set(executions.map((e) => e.id));
	const ranOn = new Map<string, string[]>();
	const perWorker = workers.map(({ name, server }) => {
		const own = executionsInLog(server.logFile).filter((id) => ids.has(id));
		for (const id of own) ranOn.set(id, [...(ranOn.get(id) ?? []), name]);
		return { name, count: own.length };
	});
	const nowhere = [...ids].filter((id) => !ranOn.has(id));
	const several = [...ranOn].filter(([, names]) => names.length > 1);
	if (nowhere.length > 0) problems.push(`executions no worker's log claims: ${nowhere.join(', ')}`);
	if (several.length > 0) problems.push(`executions started on more than one worker: ${JSON.stringify(several)}`);
	for (const { name, count } of perWorker) if (count === 0 && workers.length > 1) problems.push(`${name} ran no execution`);

	// Summary.
	const sends = emulator.requests.filter((r) => r.api === 'send');
	const rateLimited = sends.filter((r) => r.outcome === 'rate-limited').length;
	const maxPerMinute = emulator.maxRequestsInWindow(60_000, (r) => r.api === 'send' && r.outcome === 'delivered');
	console.log('');
	console.log('Queue-mode scenario summary');
	console.log(`  executions           ${executions.length} (${JSON.stringify(countBy(executions.map((e) => e.status)))}), mode ${[...new Set(executions.map((e) => e.mode))].join(', ')}`);
	console.log(`  per worker           ${perWorker.map((w) => `${w.name}: ${w.count}`).join(', ')}`);
	console.log(`  account limit        ${ACCOUNT_PER_MINUTE}/min at the emulator, refused with ${ACCOUNT_ANSWER === 'reason' ? "the spec's 400 reason" : '429 + Retry-After'}; node: ${run.shareText}`);
	console.log(`  send requests        ${sends.length}: ${emulator.deliveries.length} delivered, ${rateLimited} refused for rate`);
	console.log(`  deliveries/minute    at most ${maxPerMinute} in any 60 s window`);
	console.log(`  run wall time        ${seconds(run.runWallMs)} (first webhook call -> last execution finished)`);
	console.log(`  total wall time      ${seconds(Date.now() - started)} (start-up included)`);
	console.log(`  logs                 ${LOG_DIR}`);
	console.log('');
	return problems;
}

const budget = setTimeout(() => {
	console.error(`queue-mode scenario: over its budget of ${seconds(BUDGET_MS)}; stopping`);
	void shutdown().finally(() => process.exit(1));
}, BUDGET_MS);
budget.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		console.error(`queue-mode scenario: ${signal}; stopping`);
		interrupted = true;
		void shutdown().finally(() => process.exit(130));
	});
}

main()
	.then(async (problems) => {
		if (interrupted) return;
		await shutdown();
		if (problems.length > 0) {
			console.error(`queue-mode scenario FAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
			process.exit(1);
		}
		log('queue-mode scenario passed');
		process.exit(0);
	})
	.catch(async (error: Error) => {
		if (interrupted) return;
		console.error(`queue-mode scenario FAILED: ${error.stack ?? error.message}`);
		console.error(`logs: ${LOG_DIR}`);
		await shutdown();
		process.exit(1);
	});
