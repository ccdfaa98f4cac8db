import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { deliveredItems, REMEMBERED_FOR } from './deliveredItems';
import { checkTarget, isCancellation, RunStoppedError, sendAll, startRun } from './transport';
import type { Run, ServiceApi, ServiceRequest } from './transport';

/** One item, read and checked: the request to send, and how its answer becomes the item's output. */
export interface PreparedItem {
	request: ServiceRequest;
	/** Who receives it (sends only): messages to one recipient never overlap and keep their input order. */
	recipient?: string;
	output(answer: unknown): IDataObject | IDataObject[];
}

/**
 * An item that passed every check it can make on its own, and is finished against what the run
 * reads from the service (Send Template: the account's templates, to check the item's template
 * and variables). The router calls this only once every item passed its own checks, so bad input
 * anywhere stops the run before anything is read.
 */
export interface ItemNeedingService {
	checkAgainstService(): Promise<PreparedItem>;
}

/**
 * Checking items gives the event loop a turn this often, so Stop, webhooks and the editor stay
 * served (50 ms is below what a person notices). A turn is n8n's sleep(0), a 1 ms timer: with
 * nothing else to serve it idles that long, about 2% of the checking time at a turn per 50 ms.
 * Shared by the runs checking at once in this process: their timers come due together, so one
 * turn of the event loop ran each one's 50 ms, and a Stop, which takes n8n about ten turns, took
 * 1.2-1.5 s with two runs checking and 2.1 s with three (an outside review, in a real n8n).
 */
const YIELD_EVERY_MS = 50;
/** Runs checking their items in this process now (forEachItem). */
let runsChecking = 0;

/** One operation: its parameters, its entry in the Operation selector, the API it calls, and how it prepares one item. */
export interface OperationModule {
	option: INodePropertyOptions & { action: string };
	description: INodeProperties[];
	/** Its API group: the credential the editor shows for it follows from this (shownForApisOf). */
	api: ServiceApi;
	/** Reads and checks one item's parameters; reads and sends nothing (what needs the service waits in checkAgainstService). */
	prepare(this: IExecuteFunctions, itemIndex: number, run: Run): PreparedItem | ItemNeedingService;
}

export type ResourceOperations = Record<string, OperationModule>;

/** An item's end: its output, or its error (`fateUnknown`: it may have been carried out all the same). */
type ItemResult = { ok: true; data: IDataObject[] } | { ok: false; error: Error; fateUnknown?: boolean; neverSent?: boolean };

/** The value n8n gives the Custom API Call entry it adds to Resource and Operation. */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

/**
 * Runs every input item through the chosen operation and returns one output per input item,
 * in input order, each paired to its item. First every item is read and checked on its own, then
 * the operation's credential is checked and, only then, the items are checked against what the
 * run reads from the service: bad input stops the run before any request; then all are sent, as
 * many at once as the scheduler lets through. Without "Continue On Fail" the first failure stops the
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
	const includeRawResponse = this.getNodeParameter('options.includeRawResponse', 0, false) === true;
	const results = new Array<ItemResult>(items.length);
	// n8n runs a failed node's items again (Retry On Fail; a failed execution's Retry button): what
	// the run it repeats delivered, or may have delivered, is returned as it was, not sent again.
	const delivered = deliveredItems(this);
	try {
		// A cancel while the items are checked (50,000 take a minute): nothing was sent, and it is
		// reported below as a cancel while sending is, every item "not sent", in n8n's log too.
		const prepared = await prepareItems.call(this, run, operation, results).catch((error: unknown) => {
			if (isCancellation(run.signal.reason)) return [];
			throw error;
		});

		const inputOf = (itemIndex: number) => items[itemIndex]?.json;
		prepared.forEach((item, itemIndex) => {
			const outcome = item && delivered.recall(itemIndex, inputOf(itemIndex));
			if (!outcome) return;
			results[itemIndex] = outcome;
			prepared[itemIndex] = undefined;
		});

		await sendAll(
			run,
			prepared.map((item) => item && { request: item.request, recipient: item.recipient }),
			(itemIndex, result) => {
				if (!result.ok) {
					results[itemIndex] = { ok: false, error: result.error, fateUnknown: result.fateUnknown, neverSent: result.neverSent };
					if (result.fateUnknown) delivered.remember(itemIndex, inputOf(itemIndex), results[itemIndex]);
					prepared[itemIndex] = undefined;
					return;
				}
				try {
					const output = prepared[itemIndex]!.output(result.body);
					const data = Array.isArray(output) ? output : [includeRawResponse ? { ...output, rawResponse: result.body as IDataObject } : output];
					results[itemIndex] = { ok: true, data };
					delivered.remember(itemIndex, inputOf(itemIndex), results[itemIndex]);
				} catch (error) {
					results[itemIndex] = { ok: false, error: error as Error };
				}
				prepared[itemIndex] = undefined;
			},
		);
		// Items the run never started (it stopped, or was cancelled): not sent. One error serves them
		// all, read and never changed: 50,000 of their own (each takes its stack) held a Stop for a
		// quarter of a second.
		const notStarted: ItemResult = { ok: false, error: new RunStoppedError() };
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) results[itemIndex] ??= notStarted;
		if (isCancellation(run.signal.reason)) {
			const cancelled = withRunSummary(this, run.signal.reason as Error, results);
			// A server saves a cancelled execution when the cancel comes, without waiting for this error
			// (n8n-core's setupCancellation): its log is where the list of what went reaches the user.
			const summary = (cancelled as Partial<NodeOperationError>).description;
			if (summary) this.logger.warn(`${this.getNode().name}: the execution was cancelled. ${summary}`, { executionId: this.getExecutionId() });
			throw cancelled;
		}

		if (!run.continueOnFail) {
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
	} finally {
		// Every item sent: no retry will come. Anything else (a failure, a stop, bad input) is kept for one.
		let everyItemSent = true;
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) if (results[itemIndex]?.ok !== true) everyItemSent = false;
		delivered.settle(everyItemSent);
	}
}

/**
 * Reads and checks every item: first each on its own, then (every item passed) what needs the
 * service: the operation's credential and base URL, then each item against what the run reads
 * from it. A failure is recorded in `results`; without Continue On Fail the first one is thrown
 * at the end of its phase, before any request (or, in the second phase, any send).
 */
async function prepareItems(this: IExecuteFunctions, run: Run, operation: OperationModule, results: ItemResult[]): Promise<Array<PreparedItem | undefined>> {
	const count = results.length;
	const checked: Array<PreparedItem | ItemNeedingService | undefined> = new Array(count);
	const fail = (itemIndex: number, error: unknown) => {
		results[itemIndex] = { ok: false, error: error as Error };
		return run.continueOnFail;
	};
	await forEachItem(run, count, (itemIndex) => {
		try {
			checked[itemIndex] = operation.prepare.call(this, itemIndex, run);
			return true;
		} catch (error) {
			return fail(itemIndex, error);
		}
	});
	throwFirstFailureUnlessContinuing(run, results);

	const prepared: Array<PreparedItem | undefined> = new Array(count);
	// Checked once (every item uses the same credential), with the first item still in the run;
	// after a failure (Continue On Fail) each item gets its own error, naming it.
	const first = checked.findIndex((item) => item !== undefined);
	const targetProblem = first >= 0 ? await checkTarget(run, operation.api, first).then(() => undefined, (error: unknown) => error) : undefined;
	await forEachItem(run, count, (itemIndex) => {
		const item = checked[itemIndex];
		if (!item) return true;
		checked[itemIndex] = undefined;
		const needsService = 'checkAgainstService' in item;
		if (!targetProblem && !needsService) {
			prepared[itemIndex] = item;
			return true;
		}
		return (async () => {
			try {
				if (targetProblem) await checkTarget(run, operation.api, itemIndex);
				prepared[itemIndex] = needsService ? await item.checkAgainstService() : item;
				return true;
			} catch (error) {
				return fail(itemIndex, error);
			}
		})();
	});
	throwFirstFailureUnlessContinuing(run, results);
	return prepared;
}

/** Without Continue On Fail, an item that failed its checks stops the run with its error. */
function throwFirstFailureUnlessContinuing(run: Run, results: ItemResult[]): void {
	if (run.continueOnFail) return;
	const failed = results.find((result) => result && !result.ok);
	if (failed && !failed.ok) throw failed.error;
}

/**
 * Calls `check` for each item in input order until it returns false, giving the event loop a
 * turn every YIELD_EVERY_MS, shared with the other runs checking at once (a Stop ends the loop
 * there).
 */
export async function forEachItem(run: Run, count: number, check: (itemIndex: number) => boolean | Promise<boolean>): Promise<void> {
	runsChecking++;
	try {
		let turnStarted = Date.now();
		for (let itemIndex = 0; itemIndex < count; itemIndex++) {
			if (Date.now() - turnStarted >= YIELD_EVERY_MS / runsChecking) {
				await sleep(0);
				if (run.signal.aborted) throw run.signal.reason;
				turnStarted = Date.now();
			}
			const goOn = check(itemIndex);
			// A check that needs nothing asynchronous costs no promise: 50,000 items are checked in a loop.
			if (!(typeof goOn === 'boolean' ? goOn : await goOn)) return;
		}
	} finally {
		runsChecking--;
	}
}

/**
 * A Continue On Fail item: `error`, the message, and `message`, what to do about it. n8n sends an
 * item to the error output by its json: 1.x only when that is `error` alone or with `message`
 * (2.x also takes `details`); an error object on the item would route it on both, but 2.x then
 * cuts its json down to the message.
 */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const { description } = error as Partial<NodeApiError>;
	return { json: { error: error.message, ...(description ? { message: description } : {}) }, pairedItem: { item: itemIndex } };
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

/**
 * The run stopped at `error`: says which items went out, which may have (a send whose answer
 * never came, or was no answer: not to be sent again blindly), which failed, and which were never
 * sent, so a re-run can skip the first and check the second.
 */
function withRunSummary(context: IExecuteFunctions, error: Error, results: ItemResult[]): Error {
	// Never sent: not started when the run stopped, waiting for their turn when it was cancelled, or
	// their wait ended (a limit that did not reopen, a halt) with nothing of them at the service.
	const neverSent = (result: ItemResult) => !result.ok && (result.neverSent === true || result.error instanceof RunStoppedError || isCancellation(result.error));
	// The item whose error this is says what became of it in its own message (a cancel is no item's),
	// unless nothing of it was sent: "did not reopen within Max Wait" does not say so, and a re-run
	// of the items listed as not sent left it out.
	const ownIndex = isCancellation(error) ? -1 : results.findIndex((result) => result && !result.ok && result.error === error);
	// It names its item, as an input's error does: the run stopped at it, and a service's words ("Invalid phone number") do not say which.
	if (ownIndex >= 0 && !/\[item \d+\]/.test(error.message)) error.message = `${error.message} [item ${ownIndex}]`;
	const own = ownIndex < 0 || neverSent(results[ownIndex]) ? -1 : ownIndex;
	const where = (test: (result: ItemResult) => boolean) => results.flatMap((result, index) => (result && index !== own && test(result) ? [index] : []));
	const sent = where((result) => result.ok);
	const notSent = where((result) => neverSent(result));
	const mayHaveGone = where((result) => !result.ok && !neverSent(result) && result.fateUnknown === true);
	const failed = where((result) => !result.ok && !neverSent(result) && result.fateUnknown !== true);
	if (sent.length === 0 && notSent.length === 0 && mayHaveGone.length === 0 && failed.length === 0) return error;
	const items = (indexes: number[]) => `item${indexes.length > 1 ? 's' : ''} ${itemList(indexes)}`;
	const summary = [
		sent.length > 0 ? `Sent before the run stopped: ${items(sent)}.` : '',
		mayHaveGone.length > 0 ? `May have been delivered (not sent again; check before resending): ${items(mayHaveGone)}.` : '',
		failed.length > 0 ? `Failed: ${items(failed)}.` : '',
		notSent.length > 0 ? `Not sent: ${items(notSent)}.` : '',
		// Said beside n8n's Retry button: the memory that keeps a retry from sending them again is
		// this process's (an outside review's retry went to the other queue-mode worker: 8 sent twice).
		sent.length + mayHaveGone.length > 0 ? `A Retry in this n8n process does not send those again (${REMEMBERED_FOR}); on another queue-mode worker, or after a restart, it does.` : '',
	]
		.filter((part) => part !== '')
		.join(' ');
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.description = [error.description, summary].filter((part) => part).join(' ');
		return error;
	}
	return new NodeOperationError(context.getNode(), error, { description: summary });
}
