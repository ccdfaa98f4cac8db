/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * n8n's own HTTP Request node (n8n-nodes-base of the pinned n8n, installed by
 * scripts/install-n8n.sh) loaded into the SAME engine the harness runs this package's nodes in,
 * next to this package's nodes and credentials. The benchmark compares against it; an engine
 * test checks that it can use this package's credential types as predefined credentials.
 *
 * Two copies: n8n-nodes-base lives in the n8n install folder, whose node_modules has its own
 * n8n-workflow. The engine (n8n-core) and our dist/ use this repository's CJS n8n-workflow, so
 * every `require('n8n-workflow')` made from inside the install folder is redirected to that one
 * (same version): one set of error classes, one Expression engine setting. Everything else the
 * node needs (lodash, @n8n/utils, jsdom, ...) is taken from the install folder.
 *
 * Node type name: n8n-core gives the HTTP Request node "full access" to any credential type
 * (FULL_ACCESS_NODE_TYPES has 'n8n-nodes-base.httpRequest'), which is how it reads the generic
 * httpHeaderAuth credential and any predefined one. The harness registers extra nodes under our
 * package's prefix, so the node is also registered under its real name 'n8n-nodes-base.httpRequest'.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import type { ICredentialType } from 'n8n-workflow';

import { loadPackage, type AnyNodeType, type LoadedPackage } from './package-loader';
import { REPO_ROOT } from './runtime';

export const HTTP_REQUEST_TYPE = 'n8n-nodes-base.httpRequest';

const INSTALL_SCRIPT = path.join(REPO_ROOT, 'scripts', 'install-n8n.sh');

export interface HttpRequestLoad {
	/** This package's nodes and credentials, plus the HTTP Request node and the Header Auth credential. */
	pkg: LoadedPackage;
	/** The version the editor gives a new HTTP Request node. */
	version: number;
	n8nDir: string;
	loadMs: number;
}

const hasNodesBase = (dir: string) => existsSync(path.join(dir, 'node_modules', 'n8n-nodes-base', 'dist'));

/**
 * The folder install-n8n.sh installs into, when the install is complete; undefined otherwise
 * (nothing is installed here: that takes minutes). Same rule as the script: N8N_INSTALL_DIR, or
 * the cache folder named after the version pinned in the script.
 */
export function installedN8n(): string | undefined {
	const version = /^N8N_VERSION="([^"]+)"/m.exec(readFileSync(INSTALL_SCRIPT, 'utf8'))?.[1];
	const dir = process.env.N8N_INSTALL_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-messaging', `n8n-${version}`);
	const installed = existsSync(path.join(dir, '.complete')) && hasNodesBase(dir);
	// CI sets REQUIRE_N8N=1 once it has installed n8n: a test that needs it then fails instead of skipping.
	if (!installed && process.env.REQUIRE_N8N === '1') throw new Error(`REQUIRE_N8N=1 but the pinned n8n is not installed in ${dir} (scripts/install-n8n.sh)`);
	return installed ? dir : undefined;
}

/** The n8n install folder; installs n8n first on a fresh machine (install-n8n.sh is idempotent). */
export function installN8n(): string {
	const out = execFileSync('bash', [INSTALL_SCRIPT], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
	const dir = out.trim().split('\n').at(-1)!.trim();
	if (!hasNodesBase(dir)) throw new Error(`install-n8n.sh printed ${dir}, which has no node_modules/n8n-nodes-base`);
	return dir;
}

type ResolveFilename = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;

const redirected = new Set<string>();

function redirectN8nWorkflow(n8nDir: string): void {
	if (redirected.has(n8nDir)) return;
	redirected.add(n8nDir);
	const target = createRequire(path.join(REPO_ROOT, 'package.json')).resolve('n8n-workflow');
	const M = Module as unknown as { _resolveFilename: ResolveFilename };
	const original = M._resolveFilename;
	const prefix = n8nDir + path.sep;
	M._resolveFilename = function (this: unknown, request, parent, ...rest) {
		if (request === 'n8n-workflow' && parent?.filename?.startsWith(prefix)) return target;
		return original.call(this, request, parent, ...rest);
	};
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
	const pkg = loadPackage({ nodes: [new HttpRequest()], credentials: [new HttpHeaderAuth()] });
	// Also under its real name, for n8n-core's full credential access (see above).
	const ownName = pkg.resolveNodeTypeName('httpRequest')!;
	pkg.nodeTypes[HTTP_REQUEST_TYPE] = pkg.nodeTypes[ownName];
	pkg.knownNodes[HTTP_REQUEST_TYPE] = pkg.knownNodes[ownName];
	return { pkg, version: pkg.latestVersion(HTTP_REQUEST_TYPE), n8nDir, loadMs: performance.now() - started };
}
