/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: a developer script, run by Node outside n8n (README: Lint) */
/**
 * `npm run dev`: a real n8n 2.41 with this working tree's nodes, against the emulator.
 *
 *   1. builds the package, then keeps `tsc --watch` running;
 *   2. starts the messaging service emulator (fixed port, so saved credentials stay valid);
 *   3. puts the package where n8n's Community Nodes feature installs packages
 *      (.n8n-dev/n8n-user/.n8n/nodes/node_modules/n8n-nodes-messaging), so the node types are
 *      `n8n-nodes-messaging.*` as for users, and copies dist/ there again on every rebuild
 *      (n8n runs with N8N_DEV_RELOAD=true and reloads the package);
 *   4. imports the three credentials against the emulator, starts n8n, creates the owner;
 *   5. prints the editor URL and the login. Ctrl-C stops everything.
 *
 * The package is copied, not symlinked: through a symlink Node would resolve `n8n-workflow`
 * from this repo's node_modules (a second copy next to n8n's), and n8n's `instanceof`
 * checks on errors would stop matching.
 *
 * Flags: --port N (n8n, default 5678), --emulator-port N (default 5681), --fresh (wipe the
 * dev user folder first), --smoke (start, check readiness, stop; for CI).
 * Data lives in .n8n-dev/ (git-ignored); the n8n log is .n8n-dev/n8n.log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { communityNodesDir, PACKAGE_NAME, REPO_ROOT, writeNodesPackageJson } from '../test/e2e/support/n8n';
import { missingPackageTypes, startStack, type Stack } from '../test/e2e/support/stack';

const DEV_DIR = join(REPO_ROOT, '.n8n-dev');
const USER_FOLDER = join(DEV_DIR, 'n8n-user');

function flag(name: string): boolean {
	return process.argv.includes(`--${name}`);
}

function numberFlag(name: string, fallback: number): number {
	const args = process.argv;
	const inline = args.find((a) => a.startsWith(`--${name}=`));
	const at = args.indexOf(`--${name}`);
	const raw = inline ? inline.slice(name.length + 3) : at >= 0 ? args[at + 1] : undefined;
	if (raw === undefined) return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1 || value > 65535) {
		console.error(`--${name} needs a port number, got '${raw}'`);
		process.exit(2);
	}
	return value;
}

const say = (line: string) => console.log(`[dev] ${line}`);

async function run(command: string, args: string[]): Promise<void> {
	const child = spawn(command, args, { cwd: REPO_ROOT, stdio: 'inherit' });
	const code = await new Promise<number | null>((done) => child.on('close', done));
	if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${code})`);
}

function packageTarget(): string {
	return join(communityNodesDir(USER_FOLDER), 'node_modules', PACKAGE_NAME);
}

/** Copies package.json and dist/ into the Community Nodes folder. */
function syncPackage(): void {
	const target = packageTarget();
	mkdirSync(target, { recursive: true });
	cpSync(join(REPO_ROOT, 'package.json'), join(target, 'package.json'));
	cpSync(join(REPO_ROOT, 'dist'), join(target, 'dist'), { recursive: true, force: true });
}

function installDevPackage(): void {
	rmSync(packageTarget(), { recursive: true, force: true });
	syncPackage();
	const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
	writeNodesPackageJson(communityNodesDir(USER_FOLDER), version);
}

async function main(): Promise<void> {
	const smoke = flag('smoke');
	const port = numberFlag('port', 5678);
	const emulatorPort = numberFlag('emulator-port', 5681);
	mkdirSync(DEV_DIR, { recursive: true });
	const logFile = join(DEV_DIR, 'n8n.log');
	writeFileSync(logFile, '');

	say('building the package (npm run build)');
	await run('npm', ['run', 'build', '--silent']);

	// Assigned further down, but stopAll (a signal) can run before that: hence let, not const.
	// eslint-disable-next-line prefer-const
	let tsc: ChildProcess | undefined;
	// eslint-disable-next-line prefer-const
	let watcher: FSWatcher | undefined;
	let stack: Stack | undefined;
	let stopping = false;
	const stopAll = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say('stopping');
		watcher?.close();
		if (tsc?.pid) {
			try {
				process.kill(-tsc.pid, 'SIGTERM');
			} catch {
				/* gone */
			}
		}
		await stack?.stop();
		say('n8n, the emulator and tsc --watch stopped');
		process.exit(code);
	};
	process.once('SIGINT', () => void stopAll(0));
	process.once('SIGTERM', () => void stopAll(0));

	try {
		stack = await startStack({
			userFolder: USER_FOLDER,
			fresh: flag('fresh') || !existsSync(USER_FOLDER),
			logFile,
			echo: !smoke && flag('verbose'),
			n8nPort: port,
			emulatorPort,
			extraEnv: { N8N_DEV_RELOAD: 'true' },
			log: say,
			installPackage: async () => installDevPackage(),
		});
	} catch (error) {
		console.error(`[dev] failed to start: ${(error as Error).message}`);
		console.error(`[dev] n8n log: ${logFile}`);
		await stopAll(1);
		return;
	}

	const { emulator, n8n, owner, credentials } = stack;
	const missing = await missingPackageTypes(stack.rest).catch(() => ['(types could not be read)']);
	if (missing.length > 0) say(`WARNING: n8n did not load the package (missing ${missing.join(', ')}); see ${logFile}`);
	console.log('');
	console.log(`  Messaging service emulator: ${emulator.url}   (control API: ${emulator.url}/__emulator/state)`);
	console.log(`  n8n editor:                 ${n8n.baseUrl}/`);
	console.log(`  Log in with:                ${owner.email} / ${owner.password}`);
	console.log('  Credentials (pointing at the emulator):');
	for (const [type, ref] of Object.entries(credentials)) console.log(`    - ${ref.name} (${type}, id ${ref.id})`);
	console.log(`  n8n log:                    ${logFile}`);
	console.log('');

	if (smoke) {
		const response = await fetch(`${n8n.baseUrl}/healthz/readiness`);
		say(`smoke: readiness ${response.status}`);
		await stopAll(response.status === 200 ? 0 : 1);
		return;
	}

	// Rebuild on save; copy the output to n8n, which reloads the package.
	tsc = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json', '--watch', '--preserveWatchOutput'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'inherit', 'inherit'],
		detached: true,
	});
	let timer: NodeJS.Timeout | undefined;
	watcher = watch(join(REPO_ROOT, 'dist'), { recursive: true }, () => {
		clearTimeout(timer);
		timer = setTimeout(() => {
			try {
				syncPackage();
				say('dist/ changed: copied to n8n (it reloads the package; refresh the editor for new parameters)');
			} catch (error) {
				say(`copy failed: ${(error as Error).message}`);
			}
		}, 400);
	});
	say('watching for changes; Ctrl-C stops everything');
}

void main();
