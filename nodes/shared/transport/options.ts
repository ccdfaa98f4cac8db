import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Pacing } from './scheduler';

/** How the transport treats the requests of one node run (the node's "Options"). */
export interface RequestPolicy extends Pacing {
	maxRetries: number;
	maxWaitMs: number;
	timeoutMs: number;
	retrySendsOnServerError: boolean;
}

export const DEFAULT_POLICY: RequestPolicy = {
	maxConcurrent: 1,
	maxPerSecond: 0,
	maxPerMinute: 0,
	maxRetries: 5,
	maxWaitMs: 60_000,
	timeoutMs: 30_000,
	retrySendsOnServerError: false,
};

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
				'How often a request is tried again when the service could not have acted on it (rate limited, connection refused or dropped before an answer)',
		},
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description:
				'Longest wait the node accepts when the service says "retry after". A longer wait fails the item with the rate-limit reason instead.',
		},
		{
			displayName: 'Retry Sends After Server Errors',
			name: 'retrySendsOnServerError',
			type: 'boolean',
			default: false,
			description:
				'Whether to retry a send after a 5xx answer or a timeout. Off by default: the service may already have delivered the message, so a retry can send it twice.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30,
			description: 'How long to wait for each answer',
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
		maxWaitMs: positive(options.maxWaitSeconds, DEFAULT_POLICY.maxWaitMs / 1000) * 1000,
		timeoutMs: Math.max(1, positive(options.timeoutSeconds, DEFAULT_POLICY.timeoutMs / 1000)) * 1000,
		retrySendsOnServerError: options.retrySendsOnServerError === true,
	};
}
