/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n; reads the scheduler state of dist/ (README: Lint) */
/**
 * Shared helpers of the bulk-send safety tests: how a run of the Messaging node is set up
 * against the emulator, and how the emulator's observations are read back per item.
 *
 * Every item of a bulk run gets its own recipient and text, so each request, delivery and
 * output item can be traced back to exactly one input item.
 */
import { createRequire } from 'node:module';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Emulator, RequestRecord } from '../emulator';
import { configureHarness } from '../harness';

export { runOn } from '../emulator/use';

/**
 * The state of the account a test credential's direct sends took, in the package the engine runs
 * (dist/, loaded by Node's require); throws when no run took one, so that an assertion on it
 * cannot pass on an account nobody used.
 */
export function sendAccountState(credentialId: string) {
	const transport = createRequire(import.meta.url)('../../dist/nodes/shared/transport/index.js') as typeof import('../../nodes/shared/transport');
	const account = transport.existingAccountOf(`messagingBearerApi-${credentialId}`, 'send');
	if (!account) throw new Error(`no account was taken for ${credentialId}`);
	return account.state;
}

// Bulk runs evaluate thousands of expressions: in-process (n8n's legacy engine, the same
// expression language) rather than in isolated-vm, several times faster.
configureHarness({ expressionEngine: 'legacy' });

/** A distinct, valid E.164 number per item: +1415 then 7 digits. */
export const phoneOf = (index: number): string => `+1415${String(5_000_000 + index).padStart(7, '0')}`;
/** A distinct text per item (also carries a non-ASCII character, which must arrive unchanged). */
export const textOf = (index: number): string => `bulk message #${index} ✓`;

export const bulkItems = (count: number): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({ phone: phoneOf(index), text: textOf(index), index }));

export type SendOptions = Partial<{
	maxConcurrent: number;
	maxPerSecond: number;
	maxPerMinute: number;
	maxRetries: number;
	maxWaitSeconds: number;
	timeoutSeconds: number;
	retrySendsOnServerError: boolean;
}>;

export const directSendParameters = (options: SendOptions = {}) => ({
	resource: 'message',
	operation: 'send',
	phone: '={{ $json.phone }}',
	text: '={{ $json.text }}',
	options,
});

/** Requests to an API, grouped by recipient, each group in arrival order. */
export function requestsByRecipient(requests: readonly RequestRecord[], api = 'send', field = 'phone') {
	const groups = new Map<string, RequestRecord[]>();
	for (const request of requests) {
		if (request.api !== api) continue;
		const recipient = (request.body as IDataObject | undefined)?.[field];
		if (typeof recipient !== 'string') throw new Error(`request #${request.seq} has no ${field}: ${JSON.stringify(request.body)}`);
		const group = groups.get(recipient) ?? [];
		group.push(request);
		groups.set(recipient, group);
	}
	return groups;
}

/** Key of emulator.deliveryCounts() for a direct send without attachment. */
export const deliveryKey = (index: number) => `send|${phoneOf(index)}|${textOf(index)}`;

/**
 * Asserts the shape every run must have, whatever happened: exactly one output item per
 * input item, in input order, each paired to its own input item. Returns a readable list
 * of problems (empty when fine) so a failing run shows all of them at once.
 */
export function pairingProblems(items: INodeExecutionData[], count: number): string[] {
	const problems: string[] = [];
	if (items.length !== count) problems.push(`expected ${count} output items, got ${items.length}`);
	items.forEach((item, position) => {
		const paired = item.pairedItem;
		const pairedIndex = typeof paired === 'object' && paired !== null && !Array.isArray(paired) ? paired.item : undefined;
		if (pairedIndex !== position) problems.push(`output ${position} is paired to ${JSON.stringify(paired)}`);
	});
	return problems.slice(0, 20);
}

export const errorText = (item: INodeExecutionData | undefined): string | undefined =>
	typeof item?.json.error === 'string' ? item.json.error : undefined;

export const MAY_HAVE_BEEN_DELIVERED = /may have been delivered/i;

/** The direct-send requests the emulator received, in arrival order (`at`: epoch ms, sub-ms). */
export const sendRequests = (emulator: Emulator) => emulator.requests.filter((request) => request.api === 'send');
