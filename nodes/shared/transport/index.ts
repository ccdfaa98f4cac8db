import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions, ILoadOptionsFunctions } from 'n8n-workflow';

import { SERVICE_APIS } from './apis';
import type { ServiceApi, ServiceRequest } from './apis';
import { attemptOnce, haltedError, hostOf, waitTooLongError } from './attempt';
import type { Attempt } from './attempt';
import { normalizeBaseUrl } from './baseUrl';
import type { BaseUrlCheck } from './baseUrl';
import { interruptibleSleep, Limiter, sharedLimiter } from './limiter';
import type { Permit, Slots } from './limiter';
import { EDITOR_POLICY, readRequestPolicy } from './options';
import type { RequestPolicy } from './options';
import { decideRetry } from './retryPolicy';
import { secretsOf } from './secrets';

export { SERVICE_APIS } from './apis';
export type { ServiceApi, ServiceRequest } from './apis';
export { requestOptionsDescription } from './options';
export type { RequestPolicy } from './options';

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
