/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * The messaging service emulator in its own process (test/emulator/cli.ts), driven through
 * its control API (/__emulator/*). The benchmark keeps the emulator out of the engine's
 * process: isolated-vm expression evaluation runs synchronously on the engine's event loop,
 * and an in-process emulator would stamp arrivals and fire its latency timers late by that
 * much (bench/run.ts measures and prints the engine process's event-loop delay as evidence).
 * Two cores: the emulator gets the second one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { REPO_ROOT } from './paths';

export interface BearerCredential {
	accessToken: string;
	sendBaseUrl: string;
	templateSendBaseUrl: string;
	templatesBaseUrl: string;
	sandboxBaseUrl: string;
	[key: string]: string;
}

export interface RequestRecordLite {
	seq: number;
	api: string;
	at: number;
	outcome: string;
	status: number;
}

export interface EmulatorStateLite {
	requestCount: number;
	requests?: RequestRecordLite[];
	deliveries: number;
	duplicates: unknown[];
}

export interface FaultsPatch {
	latencyMs?: number;
	/** Each answer takes latencyMs plus 0 to this many ms more, at random. */
	latencyJitterMs?: number;
	rateLimit?: { limit: number; windowMs: number; retryAfterSeconds?: number; answer?: '429' | 'reason' } | null;
}

/** Control calls (never during a measured run) on a connection of their own each; retried once if the emulator drops it. */
async function control<T>(baseUrl: string, method: 'GET' | 'POST', name: string, body?: unknown): Promise<T> {
	try {
		return await controlOnce<T>(baseUrl, method, name, body);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
		return await controlOnce<T>(baseUrl, method, name, body);
	}
}

function controlOnce<T>(baseUrl: string, method: 'GET' | 'POST', name: string, body?: unknown): Promise<T> {
	return new Promise((resolve, reject) => {
		const payload = body === undefined ? undefined : JSON.stringify(body);
		const req = http.request(
			`${baseUrl}/__emulator/${name}`,
			{
				method,
				agent: false,
				headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					if ((res.statusCode ?? 0) >= 400) reject(new Error(`emulator control ${method} ${name}: ${res.statusCode} ${text}`));
					else resolve(JSON.parse(text) as T);
				});
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end(payload);
	});
}

export class EmulatorProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly url: string,
		readonly bearer: BearerCredential,
	) {}

	get pid(): number {
		return this.child.pid ?? 0;
	}

	static async start(): Promise<EmulatorProcess> {
		const cli = path.join(REPO_ROOT, 'test', 'emulator', 'cli.ts');
		// node --import <tsx loader> directly (not the tsx CLI, which would put a relay process in between),
		// so `pid` is the emulator itself and its CPU time can be read.
		const loader = pathToFileURL(path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
		const child = spawn(process.execPath, ['--import', loader, cli, '--latency', '0'], {
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, NODE_OPTIONS: '' },
		});
		let out = '';
		let err = '';
		child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
		const ready = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`emulator did not start in 30 s:\n${out}\n${err}`)), 30_000);
			child.once('exit', (code) => {
				clearTimeout(timer);
				reject(new Error(`emulator exited (${code}) before it was ready:\n${out}\n${err}`));
			});
			child.stdout!.on('data', (chunk: Buffer) => {
				out += chunk.toString();
				if (out.includes('Press Ctrl+C')) {
					clearTimeout(timer);
					resolve(out);
				}
			});
		});
		child.removeAllListeners('exit');
		const url = /listening on (http:\/\/[^\s]+)/.exec(ready)?.[1];
		const bearerJson = /Credential messagingBearerApi:\n([\s\S]*?)\nCredential /.exec(ready)?.[1];
		if (!url || !bearerJson) throw new Error(`cannot read the emulator's URL and credentials from:\n${ready}`);
		return new EmulatorProcess(child, url, JSON.parse(bearerJson) as BearerCredential);
	}

	/** Everything back to defaults, then the given faults (latency etc.). */
	async prepare(faults: FaultsPatch): Promise<void> {
		await control(this.url, 'POST', 'reset', {});
		await control(this.url, 'POST', 'faults', faults);
	}

	async state(withRequests: boolean): Promise<EmulatorStateLite> {
		return await control<EmulatorStateLite>(this.url, 'GET', withRequests ? 'state' : 'state?requests=none');
	}

	/** Arrival times (epoch ms) of the deliveries so far. */
	async deliveryTimes(): Promise<number[]> {
		const deliveries = await control<Array<{ at: number }>>(this.url, 'GET', 'deliveries');
		return deliveries.map((d) => d.at);
	}

	/** CPU time (ms) the emulator process has used so far (Linux /proc; undefined elsewhere). */
	cpuMs(): number | undefined {
		try {
			const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			// utime and stime are fields 14 and 15 (1-based) of the whole line; here 12 and 13 (0-based, after the name).
			const ticks = Number(fields[11]) + Number(fields[12]);
			return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
		} catch {
			return undefined;
		}
	}

	async stop(): Promise<void> {
		if (this.child.exitCode !== null) return;
		await new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				this.child.kill('SIGKILL');
				resolve();
			}, 5_000);
			this.child.once('exit', () => {
				clearTimeout(timer);
				resolve();
			});
			this.child.kill('SIGTERM');
		});
	}
}

/** Max number of arrival times in any window of `windowMs` (same rule as the emulator's maxRequestsInWindow). */
export function maxInWindow(times: number[], windowMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let best = 0;
	let left = 0;
	for (let right = 0; right < sorted.length; right++) {
		while (sorted[right] - sorted[left] >= windowMs) left++;
		best = Math.max(best, right - left + 1);
	}
	return best;
}
