import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { beginRun, readRequestPolicy } from './transport';
import { RunStoppedError } from './transport/scheduler';

/** One operation: its parameters, its entry in the Operation selector, and what it does for one item. */
export interface OperationModule {
	option: INodePropertyOptions & { action: string };
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

export type ResourceOperations = Record<string, OperationModule>;

/** The Operation selector of one resource, built from its operations (sorted, as n8n lists them). */
export function operationSelector(resource: string, operations: ResourceOperations, defaultOperation: string): INodeProperties[] {
	const modules = Object.values(operations);
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource] } },
			options: modules.map((module) => module.option).sort((a, b) => a.name.localeCompare(b.name)),
			default: defaultOperation,
		},
		...modules.flatMap((module) => module.description),
	];
}

type ItemResult = { ok: true; data: IDataObject[] } | { ok: false; error: Error };

/**
 * Runs every input item through the chosen operation and returns one output per input item,
 * in input order, each paired to its item. All items start at once; the transport's
 * scheduler decides how many requests are under way. Sends are held until every item has
 * passed its checks, so bad input stops the run before any message leaves. Without
 * "Continue On Fail", the first failure stops the run: requests not yet started are dropped,
 * those under way finish, and the lowest-numbered failing item's error is raised.
 */
export async function router(
	this: IExecuteFunctions,
	resources: Record<string, ResourceOperations>,
): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}

	const items = this.getInputData();
	const { scheduler } = beginRun(this, readRequestPolicy(this));
	const continueOnFail = this.continueOnFail();
	scheduler.stopOnFailure = !continueOnFail;
	const results = new Array<ItemResult>(items.length);

	// Phase 1: each item reads and checks its parameters; its send waits at the gate.
	scheduler.holdGate();
	let unchecked = items.length;
	let allChecked!: () => void;
	const checked = new Promise<void>((resolve) => (allChecked = resolve));
	const isChecked = new Uint8Array(items.length);
	const markChecked = (itemIndex: number) => {
		if (isChecked[itemIndex]) return;
		isChecked[itemIndex] = 1;
		if (--unchecked === 0) allChecked();
	};
	if (unchecked === 0) allChecked();
	scheduler.onGateArrival = markChecked;

	const runs = items.map(async (_, itemIndex) => {
		try {
			const data = await operation.execute.call(this, itemIndex);
			results[itemIndex] = { ok: true, data: Array.isArray(data) ? data : [data] };
		} catch (error) {
			results[itemIndex] = { ok: false, error: error as Error };
			// Bad input fails before the transport sees it; the run stops the same way.
			if (!(error instanceof RunStoppedError)) scheduler.failed(error as Error);
		} finally {
			markChecked(itemIndex);
		}
	});

	// Phase 2: release the sends (unless bad input already stopped the run).
	await checked;
	scheduler.openGate();
	await Promise.all(runs);

	if (!continueOnFail) {
		const failed = results.find((result) => !result.ok && !(result.error instanceof RunStoppedError));
		if (failed && !failed.ok) throw failed.error;
	}

	const output: INodeExecutionData[] = [];
	results.forEach((result, itemIndex) => {
		if (result.ok) {
			output.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result.data), {
					itemData: { item: itemIndex },
				}),
			);
		} else {
			output.push({ json: { error: result.error.message }, pairedItem: { item: itemIndex } });
		}
	});
	return [output];
}
