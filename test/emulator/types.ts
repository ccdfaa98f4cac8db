/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Public types of the messaging service emulator.
 *
 * Everything a test, a benchmark or the CLI needs to read or switch lives here, so the
 * other files can stay about behaviour.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Which API a request was routed to (`unknown` = no route matched the path). */
export type ApiName =
	| 'send'
	| 'templateSend'
	| 'templates'
	| 'dashboard'
	| 'alternative'
	| 'plantsCreate'
	| 'plantsList'
	| 'plantsDelete'
	| 'unknown';

/** The four APIs that deliver a message (and are subject to the rate-limit fault). */
export type SendApi = 'send' | 'templateSend' | 'dashboard' | 'alternative';

/**
 * What happened to a request.
 * - `pending`: still in flight (latency, or not answered yet).
 * - `delivered`: a send that delivered a message; `ok`: any other successful call.
 * - `rejected`: an error answer from the API itself (auth, validation, account, 404, 405).
 * - `rate-limited`, `reset`, `5xx-after`, `5xx-before`, `success-false`, `hang`: a fault.
 * - `reset-after`, `close-after`, `5xx-ratelimit-text`: a fault after the request was
 *   processed (a send is in `deliveries`, exactly as for `delivered`).
 * - `redirected` (status says which 3xx), `html-200`, `empty-200`, `wrong-shape-200`,
 *   `echo-key`: a fault answered instead of processing (nothing delivered).
 * See faults.ts for what each fault does.
 */
export type Outcome =
	| 'pending'
	| 'delivered'
	| 'ok'
	| 'rejected'
	| 'rate-limited'
	| 'reset'
	| '5xx-after'
	| '5xx-before'
	| 'success-false'
	| 'hang'
	| 'reset-after'
	| 'close-after'
	| 'redirected'
	| 'html-200'
	| 'empty-200'
	| 'wrong-shape-200'
	| '5xx-ratelimit-text'
	| 'echo-key';

/** One received request. Kept small: the bulk tests record 10,000 of them. */
export interface RequestRecord {
	seq: number;
	api: ApiName;
	method: string;
	/** Path without the query string, as received (not percent-decoded). */
	path: string;
	query: Record<string, string>;
	/** Node's header object: names are lower-case. */
	headers: IncomingHttpHeaders;
	/** Parsed JSON, the raw text when it is not JSON, or undefined when there was none. */
	body: unknown;
	/** Arrival time in epoch milliseconds with sub-millisecond resolution. */
	at: number;
	outcome: Outcome;
	/** HTTP status sent; 0 while pending or when the fault never answered (reset, hang). */
	status: number;
}

/** One request that reached the redirect trap (the second origin redirects point at). */
export interface TrapRecord {
	method: string;
	/** Path without the query string, as received. */
	path: string;
	query: Record<string, string>;
	/** Node's header object: names are lower-case. */
	headers: IncomingHttpHeaders;
	/** The body exactly as received ('' when none). */
	body: string;
	at: number;
}

export interface Delivery {
	api: SendApi;
	/** E.164 number the message went to. */
	recipient: string;
	/** Text (direct, dashboard), message (alternative), or `<template_id> <variables JSON>`. */
	content: string;
	at: number;
	/** `seq` of the request that caused it. */
	seq: number;
}

export interface DuplicateDelivery {
	key: string;
	api: SendApi;
	recipient: string;
	content: string;
	count: number;
}

/** Account switches. The object is live: mutate it to change the next answers. */
export interface Account {
	credits: number;
	subscriptionExpired: boolean;
	/** Maximum deliveries to one number (counted over all send APIs). */
	perNumberLimit: number;
	/** Maximum distinct numbers the account may deliver to. */
	uniqueNumberLimit: number;
	/** Numbers that have no account on the messaging platform. */
	notOnPlatform: Set<string>;
}

/** The JSON form of Account (control API): the set becomes an array. */
export interface AccountPatch {
	credits?: number;
	subscriptionExpired?: boolean;
	perNumberLimit?: number;
	uniqueNumberLimit?: number;
	notOnPlatform?: Iterable<string>;
}

/** What each step does: see the table at the top of faults.ts. */
export type ScriptStep =
	| 'ok'
	| '429'
	| 'reset'
	| '5xx-after'
	| '5xx-before'
	| 'success-false'
	| 'hang'
	| 'hang-forever'
	| 'reset-after'
	| 'close-after'
	| 'redirect-301'
	| 'redirect-302'
	| 'redirect-303'
	| 'redirect-307'
	| 'redirect-308'
	| 'html-200'
	| 'empty-200'
	| 'wrong-shape-200'
	| '5xx-ratelimit-text'
	| 'echo-key'
	| 'echo-key-html';

export interface RateLimitFault {
	/** Send requests allowed per window. */
	limit: number;
	windowMs: number;
	/** Fixed Retry-After value; when omitted the real time until the window frees. */
	retryAfterSeconds?: number;
	/** `seconds` (default): `Retry-After: 3`; `date`: an HTTP-date. */
	retryAfterFormat?: 'seconds' | 'date';
	/**
	 * How a refusal is answered: `429` (default) with Retry-After, or `reason`: as spec part 7
	 * condition 7 reports it, a 400 in the API's own error body whose reason is "Rate limit
	 * exceeded (messages per minute or per hour)", with no Retry-After.
	 */
	answer?: '429' | 'reason';
	/**
	 * `sliding` (default): at most `limit` in any `windowMs`. `clock`: at most `limit` in each
	 * window of the wall clock (a counter reset on every multiple of windowMs, as a service that
	 * counts per clock minute does); Retry-After names the time to the next reset. `every`: as
	 * `sliding`, but a refused send is logged too (a sliding log that records each request before
	 * it checks, or a penalty that any request extends): a client that keeps asking while it is
	 * shut keeps it shut.
	 */
	counting?: 'sliding' | 'clock' | 'every';
	/**
	 * A gateway in front of the service with a shorter limit of its own (at most `limit` in any
	 * `windowMs`, sliding), checked first and always answered 429 with the real Retry-After: two
	 * account limits at once, as a per-second gateway limit before a per-minute plan.
	 */
	gateway?: { limit: number; windowMs: number };
}

export interface Faults {
	/** Delay before every API answer (timers; nothing blocks). */
	latencyMs: number;
	/**
	 * Up to this much more, drawn per answer: answers cross on the way back (a refusal can come
	 * back before the acceptances of requests that arrived before it). Decided at arrival, as
	 * the rate limit is.
	 */
	latencyJitterMs: number;
	/** A limit over the send APIs (a sliding window, or the clock's); null = off. */
	rateLimit: RateLimitFault | null;
	/** Probability of 429 + `Retry-After: 1`, request not processed. */
	p429: number;
	/** Probability of destroying the socket without an answer and without processing. */
	pResetBeforeProcessing: number;
	/** Probability of processing fully (delivery, charge) and then answering 500 or 502. */
	p5xxAfterProcessing: number;
	/** Probability (send APIs only) of a 200 whose body reports failure; nothing delivered. */
	pSuccessFalse: number;
	/** Probability of processing, then resetting the connection (RST): client sees ECONNRESET. */
	pResetAfterProcessing: number;
	/** Probability of processing, then closing the connection cleanly without an answer ("socket hang up"). */
	pCloseAfterProcessing: number;
	/** Probability of a 301/302/303/307/308 (picked by the RNG) to the trap; not processed. */
	pRedirect: number;
	/** Probability of a 200 text/html login page instead of the service; not processed. */
	pHtml200: number;
	/** Probability of a 200 with an empty body (application/json); not processed. */
	pEmpty200: number;
	/** Probability of a 200 JSON of another shape (`{status: 'ok', data: null}`); not processed. */
	pWrongShape200: number;
	/** Probability of processing, then a 503 whose text names a rate limit (API's error shape). */
	p5xxRateLimitText: number;
	/** Probability of a 401 (API's error shape) whose message echoes the credential received; not processed. */
	pEchoKey: number;
	/** One step consumed per API request, before the rate limit and the random faults. */
	script: ScriptStep[];
	/** How long a `hang` keeps the socket open before destroying it (capped at 60 s). */
	hangMs: number;
	/**
	 * Retry-After value of every 429 (script, p429, rateLimit), sent verbatim (printable
	 * ASCII, e.g. '-5', 'soon', '259200'); `<date:+N>` / `<date:-N>` become the HTTP-date
	 * N seconds from now. null = the normal value ('1', or the rate limit's).
	 */
	retryAfter: string | null;
	/** Absolute http(s) URL every redirect fault's Location names; null = the trap + the request's path and query. */
	redirectTo: string | null;
}

/** What setFaults and `POST /__emulator/faults` take; `seed` re-seeds the fault RNG. */
export type FaultsPatch = Partial<Faults> & { seed?: number };

/** A template record exactly as spec part 2.5 lists it. */
export interface TemplateRecord {
	id: number;
	user_id: string;
	name: string;
	category: string;
	type: string;
	language: string;
	status: string;
	variable_counts: number;
	template_formate: string;
	template_id: string;
}

/** A change to one template (found by template_id), or a new template. */
export type TemplatePatch = Partial<TemplateRecord> & { template_id: string };

export interface PlantRecord {
	id: number;
	name: string;
	tag?: string;
}

/** What `setAttachment` says about a URL the direct send may be given. */
export interface AttachmentInfo {
	bytes?: number;
	/** false = the URL answers but is not reachable for the service (condition 3). */
	reachable?: boolean;
}

export interface EmulatorTokens {
	bearer: string;
	/** A valid Bearer token whose owner may read but not send (403 on sends). */
	forbiddenBearer: string;
	dashboardKey: string;
	alternativeKey: string;
}

/** Credential data for the three credential types, ready to paste into n8n. */
// A type alias, not an interface, so it can be passed where a Record of credential data is expected.
export type EmulatorCredentials = {
	messagingBearerApi: {
		accessToken: string;
		sendBaseUrl: string;
		templateSendBaseUrl: string;
		templatesBaseUrl: string;
		sandboxBaseUrl: string;
	};
	messagingAuthorizationKeyApi: { apiKey: string; dashboardUrl: string };
	messagingXApiKeyApi: { apiKey: string; apiUrl: string };
};

export interface StartOptions {
	/** 0 (default) = a free port. */
	port?: number;
	/** Baseline latency; resetFaults() returns to it. */
	latencyMs?: number;
	/** Seed of the fault RNG (default 1). */
	seed?: number;
}

export interface Emulator {
	readonly url: string;
	readonly port: number;
	readonly credentials: EmulatorCredentials;
	readonly tokens: EmulatorTokens;
	/** Live account switches (same object across resetAccount/reset). */
	readonly account: Account;
	/** The seeded template records (frozen); what list templates answers until setTemplate. */
	readonly templates: readonly TemplateRecord[];
	/** Change a template as the dashboard would, or add one; reset() brings back the seeds. */
	setTemplate(patch: TemplatePatch): TemplateRecord;
	/** Variable names per template_id, in placeholder order (e.g. body1, body2, media). */
	readonly templateVariables: Readonly<Record<string, readonly string[]>>;
	/** Live list of received API requests (control API calls are not recorded). */
	readonly requests: readonly RequestRecord[];
	/** Live list of delivered messages. */
	readonly deliveries: readonly Delivery[];
	/** Origin of the redirect trap (`http://127.0.0.1:PORT`), a second loopback server. */
	readonly trapUrl: string;
	/** Live list of requests that reached the trap (a client that followed a redirect). */
	readonly trapRequests: readonly TrapRecord[];
	/** Forget the trap's records (reset() does too). */
	clearTrap(): void;
	/** A copy of the current fault settings. */
	readonly faults: Faults;
	/** A copy of the sandbox store, in insertion order. */
	plants(): PlantRecord[];
	setFaults(patch: FaultsPatch): void;
	resetFaults(): void;
	setAccount(patch: AccountPatch): void;
	resetAccount(): void;
	/** Declare size/reachability of an attachment URL for the direct send checks. */
	setAttachment(url: string, info: AttachmentInfo): void;
	/** `${api}|${recipient}|${content}` -> number of deliveries. */
	deliveryCounts(): Map<string, number>;
	duplicates(): DuplicateDelivery[];
	/** Largest number of requests (matching filter) whose `at` falls in any window of windowMs. */
	maxRequestsInWindow(windowMs: number, filter?: (r: RequestRecord) => boolean): number;
	/** Requests, deliveries, trap records, faults, account, plants and attachments back to defaults. */
	reset(): void;
	close(): Promise<void>;
}
