import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n runs a failed node's items again in two ways, with the same input: its node setting Retry
 * On Fail runs the whole node again within the execution (also when its first output item carries
 * an error), and the Retry button of a failed execution runs a new execution from the node that
 * failed. Either way, every item the failed run delivered would be sent again.
 *
 * So a node run that does not end with every item sent remembers what became of each item's
 * request, and a retry of it returns those items as they were instead of sending them again.
 * Remembered: the items delivered, and the items whose request went out and may have been
 * carried out though they failed (a 5xx, a timeout, a dropped connection): their error says they
 * were not sent again because that could duplicate them, and a retry must keep that promise.
 * Items never sent, or refused by the service, go again. An item is known by its place and its
 * input, which n8n gives again as it was (its request may differ: an expression with $now).
 *
 * Which run a retry repeats: Retry On Fail, the same execution, node and run index (a node run
 * again in a loop is another run index, not a retry). The Retry button: n8n 2.x tells the new
 * execution which one it retries (`retryOf` on its lifecycle hooks); n8n 1.x only that it is a
 * retry, and the run is then the latest failed one of this workflow's node whose inputs are all
 * the same. Kept in this process only (a queue-mode worker other than the one that ran it does
 * not know it), for a day, for the last MAX_KEPT failed node runs.
 */

/** What became of an item's request. */
export type Remembered = { ok: true; data: IDataObject[] } | { ok: false; error: Error };

interface Entry {
	/**
	 * The item's input (inputKey): a retry reuses the outcome only for the very same input. Kept as
	 * given until the run is kept (settle): a run that sends every item, the usual one, hashes none.
	 */
	input: string | { given: unknown };
	outcome: Remembered;
	/** The error's description as it was made: the router adds the run's summary to it on each try. */
	description?: unknown;
}

interface Memory {
	storedAt: number;
	workflowId: string;
	node: string;
	runIndex: string;
	items: Map<number, Entry>;
	/** Every item's inputKey, kept for n8n 1.x (no retryOf), whose retry is found by its inputs. */
	inputs?: string[];
}

/** Said of a failure a retry returns as it was: the retry did not send the item. */
const RECALLED = 'This is what became of the item in the run this one retries: it was not sent again.';

const KEEP_MS = 24 * 3_600_000;
const MAX_KEPT = 20;
/** How long a retry finds what a run sent, in a user's words (a failed run's summary says it). */
export const REMEMBERED_FOR = `the node remembers its last ${MAX_KEPT} failed runs for ${KEEP_MS / 3_600_000} hours`;
/** Failed node runs, oldest first, by `executionId \0 node \0 runIndex`. */
const kept = new Map<string, Memory>();

export interface DeliveredItems {
	/** What became of item `itemIndex` of this very input in the run this one repeats, if it is remembered. */
	recall(itemIndex: number, input: unknown): Remembered | undefined;
	/** The item was delivered, or (a failure) may have been: a retry must not send it again. */
	remember(itemIndex: number, input: unknown, outcome: Remembered): void;
	/** The run ended: kept for a retry when any item did not succeed, forgotten otherwise. */
	settle(everyItemSent: boolean): void;
}

/**
 * A short key for an item's input: a day's memory of 50,000 items holds these, not their JSON.
 * cyrb53 (a public-domain 53-bit string hash) over the JSON, with its length.
 */
function inputKey(input: unknown): string {
	let json: string;
	try {
		json = JSON.stringify(input ?? null);
	} catch {
		// Not JSON (a cycle): no later input is known to be the same.
		return `unreadable:${Math.random()}`;
	}
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < json.length; i++) {
		const code = json.charCodeAt(i);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return `${json.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/** An entry's inputKey. */
const keyOf = (entry: Entry): string => (typeof entry.input === 'string' ? entry.input : inputKey(entry.input.given));

/** Where a node run is kept: its execution, node and run index. */
const memoryKey = (executionId: string, node: string, runIndex: string) => `${executionId}\u0000${node}\u0000${runIndex}`;

/**
 * The execution this one retries, as n8n 2.x puts it on the lifecycle hooks (undefined when it is
 * no retry); `unknown` on n8n 1.x, whose hooks have no `retryOf` at all.
 */
function retryOf(context: IExecuteFunctions): string | undefined | 'unknown' {
	const hooks = (context as unknown as { additionalData?: { hooks?: { retryOf?: unknown } } }).additionalData?.hooks;
	if (!hooks || !('retryOf' in hooks)) return 'unknown';
	return typeof hooks.retryOf === 'string' ? hooks.retryOf : undefined;
}

/** Every input item's inputKey: how n8n 1.x's retry is told from another run. */
const inputsOf = (context: IExecuteFunctions) => context.getInputData().map((item) => inputKey(item.json));

/** The failed node run this one repeats, if it is kept. */
function repeated(context: IExecuteFunctions, key: string, node: string, runIndex: string): Memory | undefined {
	// Retry On Fail: the same execution.
	const same = kept.get(key);
	if (same) return same;
	if (context.getMode() !== 'retry') return undefined;
	const retried = retryOf(context);
	if (retried !== 'unknown') return retried === undefined ? undefined : kept.get(memoryKey(retried, node, runIndex));
	// n8n 1.x: the latest failed run of this node whose inputs are all the same.
	const workflowId = context.getWorkflow().id ?? '';
	const inputs = inputsOf(context);
	return [...kept.values()]
		.reverse()
		.find(
			(memory) =>
				memory.workflowId === workflowId &&
				memory.node === node &&
				memory.runIndex === runIndex &&
				memory.inputs?.length === inputs.length &&
				memory.inputs.every((input, index) => input === inputs[index]),
		);
}

/** The memory of this node run for n8n's retries. */
export function deliveredItems(context: IExecuteFunctions): DeliveredItems {
	const now = Date.now();
	for (const [key, memory] of kept) if (now - memory.storedAt > KEEP_MS) kept.delete(key);
	const node = context.getNode().name;
	// n8n keeps the run index on its context.
	const index = (context as unknown as { runIndex?: unknown }).runIndex;
	const runIndex = typeof index === 'number' ? String(index) : '';
	const key = memoryKey(context.getExecutionId(), node, runIndex);
	// What the repeated run kept goes on with this one (a retry of a retry still knows it), and what
	// this one sends is added to it: n8n still offers Retry on a failed execution whose retry failed
	// too, and a second retry of it sent again what the first had delivered (an outside review).
	const repeatedRun = repeated(context, key, node, runIndex);
	const items = repeatedRun?.items ?? new Map<number, Entry>();
	return {
		recall: (itemIndex, input) => {
			const entry = items.get(itemIndex);
			if (!entry || keyOf(entry) !== inputKey(input)) return undefined;
			if (!entry.outcome.ok) {
				const said = typeof entry.description === 'string' && entry.description !== '' ? `${entry.description} ` : '';
				(entry.outcome.error as { description?: unknown }).description = `${said}${RECALLED}`;
			}
			return entry.outcome;
		},
		remember: (itemIndex, input, outcome) => {
			const description = outcome.ok ? undefined : (outcome.error as { description?: unknown }).description;
			items.set(itemIndex, { input: { given: input }, outcome, description });
		},
		settle: (everyItemSent) => {
			// Retry On Fail repeats this very execution's memory, which is replaced here.
			const keptElsewhere = repeatedRun !== undefined && repeatedRun !== kept.get(key);
			kept.delete(key);
			const keep = !everyItemSent && items.size > 0;
			// Kept as inputKeys, not as the inputs: also in the memory of an execution this one retries.
			if (keep || keptElsewhere) for (const entry of items.values()) entry.input = keyOf(entry);
			if (!keep) return;
			const inputs = retryOf(context) === 'unknown' ? inputsOf(context) : undefined;
			kept.set(key, { storedAt: Date.now(), workflowId: context.getWorkflow().id ?? '', node, runIndex, items, inputs });
			for (const oldest of kept.keys()) {
				if (kept.size <= MAX_KEPT) break;
				kept.delete(oldest);
			}
		},
	};
}
