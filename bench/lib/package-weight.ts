/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * What installing the package costs: `npm pack --dry-run --json` sizes, and the cold
 * `require` time of each dist file n8n loads (package.json n8n.nodes / n8n.credentials), each
 * in a fresh `node -e` (the median of a few): alone, and with n8n-workflow (which the nodes pull
 * in and n8n has loaded anyway) required first, untimed. A bare `require('n8n-workflow')` is the
 * baseline.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { median } from './measure';
import { REPO_ROOT } from './paths';

export interface PackageWeight {
	packedBytes: number;
	unpackedBytes: number;
	entryCount: number;
	requireRuns: number;
	/** How long measuring this took. */
	measureSec?: number;
	/** Median ms of a cold require('n8n-workflow') alone. */
	n8nWorkflowRequireMs: number;
	/** coldRequireMs: fresh process, the file and everything it pulls in; withN8nWorkflowLoadedMs: n8n-workflow already loaded (as inside n8n). */
	files: Array<{ file: string; kind: 'node' | 'credential'; coldRequireMs: number; withN8nWorkflowLoadedMs: number | null }>;
}

const REQUIRE_TIMER =
	'if(process.argv[2])require("n8n-workflow");const t=process.hrtime.bigint();require(process.argv[1]);process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))';

/** Median ms to require `target` in a fresh process; with `preload`, n8n-workflow is loaded (untimed) first, as in n8n. */
function coldRequireMs(target: string, runs: number, preload = false): number {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		const out = execFileSync(process.execPath, ['-e', REQUIRE_TIMER, target, preload ? '1' : ''], {
			cwd: REPO_ROOT,
			encoding: 'utf8',
			env: { ...process.env, NODE_OPTIONS: '' },
		});
		times.push(Number(out));
	}
	return median(times);
}

export function measurePackageWeight(runs: number): PackageWeight {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [pack] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
	const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const baseline = coldRequireMs('n8n-workflow', runs);
	const entries = [
		...manifest.n8n.nodes.map((file) => ({ file, kind: 'node' as const })),
		...manifest.n8n.credentials.map((file) => ({ file, kind: 'credential' as const })),
	];
	const files = entries.map(({ file, kind }) => {
		const target = path.join(REPO_ROOT, file);
		const source = readFileSync(target, 'utf8');
		// Credential classes import n8n-workflow for types only; nothing to preload for them.
		const loadsN8nWorkflow = source.includes('require("n8n-workflow")');
		return {
			file,
			kind,
			coldRequireMs: coldRequireMs(target, runs),
			withN8nWorkflowLoadedMs: loadsN8nWorkflow ? coldRequireMs(target, runs, true) : null,
		};
	});
	return {
		packedBytes: pack.size,
		unpackedBytes: pack.unpackedSize,
		entryCount: pack.entryCount,
		requireRuns: runs,
		n8nWorkflowRequireMs: baseline,
		files,
	};
}
