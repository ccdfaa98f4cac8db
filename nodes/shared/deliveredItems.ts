import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n's node setting Retry On Fail runs the whole node again when it fails (or when its first
 * output item carries an error), with the same input: every item the first try delivered would
 * be sent again. While that setting is on, a run remembers each item's input and what became of
 * its request; a retry of the same node in the same execution returns those items as they were
 * instead of sending them again. Remembered: the items delivered, and the items whose request went
 * out and may have been carried out though they failed (a 5xx, a timeout, a dropped connection):
 * their error says they were not sent again because that could duplicate them, and a retry of the
 * node must keep that promise. Items never sent, or refused by the service, go again. Only in this
 * process, and only for a few minutes (n8n retries at most five times, at most five seconds apart).
 */

/** What became of an item's request. */
export type Remembered = { ok: true; data: IDataObject[] } | { ok: false; error: Error };

interface Entry {
	/** The item's input: a retry reuses the outcome only for the very same input. */
	input: string;
	outcome: Remembered;
	/** The error's description as it was made: the router adds the run's summary to it on each try. */
	description?: unknown;
}

interface Memory {
	storedAt: number;
	items: Map<number, Entry>;
}

const KEEP_MS = 10 * 60_000;
const memories = new Map<string, Memory>();

export interface DeliveredItems {
	/** What became of item `itemIndex` of this very input the last time, if it is remembered. */
	recall(itemIndex: number, input: unknown): Remembered | undefined;
	/** The item was delivered, or (a failure) may have been: a retry must not send it again. */
	remember(itemIndex: number, input: unknown, outcome: Remembered): void;
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
		recall: (itemIndex, input) => {
			const entry = items.get(itemIndex);
			if (!entry || entry.input !== JSON.stringify(input ?? null)) return undefined;
			if (!entry.outcome.ok) (entry.outcome.error as { description?: unknown }).description = entry.description;
			return entry.outcome;
		},
		remember: (itemIndex, input, outcome) => {
			const description = outcome.ok ? undefined : (outcome.error as { description?: unknown }).description;
			items.set(itemIndex, { input: JSON.stringify(input ?? null), outcome, description });
		},
		forget: () => {
			memories.delete(key);
		},
	};
}
