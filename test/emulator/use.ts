import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { afterAll, beforeAll, beforeEach } from 'vitest';

import type { ExpressionEngine } from '../harness';
import { startEmulator } from './index';
import type { Emulator, StartOptions } from './types';

/**
 * The one emulator fixture: an emulator for the test file, started before its tests, reset
 * before each one (unless `resetEachTest: false`), closed after them. What it returns stands for
 * the running emulator: read it inside tests and hooks.
 */
export function useEmulator(options: StartOptions & { resetEachTest?: boolean } = {}): Emulator {
	const { resetEachTest = true, ...startOptions } = options;
	let running: Emulator | undefined;
	beforeAll(async () => {
		running = await startEmulator(startOptions);
	});
	if (resetEachTest) beforeEach(() => running?.reset());
	afterAll(async () => {
		await running?.close();
	});
	return new Proxy({} as Emulator, {
		get(_, key) {
			if (!running) throw new Error('The emulator starts before the tests: read it inside a test or a hook');
			const value: unknown = Reflect.get(running, key, running);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(running) : value;
		},
	});
}

/** The credential type each Messaging operation uses (the node contract); Sandbox Plants uses the Bearer one. */
export const CREDENTIAL_OF_OPERATION: Record<string, CredentialType> = {
	send: 'messagingBearerApi',
	sendTemplate: 'messagingBearerApi',
	getAll: 'messagingBearerApi',
	sendDashboard: 'messagingAuthorizationKeyApi',
	sendAlternative: 'messagingXApiKeyApi',
};

type CredentialType = 'messagingBearerApi' | 'messagingAuthorizationKeyApi' | 'messagingXApiKeyApi';

export interface RunSpec {
	/** Default 'messaging'. */
	type?: 'messaging' | 'sandboxPlants';
	parameters: IDataObject;
	/** Default one empty item. */
	items?: IDataObject[];
	/** Default: the operation's (CREDENTIAL_OF_OPERATION). */
	credentialType?: CredentialType;
	/** Replaces the data of the node's credential (a wrong token, a missing URL). */
	credentialData?: IDataObject;
	/** Replaces all credential data (a server other than the emulator). */
	credentials?: Record<string, IDataObject>;
	continueOnFail?: boolean;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** Runs with the same id share the account's limits (see RunNodeSpec.credentialId). */
	credentialId?: string;
	expressionEngine?: ExpressionEngine;
	signal?: AbortSignal;
	/** The workflow's Timeout Workflow setting, in ms. */
	timeoutMs?: number;
}

/**
 * The one way tests run a node of this package: one node over `items` in n8n-core's engine,
 * with the credential its operation needs, against `service` (the emulator, or anything that
 * carries credential data for another server). Adds how long the run took.
 */
export async function runOn(service: { credentials: Record<string, IDataObject> }, spec: RunSpec) {
	const type = spec.type ?? 'messaging';
	const credentialType =
		spec.credentialType ?? (type === 'messaging' ? CREDENTIAL_OF_OPERATION[String(spec.parameters.operation)] : undefined) ?? 'messagingBearerApi';
	const credentials = { ...(spec.credentials ?? service.credentials) };
	if (spec.credentialData) credentials[credentialType] = spec.credentialData;
	// Loaded on first use: the emulator's own tests never start n8n's engine.
	const { runNode } = await import('../harness');
	const started = performance.now();
	const result = await runNode({
		node: {
			type,
			parameters: spec.parameters,
			credentials: [credentialType],
			continueOnFail: spec.continueOnFail,
			onError: spec.onError,
			credentialId: spec.credentialId,
		},
		items: spec.items ?? [{}],
		credentials: credentials as Record<string, ICredentialDataDecryptedObject>,
		expressionEngine: spec.expressionEngine,
		signal: spec.signal,
		timeoutMs: spec.timeoutMs,
	});
	return { ...result, elapsedMs: performance.now() - started };
}
