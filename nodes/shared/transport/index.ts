/**
 * The transport: the only place that talks HTTP. A run (startRun) sends its items through sendAll;
 * each request gets its base URL and key from the credential (n8n's httpRequestWithAuthentication
 * in attempt.ts), a ticket from the account's scheduler for each attempt (scheduler.ts), and the
 * retry rule of retryPolicy.ts. A rate refusal goes again at its place once the account reopens
 * (within Max Wait). Redirects are never followed. Any failure is a NodeApiError built from the
 * answer with the credential's secrets scrubbed out, passed through run.failed, which decides
 * what it means for the run.
 */
import { createHash } from 'node:crypto';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions, ILoadOptionsFunctions } from 'n8n-workflow';

import { keyProblem } from '../../../credentials/headerAuthentication';
import { Deadlines } from './answer';
import { SERVICE_APIS } from './apis';
import type { RequestContext, ServiceApi, ServiceRequest } from './apis';
import { attemptOnce, haltedError, hostOf, limitNotReopenedError, mayHaveDone, rateLimitedInEditor, triedAgainMayHaveActed } from './attempt';
import type { Attempt, Verdict } from './attempt';
import { normalizeBaseUrl } from './baseUrl';
import type { BaseUrlCheck } from './baseUrl';
import { EDITOR_POLICY, readRequestPolicy } from './options';
import type { RequestPolicy } from './options';
import { decideRetry } from './retryPolicy';
import { accountFor, AUTO_CONCURRENCY, Counts, existingAccount, interruptibleSleep, LimitNotReopenedError, monotonicNow } from './scheduler';
import type { Account, Outcome, RunLane, Ticket } from './scheduler';
import { secretsOf } from './secrets';
import type { Secrets } from './secrets';
import { ExecutionCanceledError, RunStoppedError } from './stops';

export { SERVICE_APIS } from './apis';
export type { ServiceApi, ServiceRequest } from './apis';
export { requestOptionsDescription } from './options';
export type { RequestPolicy } from './options';
export { isCancellation, RunStoppedError } from './stops';

/** Ends the waits of a run's other items once a failure that no later item can get past came in (Continue On Fail). */
class HaltedError extends Error {
	constructor(readonly cause: NodeApiError) {
		super(cause.message);
	}
}

/** How long requests under way may still finish after their run stopped, before they are abandoned. */
const STOP_GRACE_MS = 1_000;

/** One node run (an execution of the node, or one editor call), handed explicitly to everything that sends. */
export interface Run {
	context: RequestContext;
	/** An editor call (the picker, the variable fields): there are no items, so errors name none. */
	forEditor: boolean;
	policy: RequestPolicy;
	continueOnFail: boolean;
	/** Aborted when the run stops (a failure without Continue On Fail) or the execution is cancelled: every wait ends at once. */
	signal: AbortSignal;
	/** Every request's deadline: its Timeout, or STOP_GRACE_MS after the run stops (at once on cancel), when requests still under way are abandoned. */
	deadlines: Deadlines;
	/** Aborted when a failure no later item can get past came in (credits, auth, ...): their waits end. */
	haltSignal: AbortSignal;
	/** When the node started, before it checked its items: pacing counts from here. */
	startedAt: number;
	/**
	 * A value computed once per run and shared by its items: a promise (the account's templates) or
	 * a value the items fill in as they are checked (the run's template IDs).
	 */
	once<T>(key: string, compute: () => T): T;
	/**
	 * Records an item's failure and decides what it means for the run (the only place that does):
	 * without Continue On Fail it stops the run (requests under way get STOP_GRACE_MS to answer);
	 * with `haltsRun` (a key refused, no credits) it ends every other item's wait. Returns the error.
	 */
	failed(error: Error, haltsRun?: boolean): Error;
	/** Per API group: its credential, base URL, secrets, account and lane, read once per run. */
	targets: Map<ServiceApi, Promise<Target>>;
}

/**
 * Whether the execution has reached the end its Timeout Workflow setting gives it. n8n cancels a
 * timed-out execution as it does a Stop, without saying why, and both n8n lines tell the two
 * apart by this very test (n8n-core's `timedOut`).
 */
function pastExecutionTimeout(context: RequestContext): boolean {
	const deadline = (context as unknown as { additionalData?: { executionTimeoutTimestamp?: unknown } }).additionalData?.executionTimeoutTimestamp;
	return typeof deadline === 'number' && Date.now() >= deadline;
}

/** Starts a node run; the router calls this once per execution. */
export function startRun(context: IExecuteFunctions): Run {
	return newRun(context, readRequestPolicy(context), context.continueOnFail(), context.getExecutionCancelSignal?.());
}

/** A run for one editor call (template picker, variable fields): a person waits, so short limits. */
function editorRun(context: ILoadOptionsFunctions): Run {
	return newRun(context, EDITOR_POLICY, false, undefined, true);
}

function newRun(context: RequestContext, policy: RequestPolicy, continueOnFail: boolean, cancelSignal?: AbortSignal, forEditor = false): Run {
	const stop = new AbortController();
	const abandon = new AbortController();
	const halt = new AbortController();
	const memo = new Map<string, unknown>();
	const cancel = () => {
		const timedOut = pastExecutionTimeout(context);
		stop.abort(new ExecutionCanceledError(timedOut));
		abandon.abort(new ExecutionCanceledError(timedOut));
	};
	// Already cancelled: n8n's Retry On Fail runs the node again after a Stop, with the signal that fired.
	if (cancelSignal?.aborted) cancel();
	else cancelSignal?.addEventListener('abort', cancel, { once: true });
	return {
		context,
		forEditor,
		policy,
		continueOnFail,
		startedAt: monotonicNow(),
		signal: stop.signal,
		deadlines: new Deadlines(abandon.signal),
		haltSignal: halt.signal,
		targets: new Map(),
		once: <T>(key: string, compute: () => T) => {
			if (!memo.has(key)) memo.set(key, compute());
			return memo.get(key) as T;
		},
		failed: (error, haltsRun = false) => {
			if (!continueOnFail && !stop.signal.aborted) {
				stop.abort(new RunStoppedError());
				// Answers already on their way get a moment to arrive: they say whether their message went.
				void interruptibleSleep(STOP_GRACE_MS, abandon.signal).then(
					() => abandon.abort(new RunStoppedError()),
					() => undefined,
				);
			}
			if (haltsRun && !halt.signal.aborted && error instanceof NodeApiError) halt.abort(new HaltedError(error));
			return error;
		},
	};
}

/** An API group as one run sees it. */
interface Target {
	credentials: ICredentialDataDecryptedObject;
	baseUrl: BaseUrlCheck;
	secrets: Secrets;
	account: Account;
	lane: RunLane;
	/** Why the credential's key cannot be sent in a header (keyProblem), or undefined. */
	keyProblem?: string;
	/**
	 * The latest rate refusal of this run and API group, its status and its words when it gave some:
	 * a wait that ends at Max Wait repeats them (a 400 with the rate-limit reason is reported as 400).
	 */
	lastRefusal?: { status: number; said?: string };
}

function targetOf(run: Run, api: ServiceApi, itemIndex: number): Promise<Target> {
	let target = run.targets.get(api);
	if (!target) {
		target = newTarget(run, api, itemIndex);
		run.targets.set(api, target);
		target.catch(() => run.targets.delete(api));
	}
	return target;
}

async function newTarget(run: Run, api: ServiceApi, itemIndex: number): Promise<Target> {
	const { credentialType, baseUrlField, urlPolicy } = SERVICE_APIS[api];
	const credentials = await (run.context as IExecuteFunctions).getCredentials(credentialType, itemIndex);
	// The account is the credential's, whatever the run shares: what the service refuses, it refuses every run.
	const credential = run.context.getNode().credentials?.[credentialType];
	const account = accountFor(accountKey(credential?.id ?? credential?.name ?? '', api), accountDigest(credentials, api));
	return {
		credentials,
		baseUrl: normalizeBaseUrl(credentials[baseUrlField], urlPolicy),
		keyProblem: keyProblem(credentials[SERVICE_APIS[api].keyField]),
		secrets: secretsOf(credentials),
		account,
		lane: {
			limits: run.policy,
			shareLimits: run.policy.shareLimitsAcrossExecutions,
			signal: AbortSignal.any([run.signal, run.haltSignal]),
			since: run.startedAt,
			own: new Counts(),
		},
	};
}

/** The key of the account a credential's requests of an API group share: one per credential and limit (SERVICE_APIS' `limitGroup`). */
function accountKey(credentialId: string, api: ServiceApi): string {
	const { credentialType, limitGroup } = SERVICE_APIS[api];
	return `${credentialType}:${credentialId}:${limitGroup}`;
}

/** The account a credential's requests of an API group took, if any run took it (for logs and tests: it takes none). */
export function existingAccountOf(credentialId: string, api: ServiceApi): Account | undefined {
	return existingAccount(accountKey(credentialId, api));
}

/**
 * Which of the service's accounts a credential reaches for a limit: a digest of its key and of the
 * base URLs of every API group that counts toward it (never the key itself). The same for each of
 * those groups, so that a run of one does not take the other's account for another one.
 */
function accountDigest(credentials: ICredentialDataDecryptedObject, api: ServiceApi): string {
	const { limitGroup, credentialType, keyField } = SERVICE_APIS[api];
	const baseUrls = Object.values(SERVICE_APIS)
		.filter((other) => other.limitGroup === limitGroup && other.credentialType === credentialType)
		.map((other) => String(credentials[other.baseUrlField] ?? ''));
	return createHash('sha256').update([...baseUrls, String(credentials[keyField] ?? '')].join('\0')).digest('base64');
}

/**
 * Reads the credential of an API group for the run and checks its base URL, sending nothing:
 * a missing or refused base URL is named before the run reads anything from the service. An
 * `optional` one (read only to help, as Send Template's list of templates) may be left empty; given
 * and refused (plain http to a remote host, not a URL), it is named all the same: passed over in
 * silence, it would skip the checks its answer is read for.
 */
export async function checkTarget(run: Run, api: ServiceApi, itemIndex: number, optional = false): Promise<void> {
	const target = await targetOf(run, api, itemIndex);
	if (optional && !target.baseUrl.ok && target.baseUrl.empty) return;
	baseUrlOf(run, api, target, itemIndex);
}

/**
 * Whether the credential leaves an API group's base URL empty, by the rule requests go by: an
 * optional one (the Templates Base URL) may be, and an editor call then says what that costs.
 */
export async function baseUrlLeftEmpty(context: ILoadOptionsFunctions, api: ServiceApi): Promise<boolean> {
	const { credentialType, baseUrlField, urlPolicy } = SERVICE_APIS[api];
	const credentials = await context.getCredentials(credentialType).catch(() => undefined);
	if (!credentials) return false;
	const check = normalizeBaseUrl(credentials[baseUrlField], urlPolicy);
	return !check.ok && check.empty === true;
}

/** The base URL a request needs, or a clear error naming the credential field (the base URL's, or the key's when it cannot be sent). */
function baseUrlOf(run: Run, api: ServiceApi, { baseUrl: check, keyProblem: problem }: Pick<Target, 'baseUrl' | 'keyProblem'>, itemIndex: number): string {
	if (problem) {
		const { keyField, keyLabel } = SERVICE_APIS[api];
		const ofItem = !run.forEditor;
		throw new NodeOperationError(run.context.getNode(), `The credential's ${keyLabel} (${keyField}) ${problem}${ofItem ? ` [item ${itemIndex}]` : ''}`, {
			...(ofItem ? { itemIndex } : {}),
			description: `Open the credential and paste the key again, copied from the API section of your account dashboard. Nothing was sent.`,
		});
	}
	if (!check.ok) {
		const { baseUrlField, baseUrlLabel } = SERVICE_APIS[api];
		const ofItem = !run.forEditor;
		throw new NodeOperationError(run.context.getNode(), `The credential's ${baseUrlLabel} (${baseUrlField}) ${check.problem}${ofItem ? ` [item ${itemIndex}]` : ''}`, {
			...(ofItem ? { itemIndex } : {}),
			description: `Open the credential and set ${baseUrlLabel} to the base URL shown in the API section of your account dashboard.`,
		});
	}
	return check.baseUrl;
}

const isIdempotent = (method: IHttpRequestMethods) => method === 'GET' || method === 'HEAD' || method === 'DELETE';

/** What an attempt's verdict means for the account's limits. */
function outcomeOf(verdict: Verdict | undefined): Outcome {
	if (!verdict) return { type: 'failed' };
	if (verdict.type === 'retryable') {
		return verdict.outcome.type === 'rateLimited' ? { type: 'refused', retryAfterMs: verdict.outcome.retryAfterMs, retryAfterGraceMs: verdict.outcome.retryAfterGraceMs } : { type: 'failed' };
	}
	return { type: 'answered' };
}

/** An editor call's request (the template picker, the variable fields): the success answer's body, or its failure thrown. */
export async function editorRequest<T = unknown>(this: ILoadOptionsFunctions, request: ServiceRequest): Promise<T> {
	const result = await send(editorRun(this), 0, request);
	if (!result.ok) throw result.error;
	return result.body as T;
}

/**
 * A request the run can do without: its answer's body, or undefined when it failed for any
 * reason (no base URL given, a refusal, no answer). It goes in a run of its own, sharing the
 * account's limits, so its failure neither stops nor halts `run`; it ends when `run` stops. It
 * holds up the run's sends no longer than an editor call may (one retry, 10 s). (A base URL given
 * and refused is named before, by checkTarget with `optional`.)
 */
export async function optionalRequest<T = unknown>(run: Run, itemIndex: number, request: ServiceRequest): Promise<T | undefined> {
	const { policy } = run;
	const bounded = { ...policy, maxRetries: Math.min(policy.maxRetries, EDITOR_POLICY.maxRetries), maxWaitMs: Math.min(policy.maxWaitMs, EDITOR_POLICY.maxWaitMs), timeoutMs: Math.min(policy.timeoutMs, EDITOR_POLICY.timeoutMs) };
	const aside = newRun(run.context, bounded, true, run.signal);
	const result = await send(aside, itemIndex, request).catch(() => undefined);
	if (run.signal.aborted) throw run.signal.reason as Error;
	return result?.ok ? (result.body as T) : undefined;
}

/**
 * One item's request to its end: the success answer's body, or the failure its answers came to
 * (and whether the request may have been carried out all the same). Throws when no answer was
 * left to judge: its wait ended (a stop, a halt, Max Wait) or its credential cannot be used.
 */
async function send(run: Run, itemIndex: number, request: ServiceRequest): Promise<JobResult> {
	const { context, policy } = run;
	const target = await targetOf(run, request.api, itemIndex);
	const { credentials, secrets, lane } = target;
	const url = `${baseUrlOf(run, request.api, target, itemIndex)}${request.path}`;
	const attempt: Attempt = {
		context,
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
	};
	let place: number | undefined;
	/** Attempts that failed other than by a rate refusal: Max Retries bounds these (Max Wait bounds refusals). */
	let failures = 0;
	/** Attempts refused for rate: an editor call counts them with its failures under Max Retries (see nextStep). */
	let refusals = 0;
	/** The error of the last attempt that may have been carried out, while it waits to go again. */
	let errorIfNotTriedAgain: NodeApiError | undefined;
	/** Its wait for the next try ended (a stop, a halt, Max Wait): after such an attempt, not "not sent". */
	const endWithoutStart = (ended: Error): JobResult => {
		if (errorIfNotTriedAgain) return notSentAgain(run, attempt, errorIfNotTriedAgain);
		throw ended;
	};
	for (;;) {
		let ticket: Ticket;
		try {
			ticket = await target.account.acquire(target.lane, { place });
			place = ticket.place;
			// Its turn to go out; a stop meanwhile ends it unsent, as one in line.
			await ticket.begin();
		} catch (reason) {
			return endWithoutStart(waitEnded(run, target, attempt, reason));
		}
		let verdict: Verdict | undefined;
		let next: Next;
		try {
			verdict = await attemptOnce(attempt, options, credentials, run.deadlines);
			if (verdict.type === 'retryable' && verdict.outcome.type === 'rateLimited') {
				target.lastRefusal = { status: verdict.outcome.status, said: verdict.outcome.reason ?? target.lastRefusal?.said };
				refusals++;
			}
			// Decided before the ticket is finished: a failure stops the run before the next waiting
			// request can be let through in its place.
			next = nextStep(run, attempt, verdict, { failures, refusals });
		} finally {
			// An attempt the run abandoned (a Stop's grace ran out, a cancel) got no answer, whatever
			// its verdict says: it teaches nothing (counted as accepted, an abandoned probe would end a
			// pause and teach a limit; as failed, each would cut Auto for every later run).
			ticket.finish(run.deadlines.signal.aborted ? { type: 'abandoned' } : outcomeOf(verdict));
		}
		if (next.type === 'done') return { ok: true, body: next.body };
		if (next.type === 'fail') return { ok: false, error: next.error, fateUnknown: next.fateUnknown };
		if (next.type === 'backoff') {
			failures++;
			if (verdict.type === 'retryable' && verdict.outcome.type === 'mayHaveReached') attempt.mayHaveActed = true;
			if (verdict.type === 'retryable' && attempt.mayHaveActed) errorIfNotTriedAgain = verdict.error();
			const ended = await interruptibleSleep(next.waitMs, lane.signal).then(
				() => undefined,
				(reason: unknown) => waitEnded(run, target, attempt, reason),
			);
			if (ended) return endWithoutStart(ended);
		}
	}
}

/**
 * A request that may have been carried out (Retry Sends After Server Errors sent it again after a
 * 5xx or a lost answer) whose next try never went because the run stopped: not "not sent".
 */
function notSentAgain(run: Run, attempt: Attempt, cause: NodeApiError): JobResult {
	const what = attempt.idempotent ? 'the service may have carried it out' : mayHaveDone(attempt);
	const message = `${cause.message}. The run stopped before it was tried again: ${what}`;
	const error = new NodeApiError(run.context.getNode(), { message }, { message, description: cause.description ?? undefined, httpCode: cause.httpCode ?? undefined, itemIndex: attempt.itemIndex });
	// Not sent again, but it may have been carried out: n8n's Retry On Fail must not send it either.
	return { ok: false, error, fateUnknown: !attempt.idempotent };
}

/**
 * Whether a send that failed may have been carried out (its error says "may have been
 * delivered"): a 5xx, a timeout or a dropped connection after it was written, an answer that does
 * not say what became of it, or one the run stopped waiting for; on this try, or on an earlier one
 * that "Retry Sends After Server Errors" sent again. n8n's Retry On Fail then leaves it alone: the
 * node's own tries (Max Retries) are all the copies the user chose to risk.
 */
function fateUnknown(attempt: Attempt, verdict: Verdict): boolean {
	if (attempt.idempotent) return false;
	if (attempt.mayHaveActed) return true;
	if (verdict.type === 'retryable') return verdict.outcome.type === 'mayHaveReached';
	return verdict.type === 'failed' && verdict.fateUnknown === true;
}

/** The error a failed item ends with, saying what its tries may have done when Retry Sends After Server Errors sent it again. */
function finalError(attempt: Attempt, error: Error, mayHaveReachedNow: boolean): Error {
	error.message += triedAgainMayHaveActed(attempt, mayHaveReachedNow) ?? '';
	return error;
}

type Next = { type: 'done'; body: unknown } | { type: 'fail'; error: Error; fateUnknown: boolean } | { type: 'again' } | { type: 'backoff'; waitMs: number };

/**
 * What one attempt's verdict means for its item: done, failed (through run.failed, which decides
 * what that means for the run), again at its place (a rate refusal), or again after a backoff.
 * `tried`: the item's failed attempts before this one that Max Retries bounds, and its rate
 * refusals so far, this one's included.
 */
function nextStep(run: Run, attempt: Attempt, verdict: Verdict, tried: { failures: number; refusals: number }): Next {
	if (verdict.type === 'done') return { type: 'done', body: verdict.body };
	if (verdict.type === 'failed') {
		return { type: 'fail', error: run.failed(finalError(attempt, verdict.error, verdict.fateUnknown === true), verdict.haltsRun), fateUnknown: fateUnknown(attempt, verdict) };
	}
	const { outcome } = verdict;
	// Retries Max Retries bounds: failures; for an editor call (a person waits) rate refusals too.
	const spent = run.forEditor ? tried.failures + tried.refusals : tried.failures;
	if (outcome.type === 'rateLimited') {
		// A person waits on an editor call (the picker, the variable fields): one more try at most, as
		// for any failure, not probes until Max Wait (one dropdown sent 16 requests in 10 s).
		if (run.forEditor && spent > run.policy.maxRetries) return { type: 'fail', error: run.failed(rateLimitedInEditor(attempt, verdict.error().message, outcome.retryAfterMs, outcome.status)), fateUnknown: false };
		// Refused for rate: the account pauses, and this request goes again at its place.
		return { type: 'again' };
	}
	const decision = decideRetry(outcome, spent + 1, attempt.idempotent, run.policy);
	if (!decision.retry) {
		const error = verdict.error();
		// "No answer within 10 s" after two tries took 20 s: the message says it was tried again.
		if (spent > 0) error.message = `${error.message} (${spent + 1} tries)`;
		return { type: 'fail', error: run.failed(finalError(attempt, error, outcome.type === 'mayHaveReached')), fateUnknown: fateUnknown(attempt, verdict) };
	}
	// Not before the service said it is back (a 503's Retry-After), within Max Wait.
	const askedMs = outcome.type === 'mayHaveReached' ? Math.min(outcome.retryAfterMs ?? 0, run.policy.maxWaitMs) : 0;
	return { type: 'backoff', waitMs: Math.max(decision.waitMs, askedMs) };
}

/** An item's wait ended without a start: the run stopped, another item halted it, or the limit did not reopen. */
function waitEnded(run: Run, target: Target, attempt: Attempt, reason: unknown): Error {
	if (reason instanceof HaltedError) return run.failed(haltedError(attempt, reason.cause));
	if (reason instanceof LimitNotReopenedError && run.forEditor) return run.failed(limitNotReopenedError(attempt, reason, target.lastRefusal, true));
	// The first item to give up stops the run; the others waiting with it were simply not sent. With
	// Continue On Fail the limit holds the run's later items as well: they fail with it at once,
	// rather than each trying again and waiting out Max Wait in turn.
	if (reason instanceof LimitNotReopenedError) {
		return run.signal.aborted ? new RunStoppedError() : run.failed(limitNotReopenedError(attempt, reason, target.lastRefusal), true);
	}
	return reason as Error;
}

/** One item to send: its request, and the recipient whose messages must not overlap (sends only). */
interface Job {
	request: ServiceRequest;
	recipient?: string;
}

/**
 * `fateUnknown`: the request went out and may have been carried out, though it failed, and was not
 * sent again for that reason, or only as often as Retry Sends After Server Errors allowed (fateUnknown):
 * n8n's Retry On Fail must not send it either.
 * `neverSent`: nothing of it reached the service (its wait ended, or only refusals came back).
 */
type JobResult = { ok: true; body: unknown } | { ok: false; error: Error; fateUnknown: boolean; neverSent?: boolean };

/**
 * Sends every job of a run, as many at once as the scheduler lets through, and reports each
 * result as it comes. Messages to one recipient never overlap and go in input order. Once the
 * run stops, nothing more starts; jobs never started get no result.
 */
export async function sendAll(run: Run, jobs: Array<Job | undefined>, onResult: (index: number, result: JobResult) => void): Promise<void> {
	const queue = new JobQueue(jobs, run.signal);
	const workers = Math.min(jobs.length, run.policy.maxConcurrent ?? AUTO_CONCURRENCY.max);
	const worker = async () => {
		for (;;) {
			if (run.signal.aborted) return;
			const index = queue.next();
			if (index === undefined) return;
			if (index === WAIT) {
				await queue.changed();
				continue;
			}
			try {
				onResult(index, await send(run, index, jobs[index]!.request));
			} catch (error) {
				// Its wait ended, or its credential cannot be used: nothing of it was sent.
				onResult(index, { ok: false, error: error as Error, fateUnknown: false, neverSent: true });
			} finally {
				queue.done(index);
			}
		}
	};
	await Promise.all(Array.from({ length: workers }, worker));
}

const WAIT = -1;

/** The jobs in input order, holding back a job whose recipient has one under way. */
class JobQueue {
	private cursor = 0;
	/** Jobs passed over while their recipient was busy, now free to go, in input order. */
	private released: number[] = [];
	private readonly held = new Map<string, number[]>();
	private readonly busy = new Set<string>();
	private underway = 0;
	private waiting: Array<() => void> = [];

	constructor(
		private readonly jobs: Array<Job | undefined>,
		stopSignal: AbortSignal,
	) {
		stopSignal.addEventListener('abort', () => this.wakeAll(), { once: true });
	}

	/** The next job to send, WAIT while only a job under way can free one, undefined when none is left. */
	next(): number | undefined {
		if (this.released.length > 0) return this.take(this.released.shift()!);
		while (this.cursor < this.jobs.length) {
			const index = this.cursor++;
			const job = this.jobs[index];
			if (!job) continue;
			if (job.recipient !== undefined && this.busy.has(job.recipient)) {
				const held = this.held.get(job.recipient);
				if (held) held.push(index);
				else this.held.set(job.recipient, [index]);
				continue;
			}
			return this.take(index);
		}
		return this.underway > 0 && this.held.size > 0 ? WAIT : undefined;
	}

	private take(index: number): number {
		const recipient = this.jobs[index]!.recipient;
		if (recipient !== undefined) this.busy.add(recipient);
		this.underway++;
		return index;
	}

	done(index: number): void {
		this.underway--;
		const recipient = this.jobs[index]!.recipient;
		if (recipient !== undefined) {
			this.busy.delete(recipient);
			const held = this.held.get(recipient);
			if (held) {
				const next = held.shift()!;
				if (held.length === 0) this.held.delete(recipient);
				// Keep `released` in input order: a worker takes the earliest first.
				let at = this.released.length;
				while (at > 0 && this.released[at - 1] > next) at--;
				this.released.splice(at, 0, next);
			}
		}
		this.wakeAll();
	}

	private wakeAll(): void {
		const waiting = this.waiting;
		this.waiting = [];
		for (const wake of waiting) wake();
	}

	/** Resolves when a job is done or the run stops (the worker then looks again). */
	async changed(): Promise<void> {
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}
}
