import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Pacing } from './limiter';
import type { RetryRules } from './retryPolicy';

/** How the transport treats the requests of one node run (the node's "Options"). */
export interface RequestPolicy extends Pacing, RetryRules {
	timeoutMs: number;
	shareLimitsAcrossExecutions: boolean;
	/**
	 * Whether the user set Max Concurrent Requests. Only then is it shared across executions:
	 * executions that never asked for a concurrency limit do not queue behind each other.
	 */
	maxConcurrentSet: boolean;
}

export const DEFAULT_POLICY: RequestPolicy = {
	maxConcurrent: 1,
	maxPerSecond: 0,
	maxPerMinute: 0,
	maxRetries: 5,
	maxWaitMs: 60_000,
	timeoutMs: 30_000,
	retrySendsOnServerError: false,
	shareLimitsAcrossExecutions: true,
	maxConcurrentSet: false,
};

/** The template picker and the variable fields: a person is waiting, so a short timeout and one retry. */
export const EDITOR_POLICY: RequestPolicy = { ...DEFAULT_POLICY, maxRetries: 1, timeoutMs: 10_000, shareLimitsAcrossExecutions: false };

/** Upper bounds n8n's timers (and a person waiting for a run) can hold. */
const MAX_TIMEOUT_SECONDS = 600;
const MAX_WAIT_SECONDS = 3600;

// The defaults here repeat DEFAULT_POLICY as literals, as n8n's description format expects.
/** The options every operation of both nodes offers: how requests are sent, and the raw answer. */
export const requestOptionsDescription: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Include Raw Response',
			name: 'includeRawResponse',
			type: 'boolean',
			default: false,
			description: "Whether to add the service's full answer to each output item, under rawResponse",
		},
		{
			displayName: 'Max Concurrent Requests',
			name: 'maxConcurrent',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 64 },
			default: 1,
			description:
				'How many requests may be under way at once. 1 sends in input order; more is faster for large batches (try 8-16) but messages may arrive out of order. Output order always matches the input.',
		},
		{
			displayName: 'Max Requests Per Minute',
			name: 'maxPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				"Never start more requests than this in any one-minute window; match your plan's per-minute limit. 0 means no limit.",
		},
		{
			displayName: 'Max Requests Per Second',
			name: 'maxPerSecond',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description: 'Never start more requests than this in any one-second window. 0 means no limit.',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 5,
			description:
				'How often a request is tried again when the service cannot have acted on it (rate limited, or the connection was never made). Reads and deletes are also retried after 5xx answers and dropped connections.',
		},
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			default: 60,
			typeOptions: { minValue: 0, maxValue: MAX_WAIT_SECONDS },
			description: `Longest wait the node accepts when the service says "retry after" (at most ${MAX_WAIT_SECONDS}). A longer wait fails the item with the rate-limit reason instead.`,
		},
		{
			displayName: 'Retry Sends After Server Errors',
			name: 'retrySendsOnServerError',
			type: 'boolean',
			default: false,
			description:
				'Whether to retry a send after a 5xx answer, a timeout or a connection dropped before the answer. Off by default: the service may already have delivered the message, so a retry can send it twice.',
		},
		{
			displayName: 'Share Limits Across Executions',
			name: 'shareLimitsAcrossExecutions',
			type: 'boolean',
			default: true,
			description:
				'Whether the limits set here (Max Requests Per Second/Minute, and Max Concurrent Requests when set) hold for every execution in this n8n process that uses the same credential and API (e.g. one execution per form submission), not only for this run. Waiting executions go in arrival order.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS },
			default: 30,
			description: `How long to wait for each answer (at most ${MAX_TIMEOUT_SECONDS})`,
		},
	],
};

const positive = (value: unknown, fallback: number): number =>
	typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;

/** Read once per run (from the first item): they govern the run as a whole. */
export function readRequestPolicy(context: IExecuteFunctions): RequestPolicy {
	const options = context.getNodeParameter('options', 0, {}) as Record<string, unknown>;
	return {
		maxConcurrent: Math.max(1, Math.floor(positive(options.maxConcurrent, DEFAULT_POLICY.maxConcurrent))),
		maxPerSecond: positive(options.maxPerSecond, DEFAULT_POLICY.maxPerSecond),
		maxPerMinute: positive(options.maxPerMinute, DEFAULT_POLICY.maxPerMinute),
		maxRetries: Math.floor(positive(options.maxRetries, DEFAULT_POLICY.maxRetries)),
		maxWaitMs: Math.min(MAX_WAIT_SECONDS, positive(options.maxWaitSeconds, DEFAULT_POLICY.maxWaitMs / 1000)) * 1000,
		timeoutMs: Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, positive(options.timeoutSeconds, DEFAULT_POLICY.timeoutMs / 1000))) * 1000,
		retrySendsOnServerError: options.retrySendsOnServerError === true,
		shareLimitsAcrossExecutions: options.shareLimitsAcrossExecutions !== false,
		maxConcurrentSet: options.maxConcurrent !== undefined,
	};
}
