import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n's node setting Retry On Fail runs the whole node again when it fails (or when its first
 * output item carries an error), with the same input: every item the first try delivered would
 * be sent again. While that setting is on, a run remembers what each item's request was and what
 * it answered; a retry of the same node in the same execution returns those items as they were
 * instead of sending them again. Only in this process, and only for a few minutes (n8n retries
 * at most five times, at most five seconds apart).
 */

interface Delivered {
	/** The request that was sent: a retry reuses the answer only for the very same request. */
	request: string;
	output: IDataObject[];
}

interface Memory {
	storedAt: number;
	items: Map<number, Delivered>;
}

const KEEP_MS = 10 * 60_000;
const memories = new Map<string, Memory>();

export interface DeliveredItems {
	/** What item `itemIndex` got the last time this very request was sent, if it was delivered. */
	recall(itemIndex: number, request: unknown): IDataObject[] | undefined;
	remember(itemIndex: number, request: unknown, output: IDataObject[]): void;
	/** The node's run ended without a failure: no retry will come. */
	forget(): void;
}

/** The memory of this node run for Retry On Fail, or undefined when the setting is off. */
export function deliveredItems(context: IExecuteFunctions): DeliveredItems | undefined {
	const node = context.getNode();
	if (node.retryOnFail !== true) return undefined;
	const now = Date.now();
	for (const [key, memory] of memories) if (now - memory.storedAt > KEEP_MS) memories.delete(key);
	// n8n keeps the run index on its context; a node run again in a loop is another run, not a retry.
	const runIndex = (context as unknown as { runIndex?: unknown }).runIndex;
	const key = `${context.getExecutionId()}\u0000${node.name}\u0000${typeof runIndex === 'number' ? runIndex : ''}`;
	let memory = memories.get(key);
	if (!memory) {
		memory = { storedAt: now, items: new Map() };
		memories.set(key, memory);
	}
	const items = memory.items;
	return {
		recall: (itemIndex, request) => {
			const delivered = items.get(itemIndex);
			return delivered && delivered.request === JSON.stringify(request) ? delivered.output : undefined;
		},
		remember: (itemIndex, request, output) => {
			items.set(itemIndex, { request: JSON.stringify(request), output });
		},
		forget: () => {
			memories.delete(key);
		},
	};
}
