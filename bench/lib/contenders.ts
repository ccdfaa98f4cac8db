/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
/**
 * The three ways the benchmark sends the same N direct sends (POST {sendBaseUrl}/send,
 * JSON {phone, text}, Authorization: Bearer):
 *  - ours: the Messaging node (dist/) through n8n-core's WorkflowExecute (test/harness);
 *  - raw: axios with no engine, a fixed number of requests in flight (the physical limit);
 *  - httpRequest: n8n's HTTP Request node (latest version) in the same engine, as a user sets it up.
 */
import http from 'node:http';

import axios from 'axios';

import { HTTP_REQUEST_TYPE, runNode, type ExpressionEngine, type LoadedPackage } from '../../test/harness';
import type { BearerCredential } from './emulator-process';

export interface BenchItem {
	phone: string;
	text: string;
	[key: string]: string;
}

/** Distinct recipient and text per item, so any duplicate delivery is visible to the emulator. */
export function makeItems(n: number, tag: string): BenchItem[] {
	return Array.from({ length: n }, (_, i) => ({
		phone: `+4915${String(100_000_000 + i).padStart(9, '0')}`,
		text: `Benchmark ${tag} message ${i}`,
	}));
}

export interface RunOutcome {
	/** Output items the node (or client) produced that report success. */
	succeeded: number;
	error?: string;
	/** The node's own run, from its start to its end (n8n's executionTime), without the workflow around it. */
	nodeMs?: number;
}

export interface OurNodeOptions {
	/** Unset: Auto, the node's default. */
	maxConcurrent?: number;
	maxPerSecond?: number;
	maxPerMinute?: number;
	maxRetries?: number;
	maxWaitSeconds?: number;
	shareLimitsAcrossExecutions?: boolean;
}

export async function runOurNode(
	bearer: BearerCredential,
	items: BenchItem[],
	options: OurNodeOptions,
	expressionEngine: ExpressionEngine,
	pkg?: LoadedPackage,
	/** The same id for several runs makes them one account (shared limits); default: one of its own per run. */
	credentialId?: string,
): Promise<RunOutcome> {
	const result = await runNode({
		node: {
			type: 'messaging',
			parameters: {
				resource: 'message',
				operation: 'send',
				phone: '={{ $json.phone }}',
				text: '={{ $json.text }}',
				options,
			},
			credentialId,
		},
		items,
		credentials: { messagingBearerApi: bearer },
		expressionEngine,
		package: pkg,
	});
	const succeeded = result.items.filter((item) => item.json.success === true).length;
	return { succeeded, error: result.error?.message, nodeMs: result.runs.at(-1)?.executionTime };
}

export async function runRawAxios(
	bearer: BearerCredential,
	items: BenchItem[],
	concurrency: number,
	keepAlive: boolean,
): Promise<RunOutcome> {
	// keepAlive false = n8n's connection behaviour: a new TCP connection for every request
	// (n8n builds a fresh http.Agent per request, see @n8n/backend-network node-agents.js).
	const agent = new http.Agent(keepAlive ? { keepAlive: true, maxSockets: concurrency } : { keepAlive: false });
	const client = axios.create({ httpAgent: agent, timeout: 30_000, validateStatus: () => true });
	const url = `${bearer.sendBaseUrl}/send`;
	const headers = { Authorization: `Bearer ${bearer.accessToken}`, Accept: 'application/json' };
	let next = 0;
	let succeeded = 0;
	let firstError: string | undefined;
	const worker = async () => {
		while (next < items.length) {
			const item = items[next++];
			const response = await client.post(url, { phone: item.phone, text: item.text }, { headers });
			if (response.status === 200) succeeded++;
			else firstError ??= `HTTP ${response.status}: ${JSON.stringify(response.data)}`;
		}
	};
	try {
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	} finally {
		agent.destroy();
	}
	return { succeeded, error: firstError };
}

export interface HttpRequestSetup {
	pkg: LoadedPackage;
	version: number;
}

/**
 * HTTP Request node as a user sets it up for the same sends: POST, URL typed in, Generic
 * Credential Type → Header Auth (Authorization: Bearer ...), Send Body → JSON → Using Fields
 * Below (phone, text from expressions), Options → Batching with the given items per batch and
 * interval 0. Response format left on autodetect.
 */
export async function runHttpRequestNode(
	setup: HttpRequestSetup,
	bearer: BearerCredential,
	items: BenchItem[],
	/** Items per batch (interval 0), `{size, intervalMs}`, or undefined: the node's defaults (no batching, every item at once). */
	batching: number | { size: number; intervalMs: number } | undefined,
	expressionEngine: ExpressionEngine,
): Promise<RunOutcome> {
	const batch = typeof batching === 'number' ? { batchSize: batching, batchInterval: 0 } : batching && { batchSize: batching.size, batchInterval: batching.intervalMs };
	const result = await runNode({
		node: {
			type: HTTP_REQUEST_TYPE,
			typeVersion: setup.version,
			name: 'HTTP Request',
			credentials: ['httpHeaderAuth'],
			parameters: {
				method: 'POST',
				url: `${bearer.sendBaseUrl}/send`,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpHeaderAuth',
				sendBody: true,
				contentType: 'json',
				specifyBody: 'keypair',
				bodyParameters: {
					parameters: [
						{ name: 'phone', value: '={{ $json.phone }}' },
						{ name: 'text', value: '={{ $json.text }}' },
					],
				},
				options: batch ? { batching: { batch } } : {},
			},
		},
		items,
		credentials: { httpHeaderAuth: { name: 'Authorization', value: `Bearer ${bearer.accessToken}` } },
		package: setup.pkg,
		expressionEngine,
	});
	const succeeded = result.items.filter((item) => item.json.message === 'Message sent successfully').length;
	return { succeeded, error: result.error?.message, nodeMs: result.runs.at(-1)?.executionTime };
}
