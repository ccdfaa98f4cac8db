/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * One place that loads n8n's runtime (n8n-core, n8n-workflow, @n8n/di) and prepares the process
 * the way an n8n server process is prepared before it executes anything.
 *
 * Why `createRequire` instead of `import`: n8n-workflow ships both an ESM and a CJS build. n8n-core
 * is CJS and `require`s the CJS build; so do the package's compiled nodes in dist/. Under vitest an
 * `import { NodeApiError } from 'n8n-workflow'` resolves to the ESM build, which is a *second copy*
 * of every class (`instanceof` fails across the copies, `Expression` engine settings are not shared).
 * Every runtime value the harness (and its fixtures) use therefore comes from the CJS copy below;
 * `import type` from 'n8n-workflow' / 'n8n-core' is fine (types are erased).
 *
 * Likewise @n8n/di is resolved from n8n-core's own directory: n8n-core has a nested copy
 * (node_modules/n8n-core/node_modules/@n8n/di) and only that copy's `Container` is the one n8n-core uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type * as N8nCore from 'n8n-core';
import type * as N8nWorkflow from 'n8n-workflow';

const thisFile = typeof __filename !== 'undefined' ? __filename : fileURLToPath(import.meta.url);

/** test/harness → repository root. */
export const REPO_ROOT = path.resolve(path.dirname(thisFile), '..', '..');

// ---------------------------------------------------------------------------------------------
// Process environment: must be in place before the first Container.get() (the @n8n/config
// classes read process.env when they are constructed). Existing values are respected.
// ---------------------------------------------------------------------------------------------
if (!process.env.N8N_USER_FOLDER) {
	const userFolder = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
	process.env.N8N_USER_FOLDER = userFolder;
	process.once('exit', () => {
		try {
			rmSync(userFolder, { recursive: true, force: true });
		} catch {
			// best effort
		}
	});
}
// A fixed key keeps InstanceSettings from generating one (and logging that it did).
process.env.N8N_ENCRYPTION_KEY ??= 'n8n-harness-encryption-key';
// Node errors are reported through ErrorReporter → Logger.error with full stacks, exactly as on a
// server. Tests provoke errors on purpose, so the harness is quiet unless asked otherwise.
process.env.N8N_LOG_LEVEL ??= 'silent';
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';

const requireHere = createRequire(thisFile);

/** n8n-workflow, CJS build: the same module instance n8n-core and the package's dist/ nodes use. */
export const n8nWorkflow = requireHere('n8n-workflow') as typeof N8nWorkflow;
/** n8n-core (CJS). */
export const n8nCore = requireHere('n8n-core') as typeof N8nCore;

const requireFromCore = createRequire(requireHere.resolve('n8n-core'));

type Constructor<T> = abstract new (...args: never[]) => T;
interface DiContainer {
	get<T>(type: Constructor<T>): T;
	set<T>(type: Constructor<T>, instance: T): void;
	has<T>(type: Constructor<T>): boolean;
}
/** The @n8n/di Container n8n-core uses (its nested copy). */
export const Container = (requireFromCore('@n8n/di') as { Container: DiContainer }).Container;

// ---------------------------------------------------------------------------------------------
// Expression engine
// ---------------------------------------------------------------------------------------------

export type ExpressionEngine = 'vm' | 'legacy';

/**
 * n8n 2.x servers evaluate expressions in an isolated-vm isolate by default
 * (@n8n/config ExpressionEngineConfig: N8N_EXPRESSION_ENGINE=vm, pool size 1, 5 s timeout,
 * 128 MB). The harness does the same unless N8N_EXPRESSION_ENGINE says otherwise.
 */
function engineFromEnv(): ExpressionEngine {
	const fromEnv = process.env.N8N_EXPRESSION_ENGINE;
	if (fromEnv === 'legacy' || fromEnv === 'vm') return fromEnv;
	if (fromEnv) throw new Error(`N8N_EXPRESSION_ENGINE=${fromEnv} is not supported by the harness (use vm or legacy)`);
	return 'vm';
}

let requestedEngine: ExpressionEngine = engineFromEnv();
let runtimeReady: Promise<void> | undefined;

async function initRuntime(): Promise<void> {
	const { Expression } = n8nWorkflow;
	// Initialise the VM evaluator even when 'legacy' is requested, so configureHarness() can
	// switch engines later without a restart (the engine choice itself is a static field).
	await Expression.initExpressionEngine({
		engine: 'vm',
		poolSize: Number(process.env.N8N_EXPRESSION_ENGINE_POOL_SIZE ?? 2),
		maxCodeCacheSize: 1024,
		bridgeTimeout: 5000,
		bridgeMemoryLimit: 128,
		// A run scope gets its isolate on the first expression it evaluates, not up front:
		// runs that evaluate nothing (or use the legacy engine) do not use up pooled isolates.
		lazyAcquire: true,
	});
	Expression.setExpressionEngine(requestedEngine);
	// Constructing these eagerly surfaces environment problems once, with a clear stack.
	Container.get(n8nCore.InstanceSettings);
	silenceLogger();
}

/**
 * n8n's Logger makes the levels above its own no-ops, but winston has no 'silent' level, so at
 * N8N_LOG_LEVEL=silent every debug call still looks up its caller's stack and goes through
 * winston: the isolated-vm bridge logs one per expression, ~0.1 ms each, which a server at its
 * default level ('info') never pays. The harness's silent means every level is a no-op.
 */
function silenceLogger(): void {
	const logger = n8nLogger();
	if (logger.level !== 'silent') return;
	for (const level of n8nWorkflow.LOG_LEVELS) if (level !== 'silent') Object.defineProperty(logger, level, { value: () => {}, writable: true, configurable: true });
}

/** n8n's Logger, the one a node's `this.logger` is. */
function n8nLogger(): { level: string; warn: (message: string, meta?: object) => void } {
	const { Logger } = requireFromCore('@n8n/backend-common') as { Logger: Constructor<{ level: string; warn: (message: string, meta?: object) => void }> };
	return Container.get(Logger);
}

/** Records every warning nodes give n8n's log (what a server's log would show) until `stop()`. */
export async function recordWarnings(): Promise<{ lines: string[]; stop(): void }> {
	await ensureRuntime();
	const logger = n8nLogger();
	const original = logger.warn;
	const lines: string[] = [];
	logger.warn = (message: string) => void lines.push(message);
	return { lines, stop: () => void (logger.warn = original) };
}

/** Idempotent: prepares expression engine and DI singletons. Every harness entry point awaits it. */
export async function ensureRuntime(): Promise<void> {
	runtimeReady ??= initRuntime().catch((error: unknown) => {
		runtimeReady = undefined;
		throw error;
	});
	await runtimeReady;
}

export interface HarnessConfig {
	/**
	 * 'vm' (default, what an n8n 2.x server uses): expressions run in an isolated-vm isolate,
	 * ~0.3 ms per evaluation. 'legacy': in-process @n8n/tournament evaluation, ~10x faster.
	 * Global for the process (n8n's Expression engine is a static setting); switch only between runs.
	 */
	expressionEngine?: ExpressionEngine;
}

export async function configureHarness(config: HarnessConfig): Promise<void> {
	if (config.expressionEngine) {
		requestedEngine = config.expressionEngine;
		await ensureRuntime();
		if (inFlight === 0) n8nWorkflow.Expression.setExpressionEngine(requestedEngine);
	}
}

let inFlight = 0;
let inFlightEngine: ExpressionEngine | undefined;

/**
 * Runs `fn` with the given expression engine (default: the configured one) and restores the
 * configured engine afterwards. The engine is process-global in n8n, so overlapping calls must
 * agree on it; a conflicting overlap is refused rather than silently mixing engines.
 */
export async function withExpressionEngine<T>(
	engine: ExpressionEngine | undefined,
	fn: () => Promise<T>,
): Promise<T> {
	await ensureRuntime();
	const wanted = engine ?? requestedEngine;
	if (inFlight > 0 && inFlightEngine !== wanted) {
		throw new Error(
			`Expression engine "${wanted}" requested while a run using "${inFlightEngine}" is in progress; ` +
				'runs with different engines must not overlap',
		);
	}
	inFlight += 1;
	inFlightEngine = wanted;
	n8nWorkflow.Expression.setExpressionEngine(wanted);
	try {
		return await fn();
	} finally {
		inFlight -= 1;
		if (inFlight === 0) {
			inFlightEngine = undefined;
			n8nWorkflow.Expression.setExpressionEngine(requestedEngine);
		}
	}
}

/** Which engine evaluates expressions right now ('vm' | 'legacy'). */
export function activeExpressionEngine(): string {
	return n8nWorkflow.Expression.getActiveImplementation();
}
