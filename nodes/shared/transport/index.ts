import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import { classifyFailure, FAILURE_KINDS, readFailure, serviceError } from '../errors';
import { normalizeBaseUrl } from './baseUrl';
import type { BaseUrlPolicy } from './baseUrl';
import { DEFAULT_POLICY } from './options';
import type { RequestPolicy } from './options';
import { backoffMs, CONNECTION_FAILURES, isRetryable, outcomeOfThrown, parseRetryAfter } from './retryPolicy';
import type { AttemptOutcome } from './retryPolicy';
import { RequestScheduler } from './scheduler';

export { requestOptionsDescription, readRequestPolicy } from './options';
export type { RequestPolicy } from './options';

/** The service's API groups: which credential signs them and which credential field holds their base URL. */
export const SERVICE_APIS = {
	send: { credentialType: 'messagingBearerApi', baseUrlField: 'sendBaseUrl', baseUrlLabel: 'Send Base URL', urlPolicy: 'httpsOrLoopback' },
	templateSend: { credentialType: 'messagingBearerApi', baseUrlField: 'templateSendBaseUrl', baseUrlLabel: 'Template Send Base URL', urlPolicy: 'httpsOrLoopback' },
	templates: { credentialType: 'messagingBearerApi', baseUrlField: 'templatesBaseUrl', baseUrlLabel: 'Templates Base URL', urlPolicy: 'httpsOrLoopback' },
	dashboard: { credentialType: 'messagingAuthorizationKeyApi', baseUrlField: 'dashboardUrl', baseUrlLabel: 'Dashboard URL', urlPolicy: 'httpsOrLoopback' },
	alternative: { credentialType: 'messagingXApiKeyApi', baseUrlField: 'apiUrl', baseUrlLabel: 'API URL', urlPolicy: 'httpsOrLoopback' },
	// The sandbox is plain http by design.
	sandbox: { credentialType: 'messagingBearerApi', baseUrlField: 'sandboxBaseUrl', baseUrlLabel: 'Sandbox Base URL', urlPolicy: 'any' },
} as const satisfies Record<string, { credentialType: string; baseUrlField: string; baseUrlLabel: string; urlPolicy: BaseUrlPolicy }>;

export type ServiceApi = keyof typeof SERVICE_APIS;

export interface ServiceRequest {
	api: ServiceApi;
	method: IHttpRequestMethods;
	/** Appended to the API's base URL, e.g. `/send`. */
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
}

type RequestContext = IExecuteFunctions | ILoadOptionsFunctions;

/** What the transport keeps for one node run: its scheduler, policy and the credentials it read. */
export interface RunState {
	scheduler: RequestScheduler;
	policy: RequestPolicy;
	credentials: Map<string, Promise<ICredentialDataDecryptedObject>>;
	/** The first error that makes every later request of this run pointless (credits, auth, ...). */
	haltedBy?: NodeApiError;
}

const runs = new WeakMap<object, RunState>();

/** Starts a node run's transport state; the router calls this once per execution. */
export function beginRun(context: IExecuteFunctions, policy: RequestPolicy): RunState {
	const state: RunState = { scheduler: new RequestScheduler(policy), policy, credentials: new Map() };
	runs.set(context, state);
	return state;
}

function runStateOf(context: RequestContext): RunState {
	let state = runs.get(context);
	if (!state) {
		// Editor calls (list search, resource mapping) have no run of their own.
		state = { scheduler: new RequestScheduler(DEFAULT_POLICY), policy: DEFAULT_POLICY, credentials: new Map() };
		runs.set(context, state);
	}
	return state;
}

async function credentialsFor(context: RequestContext, state: RunState, type: string, itemIndex: number) {
	let credentials = state.credentials.get(type);
	if (!credentials) {
		credentials = (context as IExecuteFunctions).getCredentials(type, itemIndex);
		state.credentials.set(type, credentials);
		credentials.catch(() => state.credentials.delete(type));
	}
	return await credentials;
}

/** The base URL a request needs, or a clear error naming the credential field. */
export async function baseUrlOf(context: RequestContext, api: ServiceApi, itemIndex = 0): Promise<string> {
	const { credentialType, baseUrlField, baseUrlLabel, urlPolicy } = SERVICE_APIS[api];
	const credentials = await credentialsFor(context, runStateOf(context), credentialType, itemIndex);
	const check = normalizeBaseUrl(credentials[baseUrlField], urlPolicy);
	if (!check.ok) {
		throw new NodeOperationError(
			context.getNode(),
			`The credential's ${baseUrlLabel} (${baseUrlField}) ${check.problem} [item ${itemIndex}]`,
			{
				itemIndex,
				description: `Open the credential and set ${baseUrlLabel} to the base URL shown in the API section of your account dashboard.`,
			},
		);
	}
	return check.baseUrl;
}

const isIdempotent = (method: IHttpRequestMethods) => method === 'GET' || method === 'HEAD' || method === 'DELETE';

/**
 * Sends one request of one item to the service and returns the body of a successful answer.
 * It is the only place that talks HTTP: base URL and auth from the credential (through
 * n8n's httpRequestWithAuthentication), pacing and concurrency from the run's scheduler, and
 * the retry rule of retryPolicy.ts. Any failure becomes a NodeApiError carrying the service's
 * reason; no token or key is ever copied into it.
 */
export async function serviceRequest<T = unknown>(
	this: RequestContext,
	itemIndex: number,
	request: ServiceRequest,
): Promise<T> {
	const state = runStateOf(this);
	const { policy, scheduler } = state;
	const api = SERVICE_APIS[request.api];
	const baseUrl = await baseUrlOf(this, request.api, itemIndex);
	const credentials = await credentialsFor(this, state, api.credentialType, itemIndex);
	const idempotent = isIdempotent(request.method);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		headers: request.body ? { Accept: 'application/json', 'Content-Type': 'application/json' } : { Accept: 'application/json' },
		body: request.body,
		qs: request.qs,
		json: true,
		timeout: policy.timeoutMs,
		returnFullResponse: true,
		// Status codes are judged here: n8n's own handling would re-send a request after a 401.
		ignoreHttpStatusErrors: true,
	};
	const credentialsDecrypted = { id: '', name: '', type: api.credentialType, data: credentials };
	const attempt: AttemptContext = { context: this, request, itemIndex, url: options.url, idempotent, policy, mayHaveActed: false };

	// A retry keeps the item's slot, and so its place in line: with Max Concurrent Requests 1 a
	// retried message still goes out before the messages after it (input order).
	let kept: (() => void) | undefined;
	for (let attemptNumber = 1; ; attemptNumber++) {
		if (state.haltedBy) {
			kept?.();
			throw haltedError(this, state.haltedBy, itemIndex);
		}
		const retry = kept !== undefined;
		const release = kept ?? (await scheduler.acquire(itemIndex, { gated: request.method !== 'GET' }));
		kept = undefined;
		let verdict: Verdict;
		// The slot is held until the answer is judged, so that a failure which stops the run
		// stops it before the next waiting request can start.
		try {
			// A retry waits for its start time (pacing, a pause the service asked for) in its slot.
			if (retry) await scheduler.waitForTurn(itemIndex);
			if (state.haltedBy) throw haltedError(this, state.haltedBy, itemIndex);
			let response: IN8nHttpFullResponse | undefined;
			let thrown: unknown;
			try {
				response = (await this.helpers.httpRequestWithAuthentication.call(this, api.credentialType, options, {
					credentialsDecrypted,
				})) as IN8nHttpFullResponse;
			} catch (error) {
				thrown = error;
			}
			scheduler.answered(itemIndex);
			verdict = judge(attempt, response, thrown);

			if (verdict.type === 'done') return verdict.body as T;
			if (verdict.type === 'failed') {
				if (verdict.haltsRun) state.haltedBy ??= verdict.error;
				throw scheduler.failed(verdict.error);
			}
			const { outcome } = verdict;
			if (outcome.type === 'serverError' || outcome.type === 'timedOut') attempt.mayHaveActed = true;
			if (attemptNumber > policy.maxRetries || !isRetryable(outcome, idempotent, policy.retrySendsOnServerError)) {
				throw scheduler.failed(verdict.error());
			}
			if (outcome.type === 'rateLimited') {
				if ((outcome.retryAfterMs ?? 0) > policy.maxWaitMs) throw scheduler.failed(waitTooLongError(attempt, outcome.retryAfterMs!));
				// Every request of the run waits: the limit is the account's, not this item's.
				scheduler.pauseUntil(Date.now() + (outcome.retryAfterMs ?? Math.min(backoffMs(attemptNumber), policy.maxWaitMs)));
			}
			kept = release;
		} finally {
			if (kept !== release) release();
		}
		if (verdict.outcome.type !== 'rateLimited') await sleep(backoffMs(attemptNumber));
	}
}

/** What one attempt of one item's request needs to be judged. */
interface AttemptContext {
	context: RequestContext;
	request: ServiceRequest;
	itemIndex: number;
	url: string;
	idempotent: boolean;
	policy: RequestPolicy;
	/** An earlier attempt got a 5xx or timed out, so the service may have carried it out. */
	mayHaveActed: boolean;
}

type Verdict =
	| { type: 'done'; body: unknown }
	| { type: 'failed'; error: NodeApiError; haltsRun: boolean }
	/** May be tried again; `error` is what the item fails with if it is not. */
	| { type: 'retryable'; outcome: AttemptOutcome; error: () => NodeApiError };

/** Reads one answer (or the error in its place): success, a failure for good, or worth another try. */
function judge(attempt: AttemptContext, response: IN8nHttpFullResponse | undefined, thrown: unknown): Verdict {
	const { context, request, itemIndex, idempotent, policy } = attempt;
	const node = context.getNode();
	if (!response) {
		const outcome = outcomeOfThrown(thrown);
		if (!outcome) return { type: 'failed', error: unexpectedError(context, thrown, itemIndex), haltsRun: false };
		return { type: 'retryable', outcome, error: () => connectionError(context, outcome, attempt.url, itemIndex, idempotent, policy) };
	}
	const status = response.statusCode;
	const body: unknown = response.body;
	const failure = readFailure(body, status >= 400);
	if (!failure && status < 400) return { type: 'done', body };
	// A retried DELETE that finds nothing to delete: the earlier attempt did the job.
	if (status === 404 && request.method === 'DELETE' && attempt.mayHaveActed) return { type: 'done', body: undefined };
	const reason = failure ?? { reason: `The service answered HTTP ${status}` };
	const kind = classifyFailure(reason.reason, status);
	if (status === 429 || kind === 'rateLimit') {
		const retryAfterMs = parseRetryAfter(response.headers?.['retry-after']);
		const outcome: AttemptOutcome = { type: 'rateLimited', retryAfterMs };
		return { type: 'retryable', outcome, error: () => serviceError(node, { status, failure: reason, itemIndex, body, kind: 'rateLimit', retryAfterMs }) };
	}
	if (status >= 500) {
		const outcome: AttemptOutcome = { type: 'serverError' };
		return {
			type: 'retryable',
			outcome,
			error: () => serviceError(node, { status, failure: reason, itemIndex, body, kind, ...mayHaveBeenSent(outcome, idempotent, policy) }),
		};
	}
	return { type: 'failed', error: serviceError(node, { status, failure: reason, itemIndex, body, kind }), haltsRun: FAILURE_KINDS[kind].stopsRun };
}

function waitTooLongError(attempt: AttemptContext, retryAfterMs: number): NodeApiError {
	return serviceError(attempt.context.getNode(), {
		status: 429,
		failure: {
			reason: `Rate limited: the service asked to wait ${Math.ceil(retryAfterMs / 1000)} s, more than Max Wait (${seconds(attempt.policy.maxWaitMs)})`,
		},
		itemIndex: attempt.itemIndex,
		kind: 'rateLimit',
		retryAfterMs,
	});
}

/** "0.5 s", "2 s": options may be fractional, and rounding would misstate them. */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

const MAY_HAVE_BEEN_SENT =
	'The message may have been delivered: the service may have acted on it before failing, so it was not sent again (that could duplicate it). Check before resending.';

function mayHaveBeenSent(outcome: AttemptOutcome, idempotent: boolean, policy: RequestPolicy) {
	if (idempotent || policy.retrySendsOnServerError || (outcome.type !== 'serverError' && outcome.type !== 'timedOut')) {
		return {};
	}
	return { messageSuffix: `. ${MAY_HAVE_BEEN_SENT}`, note: 'Turn on "Retry Sends After Server Errors" only if a duplicate is acceptable.' };
}

function connectionError(
	context: RequestContext,
	outcome: AttemptOutcome,
	url: string,
	itemIndex: number,
	idempotent: boolean,
	policy: RequestPolicy,
): NodeApiError {
	const host = safeHost(url);
	const code = outcome.type === 'connectionFailed' ? outcome.code : undefined;
	const what =
		outcome.type === 'timedOut'
			? `No answer from ${host} within ${seconds(policy.timeoutMs)}`
			: `Could not reach ${host}: ${(code && CONNECTION_FAILURES[code]) ?? 'the connection failed'}`;
	const suffix = mayHaveBeenSent(outcome, idempotent, policy).messageSuffix ?? '';
	return new NodeApiError(context.getNode(), { message: what }, {
		message: `${what}${suffix}`,
		description: `Check the base URL in the credential and that the service is reachable from n8n.${code ? ` (${code})` : ''}`,
		itemIndex,
		failure: { cause: 'temporarily-unavailable' },
	});
}

function haltedError(context: RequestContext, cause: NodeApiError, itemIndex: number): NodeApiError {
	return new NodeApiError(context.getNode(), { message: cause.message }, {
		message: cause.message,
		description: `Not sent: an earlier item of this run failed for this reason, which no later item can get past. ${cause.description ?? ''}`.trim(),
		httpCode: cause.httpCode ?? undefined,
		itemIndex,
		failure: cause.failure,
	});
}

/** Anything else (e.g. the execution was cancelled): its message only, never its request. */
function unexpectedError(context: RequestContext, error: unknown, itemIndex: number): NodeApiError {
	const message = error instanceof Error ? error.message : String(error);
	return new NodeApiError(context.getNode(), { message }, { message, itemIndex });
}

function safeHost(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return 'the service';
	}
}
