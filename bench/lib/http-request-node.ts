/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * n8n's own HTTP Request node (n8n-nodes-base of the pinned n8n 2.41.1, installed by
 * scripts/install-n8n.sh) loaded into the SAME engine the harness runs our node in.
 *
 * Two copies: n8n-nodes-base lives in the n8n install folder, whose node_modules has its own
 * n8n-workflow. The engine (n8n-core) and our dist/ use this repository's CJS n8n-workflow, so
 * every `require('n8n-workflow')` made from inside the install folder is redirected to that one
 * (same version, 2.41.0): one set of error classes, one Expression engine setting. Everything else
 * the node needs (lodash, @n8n/utils, jsdom, ...) is taken from the install folder.
 *
 * Node type name: n8n-core gives the HTTP Request node "full access" to any credential type
 * (FULL_ACCESS_NODE_TYPES has 'n8n-nodes-base.httpRequest'), which is how it reads the generic
 * httpHeaderAuth credential. The harness registers extra nodes under our package's prefix, so the
 * node is also registered under its real name 'n8n-nodes-base.httpRequest'.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';

import type { ICredentialType } from 'n8n-workflow';

import { loadPackage, type AnyNodeType, type LoadedPackage } from '../../test/harness';
import { REPO_ROOT } from './paths';

export const HTTP_REQUEST_TYPE = 'n8n-nodes-base.httpRequest';

export interface HttpRequestLoad {
	pkg: LoadedPackage;
	version: number;
	n8nDir: string;
	loadMs: number;
}

type ResolveFilename = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;

function redirectN8nWorkflow(n8nDir: string): void {
	const ours = createRequire(path.join(REPO_ROOT, 'package.json'));
	const target = ours.resolve('n8n-workflow');
	const M = Module as unknown as { _resolveFilename: ResolveFilename };
	const original = M._resolveFilename;
	const prefix = n8nDir + path.sep;
	M._resolveFilename = function (this: unknown, request, parent, ...rest) {
		if (request === 'n8n-workflow' && parent?.filename?.startsWith(prefix)) return target;
		return original.call(this, request, parent, ...rest);
	};
}

/** The n8n install folder (installs n8n on a fresh machine; idempotent). */
export function locateN8n(): string {
	const fromEnv = process.env.BENCH_N8N_DIR;
	if (fromEnv && existsSync(path.join(fromEnv, 'node_modules', 'n8n-nodes-base'))) return fromEnv;
	const out = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'install-n8n.sh')], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const dir = out.trim().split('\n').at(-1)!.trim();
	if (!existsSync(path.join(dir, 'node_modules', 'n8n-nodes-base'))) {
		throw new Error(`install-n8n.sh printed ${dir}, which has no node_modules/n8n-nodes-base`);
	}
	return dir;
}

export function loadHttpRequestNode(n8nDir: string): HttpRequestLoad {
	const started = performance.now();
	redirectN8nWorkflow(n8nDir);
	const base = path.join(n8nDir, 'node_modules', 'n8n-nodes-base', 'dist');
	const req = createRequire(path.join(base, 'index.js'));
	const { HttpRequest } = req(path.join(base, 'nodes', 'HttpRequest', 'HttpRequest.node.js')) as {
		HttpRequest: new () => AnyNodeType;
	};
	const { HttpHeaderAuth } = req(path.join(base, 'credentials', 'HttpHeaderAuth.credentials.js')) as {
		HttpHeaderAuth: new () => ICredentialType;
	};
	const node = new HttpRequest();
	const pkg = loadPackage({ nodes: [node], credentials: [new HttpHeaderAuth()] });
	// Also under its real name, for n8n-core's full credential access (see above).
	const ownName = pkg.resolveNodeTypeName('httpRequest')!;
	pkg.nodeTypes[HTTP_REQUEST_TYPE] = pkg.nodeTypes[ownName];
	pkg.knownNodes[HTTP_REQUEST_TYPE] = pkg.knownNodes[ownName];
	return { pkg, version: pkg.latestVersion(HTTP_REQUEST_TYPE), n8nDir, loadMs: performance.now() - started };
}
