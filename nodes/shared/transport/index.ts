import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import { FAILURE_KINDS, classifyFailure, readFailure, serviceError } from '../errors';
import { normalizeBaseUrl } from './baseUrl';
import type { BaseUrlCheck, BaseUrlPolicy } from './baseUrl';
import { interruptibleSleep, Limiter, sharedLimiter } from './limiter';
import type { Permit, Slots } from './limiter';
import { EDITOR_POLICY, readRequestPolicy } from './options';
import type { RequestPolicy } from './options';
import { decideRetry, NOT_REACHED, outcomeOfThrown, parseRetryAfter } from './retryPolicy';
import type { AttemptOutcome } from './retryPolicy';
import { scrubSecrets, secretsOf } from './secrets';

export { requestOptionsDescription } from './options';
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
	/** The endpoint's success answer as the spec gives it; any other 2xx answer is a failure. */
	isSuccess: (body: unknown) => boolean;
}

type RequestContext = IExecuteFunctions | ILoadOptionsFunctions;

/** Given to requests that had not started when another item's failure stopped the run. */
export class RunStoppedError extends Error {
	constructor() {
		super('Not sent: the run stopped at an earlier failure');
	}
}

/** Given to every wait of a run whose execution was cancelled (n8n reads "canceled" as a cancelled run). */
export class ExecutionCanceledError extends Error {
	name = 'ExecutionCancelledError';

	constructor() {
		super('The execution was canceled');
	}
}

/** What the transport keeps for one node run (one execution of the node, or one editor call). */
export interface Run {
	policy: RequestPolicy;
	/**
	 * Aborted when the run stops (a failure without Continue On Fail: nothing more starts,
	 * requests under way finish) or the execution is cancelled: every wait of the run ends at once.
	 */
	signal: AbortSignal;
	/** A value computed once per run and shared by its items (e.g. the account's templates). */
	once<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

interface RunState extends Run {
	context: RequestContext;
	/**
	 * An item failed for good. Without Continue On Fail the run stops, before the failed
	 * request's slot is given back, so that the next waiting request cannot slip out.
	 */
	failed(error: NodeApiError, permit: Permit): NodeApiError;
	cancelSignal?: AbortSignal;
	credentials: Map<string, Promise<ICredentialDataDecryptedObject>>;
	/** Per API group, read once per run: every request of the run would read the same. */
	targets: Map<ServiceApi, Promise<Target>>;
	/** The first failure that no later request of this run can get past (credits, auth, ...). */
	haltedBy?: NodeApiError;
	/** This run's own Max Concurrent Requests, when it is not shared (see RequestPolicy.maxConcurrentSet). */
	slots?: Slots;
	/** When the node started (epoch ms), before it checked its items: pacing counts from here. */
	startedAt: number;
}

const runs = new WeakMap<object, RunState>();

/** Starts a node run's transport state; the router calls this once per execution. */
export function startRun(context: IExecuteFunctions): Run {
	const state = newRun(context, readRequestPolicy(context), !context.continueOnFail(), context.getExecutionCancelSignal?.());
	runs.set(context, state);
	return state;
}

function newRun(context: RequestContext, policy: RequestPolicy, stopOnFailure: boolean, cancelSignal?: AbortSignal): RunState {
	const stopper = new AbortController();
	const memo = new Map<string, Promise<unknown>>();
	cancelSignal?.addEventListener('abort', () => stopper.abort(new ExecutionCanceledError()), { once: true });
	return {
		context,
		policy,
		cancelSignal,
		startedAt: Date.now(),
		signal: stopper.signal,
		failed: (error, permit) => {
			if (stopOnFailure) stopper.abort(new RunStoppedError());
			permit.done();
			return error;
		},
		once: <T>(key: string, compute: () => Promise<T>) => {
			if (!memo.has(key)) memo.set(key, compute());
			return memo.get(key) as Promise<T>;
		},
		credentials: new Map(),
		targets: new Map(),
		slots: policy.shareLimitsAcrossExecutions && !policy.maxConcurrentSet ? { active: 0 } : undefined,
	};
}

function runOf(context: RequestContext): RunState {
	let state = runs.get(context);
	if (!state) {
		// Editor calls (template picker, variable fields) have no run of their own.
		state = newRun(context, EDITOR_POLICY, false);
		runs.set(context, state);
	}
	return state;
}

async function credentialsFor(state: RunState, type: string, itemIndex: number): Promise<ICredentialDataDecryptedObject> {
	let credentials = state.credentials.get(type);
	if (!credentials) {
		credentials = (state.context as IExecuteFunctions).getCredentials(type, itemIndex);
		state.credentials.set(type, credentials);
		credentials.catch(() => state.credentials.delete(type));
	}
	return await credentials;
}

/** An API group as this run's requests see it: its credential, base URL (or what is wrong with it), secrets and limiter. */
interface Target {
	credentials: ICredentialDataDecryptedObject;
	baseUrl: BaseUrlCheck;
	secrets: string[];
	limiter: Limiter;
}

function targetOf(state: RunState, api: ServiceApi, itemIndex: number): Promise<Target> {
	let target = state.targets.get(api);
	if (!target) {
		target = newTarget(state, api, itemIndex);
		state.targets.set(api, target);
		target.catch(() => state.targets.delete(api));
	}
	return target;
}

async function newTarget(state: RunState, api: ServiceApi, itemIndex: number): Promise<Target> {
	const { credentialType, baseUrlField, urlPolicy } = SERVICE_APIS[api];
	const credentials = await credentialsFor(state, credentialType, itemIndex);
	return { credentials, baseUrl: normalizeBaseUrl(credentials[baseUrlField], urlPolicy), secrets: secretsOf(credentials), limiter: limiterFor(state, api) };
}

/** The base URL a request needs, or a clear error naming the credential field. */
function baseUrlOf(context: RequestContext, api: ServiceApi, check: BaseUrlCheck, itemIndex: number): string {
	if (!check.ok) {
		const { baseUrlField, baseUrlLabel } = SERVICE_APIS[api];
		throw new NodeOperationError(context.getNode(), `The credential's ${baseUrlLabel} (${baseUrlField}) ${check.problem} [item ${itemIndex}]`, {
			itemIndex,
			description: `Open the credential and set ${baseUrlLabel} to the base URL shown in the API section of your account dashboard.`,
		});
	}
	return check.baseUrl;
}

/** This run's limiter for an API group, or the one every execution shares for the credential and group. */
function limiterFor(state: RunState, api: ServiceApi): Limiter {
	const { credentialType } = SERVICE_APIS[api];
	if (!state.policy.shareLimitsAcrossExecutions) return new Limiter();
	const credential = state.context.getNode().credentials?.[credentialType];
	return sharedLimiter(`${credentialType}:${credential?.id ?? credential?.name ?? ''}:${api}`);
}

const isIdempotent = (method: IHttpRequestMethods) => method === 'GET' || method === 'HEAD' || method === 'DELETE';

/**
 * Sends one request of one item and returns the body of the endpoint's success answer. The
 * only place that talks HTTP: base URL and auth from the credential (n8n's
 * httpRequestWithAuthentication), the limiter's pacing, and the retry rule of retryPolicy.ts.
 * Redirects are never followed. Any failure is a NodeApiError built from the answer with the
 * credential's secrets scrubbed out; nothing of the request is copied into it.
 */
export async function serviceRequest<T = unknown>(this: RequestContext, itemIndex: number, request: ServiceRequest): Promise<T> {
	const state = runOf(this);
	const { policy } = state;
	const { credentials, baseUrl, secrets, limiter } = await targetOf(state, request.api, itemIndex);
	const url = `${baseUrlOf(this, request.api, baseUrl, itemIndex)}${request.path}`;
	const attempt: Attempt = {
		context: this,
		request,
		itemIndex,
		url,
		// Only errors name the host: not parsed for every successful request.
		get host() {
			return hostOf(url);
		},
		idempotent: isIdempotent(request.method),
		policy,
		secrets,
		mayHaveActed: false,
	};
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: request.body ? { Accept: 'application/json', 'Content-Type': 'application/json' } : { Accept: 'application/json' },
		body: request.body,
		qs: request.qs,
		json: true,
		timeout: policy.timeoutMs,
		returnFullResponse: true,
		// Status codes are judged here: n8n's own handling would re-send a request after a 401.
		ignoreHttpStatusErrors: true,
		// A redirect would carry the key and the message to whatever host it names.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		abortSignal: state.cancelSignal,
	};
	let hasSlot = false;
	for (let attemptNumber = 1; ; attemptNumber++) {
		const permit = await limiter.acquire(policy, state.signal, { hasSlot, slots: state.slots, since: state.startedAt });
		const verdict = state.haltedBy
			? ({ type: 'failed', error: haltedError(attempt, state.haltedBy), haltsRun: false } as const)
			: await attemptOnce(attempt, options, credentials, state.cancelSignal);
		if (verdict.type === 'done') {
			permit.done();
			return verdict.body as T;
		}
		if (verdict.type === 'failed') {
			if (verdict.haltsRun) state.haltedBy ??= verdict.error;
			throw state.failed(verdict.error, permit);
		}
		const decision = decideRetry(verdict.outcome, attemptNumber, attempt.idempotent, policy);
		if (!decision.retry) {
			throw state.failed(decision.waitTooLongMs !== undefined ? waitTooLongError(attempt, decision.waitTooLongMs) : verdict.error(), permit);
		}
		if (verdict.outcome.type === 'mayHaveReached') attempt.mayHaveActed = true;
		// A retry keeps its slot, and so its place: with Max Concurrent Requests 1 the input order holds.
		permit.done({ keepSlot: true });
		hasSlot = true;
		if (decision.pauseAll) {
			// Every request waits with this one: the limit is the account's, not this item's.
			limiter.pauseUntil(Date.now() + decision.waitMs);
		} else if (!(await interruptibleSleep(decision.waitMs, state.signal).then(() => true, () => false))) {
			limiter.giveBack(state.slots);
			throw state.signal.reason;
		}
	}
}

/** One try: the answer judged, or the error in its place. Never throws. */
async function attemptOnce(
	attempt: Attempt,
	options: IHttpRequestOptions,
	credentials: ICredentialDataDecryptedObject,
	cancelSignal: AbortSignal | undefined,
): Promise<Verdict> {
	const { context, request } = attempt;
	const credentialType = SERVICE_APIS[request.api].credentialType;
	let response: IN8nHttpFullResponse | undefined;
	let thrown: unknown;
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(context, credentialType, options, {
			credentialsDecrypted: { id: '', name: '', type: credentialType, data: credentials },
		})) as IN8nHttpFullResponse;
	} catch (error) {
		thrown = error;
	}
	if (cancelSignal?.aborted) return { type: 'failed', error: cancelledError(attempt), haltsRun: false };
	try {
		return judge(attempt, response, thrown);
	} catch (error) {
		// Never leave the limiter's slot taken: a shared limiter would stall every execution of the credential.
		return { type: 'failed', error: unexpectedError(attempt, error), haltsRun: false };
	}
}

/** What one attempt needs to be judged. */
interface Attempt {
	context: RequestContext;
	request: ServiceRequest;
	itemIndex: number;
	url: string;
	host: string;
	idempotent: boolean;
	policy: RequestPolicy;
	secrets: string[];
	/** An earlier attempt may have been carried out (a 5xx, a dropped connection, a timeout). */
	mayHaveActed: boolean;
}

type Verdict =
	| { type: 'done'; body: unknown }
	| { type: 'failed'; error: NodeApiError; haltsRun: boolean }
	/** May be tried again; `error` is what the item fails with if it is not. */
	| { type: 'retryable'; outcome: AttemptOutcome; error: () => NodeApiError };

/** Reads one answer (or the error in its place): success, a failure for good, or worth another try. */
function judge(attempt: Attempt, response: IN8nHttpFullResponse | undefined, thrown: unknown): Verdict {
	const { context, request, itemIndex } = attempt;
	if (!response) {
		const outcome = outcomeOfThrown(thrown);
		if (!outcome) return { type: 'failed', error: unexpectedError(attempt, thrown), haltsRun: false };
		return { type: 'retryable', outcome, error: () => connectionError(attempt, outcome) };
	}
	const status = response.statusCode;
	const body = scrubSecrets(response.body, attempt.secrets);
	if (status >= 300 && status < 400) return { type: 'failed', error: redirectError(attempt, status, response.headers?.location), haltsRun: false };

	const isServiceBody = typeof body === 'object' && body !== null;
	const failure = readFailure(body, status >= 400);
	if (status < 300 && !failure) {
		if (request.isSuccess(body)) return { type: 'done', body };
		return { type: 'failed', error: unexpectedAnswerError(attempt, status, body, response.headers?.['content-type']), haltsRun: false };
	}
	if (status >= 400 && !isServiceBody) {
		// An HTML error page or plain text: a proxy or another server answered, not the service.
		if (status === 429) return rateLimited(attempt, status, { reason: `Rate limited by ${attempt.host} (HTTP 429)` }, body, response);
		if (status >= 500) return serverError(attempt, status, { reason: `${attempt.host} answered HTTP ${status}` }, body);
		return { type: 'failed', error: unexpectedAnswerError(attempt, status, body, response.headers?.['content-type']), haltsRun: false };
	}
	const reason = failure ?? { reason: `The service answered HTTP ${status}` };
	// A 5xx is judged by its status, whatever its text says: the service may have acted on it.
	if (status >= 500) return serverError(attempt, status, reason, body);
	const kind = classifyFailure(reason.reason, status);
	if (status === 429 || kind === 'rateLimit') return rateLimited(attempt, status, reason, body, response);
	// A retried DELETE that finds nothing to delete: an earlier attempt did the job.
	if (status === 404 && request.method === 'DELETE' && attempt.mayHaveActed) return { type: 'done', body: undefined };
	return { type: 'failed', error: serviceError(context.getNode(), { status, failure: reason, itemIndex, body, kind }), haltsRun: FAILURE_KINDS[kind].stopsRun };
}

function rateLimited(attempt: Attempt, status: number, reason: { reason: string }, body: unknown, response: IN8nHttpFullResponse): Verdict {
	const retryAfterMs = parseRetryAfter(response.headers?.['retry-after']);
	return {
		type: 'retryable',
		outcome: { type: 'rateLimited', retryAfterMs },
		error: () => serviceError(attempt.context.getNode(), { status, failure: reason, itemIndex: attempt.itemIndex, body, kind: 'rateLimit', retryAfterMs }),
	};
}

function serverError(attempt: Attempt, status: number, reason: { reason: string; code?: string }, body: unknown): Verdict {
	return {
		type: 'retryable',
		outcome: { type: 'mayHaveReached', why: 'serverError' },
		error: () =>
			serviceError(attempt.context.getNode(), {
				status,
				failure: reason,
				itemIndex: attempt.itemIndex,
				body,
				kind: 'other',
				...mayHaveBeenDelivered(attempt),
			}),
	};
}

/** "0.5 s", "2 s": options may be fractional, and rounding would misstate them. */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

const MAY_HAVE_BEEN_DELIVERED =
	'The message may have been delivered: the service may have acted on it before the answer was lost, so it was not sent again (that could duplicate it). Check before resending.';

/** For a send whose fate is unknown: says so, and how to trade that for retries. */
function mayHaveBeenDelivered(attempt: Attempt): { messageSuffix?: string; note?: string } {
	if (attempt.idempotent || attempt.policy.retrySendsOnServerError) return {};
	return {
		messageSuffix: `. ${MAY_HAVE_BEEN_DELIVERED}`,
		note: 'Turn on "Retry Sends After Server Errors" only if a duplicate is acceptable.',
	};
}

function waitTooLongError(attempt: Attempt, retryAfterMs: number): NodeApiError {
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

function connectionError(attempt: Attempt, outcome: AttemptOutcome): NodeApiError {
	const what =
		outcome.type === 'notReached'
			? `Could not reach ${attempt.host}: ${NOT_REACHED[outcome.code] ?? 'the connection failed'}`
			: outcome.type === 'mayHaveReached' && outcome.why === 'timedOut'
				? `No answer from ${attempt.host} within ${seconds(attempt.policy.timeoutMs)}`
				: `The connection to ${attempt.host} was dropped before an answer came`;
	const suffix = outcome.type === 'mayHaveReached' ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const code = outcome.type === 'rateLimited' ? undefined : outcome.code;
	return new NodeApiError(attempt.context.getNode(), { message: what }, {
		message: `${what}${suffix}`,
		description: `Check the base URL in the credential and that the service is reachable from n8n.${code ? ` (${code})` : ''}`,
		itemIndex: attempt.itemIndex,
		failure: { cause: 'temporarily-unavailable' },
	});
}

function redirectError(attempt: Attempt, status: number, location: unknown): NodeApiError {
	let target = 'no address';
	try {
		if (typeof location === 'string') target = new URL(location, attempt.url).host;
	} catch {
		target = 'an unreadable address';
	}
	// 303 "See Other" is how a server says it processed a POST; the others ask to send it elsewhere.
	const suffix = status === 303 ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const message = `${attempt.host} answered HTTP ${status}, a redirect to ${target}; redirects are not followed, so nothing was sent there${suffix}`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description: `Check the credential's base URL: it should be the API address from your account dashboard itself (https, the right host and /api: group). The key is never sent to another host.`,
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

function unexpectedAnswerError(attempt: Attempt, status: number, body: unknown, contentType: unknown): NodeApiError {
	const what = typeof body === 'string' ? (body.trim() === '' ? 'an empty body' : `${String(contentType ?? 'text').split(';')[0]} instead of JSON`) : 'JSON of another shape';
	const suffix = status < 300 ? (mayHaveBeenDelivered(attempt).messageSuffix ?? '') : '';
	const message = `Unexpected answer from ${attempt.host} (HTTP ${status}, ${what})${suffix}`;
	return new NodeApiError(attempt.context.getNode(), { message }, {
		message,
		description:
			"This is not the service's answer for this operation. Check the credential's base URL: a wrong address often reaches a login page, a proxy or another API.",
		httpCode: String(status),
		itemIndex: attempt.itemIndex,
	});
}

function haltedError(attempt: Attempt, cause: NodeApiError): NodeApiError {
	return new NodeApiError(attempt.context.getNode(), { message: cause.message }, {
		message: cause.message,
		description: `Not sent: an earlier item of this run failed for this reason, which no later item can get past. ${cause.description ?? ''}`.trim(),
		httpCode: cause.httpCode ?? undefined,
		itemIndex: attempt.itemIndex,
		failure: cause.failure,
	});
}

function cancelledError(attempt: Attempt): NodeApiError {
	const message = `The execution was canceled while waiting for ${attempt.host}${mayHaveBeenDelivered(attempt).messageSuffix ?? ''}`;
	return new NodeApiError(attempt.context.getNode(), { message }, { message, itemIndex: attempt.itemIndex });
}

/** Anything else: its message only (secrets scrubbed), never its request. */
function unexpectedError(attempt: Attempt, error: unknown): NodeApiError {
	const message = String(scrubSecrets(error instanceof Error ? error.message : String(error), attempt.secrets));
	return new NodeApiError(attempt.context.getNode(), { message }, { message, itemIndex: attempt.itemIndex });
}

function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return 'the service';
	}
}
