/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * PostgreSQL and Redis from Debian's packages, for the queue-mode scenario: each on a free
 * 127.0.0.1 port (no Unix socket), with its data in a private folder that stop() removes.
 * PostgreSQL refuses to run as root, so under root its commands run as the `postgres` user
 * the Debian package creates (`runuser -u postgres --`).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT } from '../support/n8n';
import { startProcess } from '../support/processes';

const execFileAsync = promisify(execFile);

export interface Service {
	port: number;
	stop(): Promise<void>;
}

export interface Postgres extends Service {
	database: string;
	user: string;
	password: string;
}

/** Runs scripts/e2e-install-queue.sh (installs the packages when missing); returns PostgreSQL's bin folder. */
export async function locatePostgresAndRedis(): Promise<string> {
	try {
		const { stdout } = await execFileAsync('bash', [join(REPO_ROOT, 'scripts', 'e2e-install-queue.sh')], {
			cwd: REPO_ROOT,
			timeout: 600_000,
		});
		return stdout.trim().split('\n').pop()!.trim();
	} catch (error) {
		const e = error as { stderr?: string; message: string };
		throw new Error(`PostgreSQL/Redis prerequisites missing: scripts/e2e-install-queue.sh failed: ${e.stderr || e.message}`);
	}
}

/** Who runs PostgreSQL: this user, or `postgres` when this process is root. */
async function postgresUser(): Promise<{ uid: number; gid: number; wrap: (command: string, args: string[]) => [string, string[]] }> {
	const uid = process.getuid?.() ?? 0;
	if (uid !== 0) return { uid, gid: process.getgid?.() ?? 0, wrap: (command, args) => [command, args] };
	let ids: string[];
	try {
		ids = (await execFileAsync('id', ['-u', 'postgres'])).stdout.trim().split('\n');
		ids.push((await execFileAsync('id', ['-g', 'postgres'])).stdout.trim());
	} catch {
		throw new Error('Running as root, and there is no `postgres` user to run PostgreSQL as (initdb and postgres refuse root)');
	}
	return {
		uid: Number(ids[0]),
		gid: Number(ids[1]),
		wrap: (command, args) => ['runuser', ['-u', 'postgres', '--', command, ...args]],
	};
}

/**
 * initdb + postgres in `dir` (created, owned by the user that runs PostgreSQL), a database
 * `n8n` owned by the superuser `n8n` with a random password (scram-sha-256 over TCP only).
 * Durability is off (fsync, synchronous_commit): the data is thrown away afterwards.
 */
export async function startPostgres(options: { binDir: string; dir: string; logFile: string }): Promise<Postgres> {
	const { binDir, dir } = options;
	const owner = await postgresUser();
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	chownSync(dir, owner.uid, owner.gid);
	chmodSync(dir, 0o700);
	const data = join(dir, 'data');
	const user = 'n8n';
	const password = `pg-${randomUUID()}`;
	const pwfile = join(dir, 'pwfile');
	writeFileSync(pwfile, password, { mode: 0o600 });
	chownSync(pwfile, owner.uid, owner.gid);

	const run = async (command: string, args: string[]) => {
		const [file, argv] = owner.wrap(command, args);
		try {
			await execFileAsync(file, argv, { cwd: dir, timeout: 120_000, env: { ...process.env, PGPASSWORD: password } });
		} catch (error) {
			const e = error as { stdout?: string; stderr?: string; message: string };
			throw new Error(`${command} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
		}
	};
	await run(join(binDir, 'initdb'), [
		`--pgdata=${data}`,
		`--username=${user}`,
		`--pwfile=${pwfile}`,
		'--auth=scram-sha-256',
		'--encoding=UTF8',
		'--locale=C.UTF-8',
		'--no-sync',
		'--no-instructions',
	]);
	rmSync(pwfile);

	const port = await freePort();
	const [file, argv] = owner.wrap(join(binDir, 'postgres'), [
		'-D', data,
		'-c', 'listen_addresses=127.0.0.1',
		'-c', `port=${port}`,
		'-c', 'unix_socket_directories=',
		'-c', 'fsync=off',
		'-c', 'synchronous_commit=off',
		'-c', 'full_page_writes=off',
	]);
	const server = await startProcess({
		name: 'PostgreSQL',
		command: file,
		args: argv,
		cwd: dir,
		logFile: options.logFile,
		// Fast shutdown: no waiting for clients (a killed n8n may leave connections behind).
		stopSignal: 'SIGINT',
		readinessTimeoutMs: 60_000,
		isReady: async () => {
			await execFileAsync(join(binDir, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)], { timeout: 5_000 });
			return true;
		},
	});
	const stop = async () => {
		await server.stop();
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await run(join(binDir, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, 'n8n']);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, database: 'n8n', user, password, stop };
}

/** One Redis command over a fresh connection; resolves with the first reply line. */
function redisCommand(port: number, command: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: '127.0.0.1', port });
		socket.setTimeout(2_000, () => socket.destroy(new Error('Redis did not answer')));
		socket.once('error', reject);
		socket.once('connect', () => socket.write(`${command}\r\n`));
		socket.once('data', (chunk) => {
			socket.end();
			resolve(chunk.toString().split('\r\n')[0]);
		});
	});
}

/** redis-server in the foreground, no persistence, working folder `dir` (removed by stop()). */
export async function startRedis(options: { dir: string; logFile: string }): Promise<Service> {
	rmSync(options.dir, { recursive: true, force: true });
	mkdirSync(options.dir, { recursive: true });
	const port = await freePort();
	const server = await startProcess({
		name: 'Redis',
		command: 'redis-server',
		args: ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', options.dir],
		cwd: options.dir,
		logFile: options.logFile,
		readinessTimeoutMs: 30_000,
		isReady: async () => (await redisCommand(port, 'PING')) === '+PONG',
	});
	return {
		port,
		stop: async () => {
			await server.stop();
			rmSync(options.dir, { recursive: true, force: true });
		},
	};
}
