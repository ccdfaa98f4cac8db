import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput, quoted } from '../validation';
import type { RetryRules } from './retryPolicy';
import type { UserLimits } from './scheduler';

/** How the transport treats the requests of one node run (the node's "Options"). */
export interface RequestPolicy extends UserLimits, RetryRules {
	timeoutMs: number;
	shareLimitsAcrossExecutions: boolean;
}

const DEFAULT_POLICY: RequestPolicy = {
	maxConcurrent: undefined,
	maxPerSecond: 0,
	maxPerMinute: 0,
	maxRetries: 5,
	maxWaitMs: 60_000,
	timeoutMs: 30_000,
	retrySendsOnServerError: false,
	shareLimitsAcrossExecutions: true,
};

/** The template picker and the variable fields: a person is waiting, so a short timeout and one retry. */
// A rate limit is waited out for at most as long as one answer may take: 60 s (a run's Max Wait) is
// far too long for someone waiting on a dropdown, and a workflow run waits for it anyway.
export const EDITOR_POLICY: RequestPolicy = { ...DEFAULT_POLICY, maxRetries: 1, timeoutMs: 10_000, maxWaitMs: 10_000, shareLimitsAcrossExecutions: false };

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
			description:
				"Whether to add the service's full answer to each output item, under rawResponse. Read once per run, from the first item. A list's items are the service's records as it answered them, so they need none.",
		},
		{
			displayName: 'Max Concurrent Requests',
			name: 'maxConcurrent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 200 },
			default: 0,
			description:
				'How many requests may be under way at once. 0 (the default) is Auto: the node starts with one request, then a round of 32, then grows while answers come back promptly and adapts to how fast the service answers and whether it refuses, up to 200. 1 sends strictly in input order. Messages to the same recipient never overlap and keep their input order either way, and the output order always matches the input.',
		},
		{
			displayName: 'Max Requests Per Minute',
			name: 'maxPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				"Never start more requests than this in any one-minute window. 0 (the default) means no limit of your own: the node still finds your plan's limit from the service's refusals and keeps to it.",
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
				'How often a request is tried again after a connection that was never made. Reads and deletes are also retried after 5xx answers, timeouts and dropped connections. Rate refusals do not count: they are waited out within Max Wait.',
		},
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			default: 60,
			typeOptions: { minValue: 0, maxValue: MAX_WAIT_SECONDS },
			description: `Longest the node waits for the account's rate limit to reopen after the service refuses for rate (at most ${MAX_WAIT_SECONDS}). A per-minute limit needs 60; an hourly one stops the run unless this is 3600; 0 gives up at the first refusal.`,
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
				'Whether the limits set here (Max Requests Per Second/Minute, Max Concurrent Requests) hold for every execution in this n8n process that uses the same credential and API (e.g. one execution per form submission), not only for this run. The limit the node learns from the service is always the account\'s. Waiting executions go in arrival order.',
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

/** A value as an error quotes it. */
const shown = (value: unknown) => (typeof value === 'string' ? quoted(value) : typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value)));

/**
 * A number option as the run uses it: its default when not given, the number a numeric text spells
 * (an expression's "2", any value from $env, which is always text), and an error naming the option
 * for anything else (outside review: "two", -2 or "2" from an expression were ignored in silence,
 * and the run went with no limit).
 */
function numberOption(input: ItemInput, options: Record<string, unknown>, name: string, label: string, fallback: number): number {
	const value = options[name];
	if (value === undefined || value === null || value === '') return fallback;
	const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : Number.NaN;
	if (!Number.isFinite(number) || number < 0) {
		input.fail(`options.${name}`, label, `must be a number, 0 or more, not ${shown(value)}`);
	}
	return number;
}

/** A switch option: its default when not given, true or false (or their text, from an expression), else an error naming it. */
function booleanOption(input: ItemInput, options: Record<string, unknown>, name: string, label: string, fallback: boolean): boolean {
	const value = options[name];
	if (value === undefined || value === null || value === '') return fallback;
	if (typeof value === 'boolean') return value;
	const said = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (said === 'true' || said === 'false') return said === 'true';
	return input.fail(`options.${name}`, label, `must be true or false, not ${shown(value)}`);
}

/** Read once per run (from the first item): they govern the run as a whole. */
export function readRequestPolicy(context: IExecuteFunctions): RequestPolicy {
	const options = context.getNodeParameter('options', 0, {}) as Record<string, unknown>;
	const input = new ItemInput(context, 0);
	const read = (name: string, label: string, fallback: number) => numberOption(input, options, name, label, fallback);
	const maxConcurrent = Math.floor(read('maxConcurrent', 'Max Concurrent Requests', 0));
	return {
		maxConcurrent: maxConcurrent >= 1 ? maxConcurrent : undefined,
		maxPerSecond: read('maxPerSecond', 'Max Requests Per Second', DEFAULT_POLICY.maxPerSecond),
		maxPerMinute: read('maxPerMinute', 'Max Requests Per Minute', DEFAULT_POLICY.maxPerMinute),
		maxRetries: Math.floor(read('maxRetries', 'Max Retries', DEFAULT_POLICY.maxRetries)),
		maxWaitMs: Math.min(MAX_WAIT_SECONDS, read('maxWaitSeconds', 'Max Wait (Seconds)', DEFAULT_POLICY.maxWaitMs / 1000)) * 1000,
		timeoutMs: Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, read('timeoutSeconds', 'Timeout (Seconds)', DEFAULT_POLICY.timeoutMs / 1000))) * 1000,
		retrySendsOnServerError: booleanOption(input, options, 'retrySendsOnServerError', 'Retry Sends After Server Errors', DEFAULT_POLICY.retrySendsOnServerError),
		shareLimitsAcrossExecutions: booleanOption(input, options, 'shareLimitsAcrossExecutions', 'Share Limits Across Executions', DEFAULT_POLICY.shareLimitsAcrossExecutions),
	};
}
