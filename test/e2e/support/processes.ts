/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Long-running child processes of the end-to-end runs (n8n, and for the queue-mode scenario
 * PostgreSQL and Redis): each in its own process group, its output in a log file, started
 * asynchronously (so an emulator in this process keeps answering), ready when a probe says
 * so, and stopped again, also when this process dies without cleaning up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface ManagedProcess {
	pid: number;
	logFile: string;
	/** Ends the whole process group: `stopSignal`, then SIGKILL after graceMs. */
	stop(graceMs?: number): Promise<void>;
	/** Last lines of the output, for error messages. */
	tail(lines?: number): string;
}

export interface ProcessOptions {
	/** For error messages ("n8n", "PostgreSQL", ...). */
	name: string;
	command: string;
	args: string[];
	env?: NodeJS.ProcessEnv;
	cwd?: string;
	logFile: string;
	/** Also write the output to this process's stdout (npm run dev). */
	echo?: boolean;
	/** Resolves true once the process serves; polled every 250 ms until readinessTimeoutMs. */
	isReady(): Promise<boolean>;
	readinessTimeoutMs?: number;
	/** What asks the process to end (PostgreSQL's fast shutdown is SIGINT). Default SIGTERM. */
	stopSignal?: NodeJS.Signals;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Whatever happens to this process, no child group is left behind. */
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
	});
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		/* already gone */
	}
}

/**
 * A tiny shell that ends a child's process group when this process disappears without
 * running its exit hooks (SIGKILL, an OOM kill): the child runs in its own group and would
 * outlive us.
 */
function startWatchdog(groupId: number, signal: NodeJS.Signals): ChildProcess {
	// `alive` treats a zombie as dead; dash's kill takes `-PGID` (no `--`).
	const script = [
		'alive() { s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }',
		`while alive ${process.pid} && alive ${groupId}; do sleep 1; done`,
		`kill -${signal.replace(/^SIG/, '')} -${groupId} 2>/dev/null; sleep 5; kill -KILL -${groupId} 2>/dev/null; exit 0`,
	].join('\n');
	const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
	watchdog.unref();
	return watchdog;
}

/** Starts the process and resolves once isReady() says so; throws (process stopped) otherwise. */
export async function startProcess(options: ProcessOptions): Promise<ManagedProcess> {
	installExitHook();
	const stopSignal = options.stopSignal ?? 'SIGTERM';
	const log = createWriteStream(options.logFile, { flags: 'a' });
	const child: ChildProcess = spawn(options.command, options.args, {
		env: options.env ?? process.env,
		cwd: options.cwd,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group, so stop() also ends what it spawns
	});
	const spawnError = new Promise<Error>((done) => child.once('error', done));
	const pid = child.pid;
	if (pid === undefined) throw new Error(`${options.name} did not start (${options.command}): ${(await spawnError).message}`);
	liveGroups.add(pid);
	const watchdog = startWatchdog(pid, stopSignal);
	let buffer = '';
	const onData = (chunk: Buffer) => {
		log.write(chunk);
		buffer = (buffer + chunk.toString()).slice(-64 * 1024);
		if (options.echo) process.stdout.write(chunk);
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	let exited: number | null | undefined;
	const exitPromise = new Promise<void>((done) =>
		child.on('exit', (code) => {
			exited = code;
			liveGroups.delete(pid);
			done();
		}),
	);

	const tail = (lines = 40) => buffer.split('\n').slice(-lines).join('\n');
	const stop = async (graceMs = 10_000) => {
		if (exited === undefined) {
			killGroup(pid, stopSignal);
			const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
			await exitPromise;
			clearTimeout(timer);
		}
		// Grandchildren (n8n's task runner, PostgreSQL's backends) may outlive the leader for a moment.
		killGroup(pid, 'SIGKILL');
		liveGroups.delete(pid);
		try {
			watchdog.kill('SIGKILL');
		} catch {
			/* gone */
		}
		await new Promise<void>((done) => log.end(done));
	};

	const timeoutMs = options.readinessTimeoutMs ?? 120_000;
	const deadline = Date.now() + timeoutMs;
	while (true) {
		if (exited !== undefined) {
			await stop();
			throw new Error(`${options.name} exited (code ${exited}) before it was ready:\n${tail()}`);
		}
		if (await options.isReady().catch(() => false)) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`${options.name} was not ready within ${timeoutMs} ms:\n${tail()}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	return { pid, logFile: options.logFile, stop, tail };
}

/** A readiness probe: GET url answers 200. */
export function answers200(url: string): () => Promise<boolean> {
	return async () => {
		const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
		await response.arrayBuffer();
		return response.status === 200;
	};
}
