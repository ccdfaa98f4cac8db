import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { deliveredItems } from './deliveredItems';
import { RunStoppedError, sendAll, startRun } from './transport';
import type { Run, ServiceApi, ServiceRequest } from './transport';

/** One item, read and checked: the request to send, and how its answer becomes the item's output. */
export interface PreparedItem {
	request: ServiceRequest;
	/** Who receives it (sends only): messages to one recipient never overlap and keep their input order. */
	recipient?: string;
	output(answer: unknown): IDataObject | IDataObject[];
}

/**
 * Checking items gives the event loop a turn this often, so Stop, webhooks and the editor stay
 * served (50 ms is below what a person notices). A turn is n8n's sleep(0), a 1 ms timer: with
 * nothing else to serve it idles that long, 5% of the checking time at a turn every 20 ms.
 */
const YIELD_EVERY_MS = 50;

/** One operation: its parameters, its entry in the Operation selector, the API it calls, and how it prepares one item. */
export interface OperationModule {
	option: INodePropertyOptions & { action: string };
	description: INodeProperties[];
	/** Its API group: the credential the editor shows for it follows from this (nodeDescription.ts). */
	api: ServiceApi;
	/** Reads and checks one item's parameters; sends nothing (reads the run shares, such as the account's templates, aside). */
	prepare(this: IExecuteFunctions, itemIndex: number, run: Run): PreparedItem | Promise<PreparedItem>;
}

export type ResourceOperations = Record<string, OperationModule>;

type ItemResult = { ok: true; data: IDataObject[] } | { ok: false; error: Error };

/** The value n8n gives the Custom API Call entry it adds to Resource and Operation. */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

/**
 * Runs every input item through the chosen operation and returns one output per input item,
 * in input order, each paired to its item. First every item is read and checked, so bad input
 * stops the run before any message leaves; then all are sent, as many at once as the
 * transport's limiter lets through. Without "Continue On Fail" the first failure stops the
 * run: nothing more starts, requests under way finish, and the error says which items were sent.
 */
export async function router(this: IExecuteFunctions, resources: Record<string, ResourceOperations>): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = resource === CUSTOM_API_CALL ? CUSTOM_API_CALL : (this.getNodeParameter('operation', 0) as string);
	if (operationName === CUSTOM_API_CALL) {
		// n8n adds this choice to the selectors of every node whose credentials can sign any request.
		throw new NodeOperationError(this.getNode(), 'Custom API Call is made with n8n\'s HTTP Request node', {
			description:
				'Add an HTTP Request node, set Authentication to Predefined Credential Type and pick this credential type: n8n then adds the key to the request.',
		});
	}
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const items = this.getInputData();
	const run = startRun(this);
	const continueOnFail = this.continueOnFail();
	const includeRawResponse = this.getNodeParameter('options.includeRawResponse', 0, false) === true;
	const results = new Array<ItemResult>(items.length);

	const prepared: Array<PreparedItem | undefined> = new Array(items.length);
	let turnStarted = Date.now();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (Date.now() - turnStarted >= YIELD_EVERY_MS) {
			await sleep(0);
			if (run.signal.aborted) throw run.signal.reason;
			turnStarted = Date.now();
		}
		try {
			prepared[itemIndex] = await operation.prepare.call(this, itemIndex, run);
		} catch (error) {
			results[itemIndex] = { ok: false, error: error as Error };
			if (!continueOnFail) break;
		}
	}
	const badInput = results.find((result) => result && !result.ok);
	if (badInput && !badInput.ok && !continueOnFail) throw badInput.error;

	// Retry On Fail runs the node again: items this execution already delivered are returned, not sent again.
	const delivered = deliveredItems(this);
	if (delivered) {
		prepared.forEach((item, itemIndex) => {
			const output = item && delivered.recall(itemIndex, item.request.body ?? item.request.path);
			if (!output) return;
			results[itemIndex] = { ok: true, data: output };
			prepared[itemIndex] = undefined;
		});
	}

	await sendAll(
		run,
		prepared.map((item) => item && { request: item.request, recipient: item.recipient }),
		(itemIndex, result) => {
			if (!result.ok) {
				results[itemIndex] = result;
				return;
			}
			try {
				const output = prepared[itemIndex]!.output(result.body);
				const data = Array.isArray(output) ? output : [includeRawResponse ? { ...output, rawResponse: result.body as IDataObject } : output];
				results[itemIndex] = { ok: true, data };
				const { request } = prepared[itemIndex]!;
				delivered?.remember(itemIndex, request.body ?? request.path, data);
			} catch (error) {
				results[itemIndex] = { ok: false, error: error as Error };
			}
			prepared[itemIndex] = undefined;
		},
	);
	// Items the run never started (it stopped, or was cancelled): not sent.
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) results[itemIndex] ??= { ok: false, error: new RunStoppedError() };
	const cancelled = run.signal.reason instanceof Error && run.signal.reason.name === 'ExecutionCancelledError';
	if (cancelled) throw withRunSummary(this, run.signal.reason as Error, results);

	// Nothing failed: no retry will come for what was delivered.
	if (results.every((result) => result.ok)) delivered?.forget();

	if (!continueOnFail) {
		const failed = results.findIndex((result) => result && !result.ok && !(result.error instanceof RunStoppedError));
		if (failed >= 0) throw withRunSummary(this, (results[failed] as { error: Error }).error, results);
	}

	return [
		results.flatMap((result, itemIndex) =>
			result.ok
				? this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result.data), { itemData: { item: itemIndex } })
				: [errorItem(result.error, itemIndex)],
		),
	];
}

/**
 * A Continue On Fail item: the message, and what to do about it under `details`. n8n routes an
 * item to the error output when its json holds only `error`, `message` and `details`, and it
 * would cut the json of an item carrying the error object itself down to the message.
 */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const { description, httpCode } = error as Partial<NodeApiError>;
	const details = { ...(description ? { description } : {}), ...(httpCode ? { httpCode } : {}) };
	return {
		json: { error: error.message, ...(Object.keys(details).length > 0 ? { details } : {}) },
		pairedItem: { item: itemIndex },
	};
}

/** "0, 2-5, 9" */
function itemList(indexes: number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < indexes.length; i++) {
		let j = i;
		while (j + 1 < indexes.length && indexes[j + 1] === indexes[j] + 1) j++;
		parts.push(j > i ? `${indexes[i]}-${indexes[j]}` : `${indexes[i]}`);
		i = j;
	}
	return parts.join(', ');
}

/** The run stopped at `error`: says which items went out and which were never sent, so a re-run can skip the first. */
function withRunSummary(context: IExecuteFunctions, error: Error, results: ItemResult[]): Error {
	const sent = results.flatMap((result, index) => (result?.ok ? [index] : []));
	const notSent = results.flatMap((result, index) => (result && !result.ok && result.error instanceof RunStoppedError ? [index] : []));
	const otherFailures = results.flatMap((result, index) => (result && !result.ok && !(result.error instanceof RunStoppedError) ? [index] : []));
	if (sent.length === 0 && notSent.length === 0 && otherFailures.length <= 1) return error;
	const summary = [
		sent.length > 0 ? `Sent before the run stopped: item${sent.length > 1 ? 's' : ''} ${itemList(sent)}.` : '',
		otherFailures.length > 1 ? `Failed: items ${itemList(otherFailures)}.` : '',
		notSent.length > 0 ? `Not sent: item${notSent.length > 1 ? 's' : ''} ${itemList(notSent)}.` : '',
	]
		.filter((part) => part !== '')
		.join(' ');
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.description = [error.description, summary].filter((part) => part).join(' ');
		return error;
	}
	return new NodeOperationError(context.getNode(), error, { description: summary });
}
