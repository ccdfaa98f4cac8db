/**
 * Fault injection: decides, per API request and before any API logic runs (like a gateway
 * in front of the service), whether the request is answered normally or hit by a fault.
 * server.ts carries the decision out.
 *
 * Order of precedence for one request:
 *   1. the next `script` step, if any (it alone decides; `ok` = no fault at all);
 *   2. the rate limit (send APIs only);
 *   3. one draw of the seeded RNG against the probabilities, cumulative, in the order of
 *      the table below (a seed gives the same sequence as long as the same ones are set).
 *
 * The faults ("processed" = the API logic runs: a send is delivered and counted in
 * `deliveries` exactly as on success, so a client that sends it again makes a duplicate):
 *
 *   script step          probability             processed  what the client gets              outcome
 *   429                  p429                    no         429 + Retry-After (see retryAfter)  rate-limited
 *   reset                pResetBeforeProcessing  no         socket destroyed, no answer         reset
 *   5xx-before           -                       no         503 in the API's error shape        5xx-before
 *   5xx-after            p5xxAfterProcessing     yes        500 (random: 500|502), API shape    5xx-after
 *   success-false        pSuccessFalse           no         200 with a failure body (sends)     success-false
 *   reset-after          pResetAfterProcessing   yes        TCP RST, no answer: ECONNRESET      reset-after
 *   close-after          pCloseAfterProcessing   yes        clean close, no answer: hang up     close-after
 *   redirect-301..308    pRedirect (random 3xx)  no         3xx, Location on the trap origin    redirected
 *   html-200             pHtml200                no         200 text/html login page            html-200
 *   empty-200            pEmpty200               no         200 application/json, empty body    empty-200
 *   wrong-shape-200      pWrongShape200          no         200 {"status":"ok","data":null}     wrong-shape-200
 *   5xx-ratelimit-text   p5xxRateLimitText       yes        503 whose text names a rate limit   5xx-ratelimit-text
 *   echo-key             pEchoKey                no         401 echoing Authorization/X-API-Key echo-key
 *   hang                 -                       no         no answer; socket destroyed after   hang
 *                                                           hangMs (<= 60 s) or client abort
 *   hang-forever         -                       no         no answer until the client gives    hang
 *                                                           up or the emulator stops
 *
 * Other switches: `latencyMs` (delay before every answer), `rateLimit` (a sliding window over
 * the send APIs, or the clock's windows, or a log of every send, refused ones too; with `gateway`, a shorter limit in front), `hangMs`, `retryAfter` (hostile Retry-After on every 429: '-5', 'soon',
 * '259200', `<date:-3600>`, `<date:+259200>`, ...), `redirectTo` (Location of the
 * redirects instead of the trap), `seed` (re-seeds the RNG).
 *
 * The trap (trap.ts) is a second loopback server started with the emulator: it records
 * every request that reaches it (emulator.trapRequests, GET /__emulator/trap) and answers
 * 200 with a plausible success body, so a client that follows a redirect wrongly succeeds.
 */
import type { Faults, FaultsPatch, RateLimitFault, ScriptStep } from './types';

export type NonService200 = 'html-200' | 'empty-200' | 'wrong-shape-200';
export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

export type FaultAction =
	| { kind: 'none' }
	| { kind: '429'; retryAfter: string }
	/** The spec's own form of a rate refusal: 400, the API's error body, no Retry-After. */
	| { kind: 'rate-reason' }
	| { kind: 'reset' }
	| { kind: 'reset-after' }
	| { kind: 'close-after' }
	/** hangMs null = until the client or the emulator's stop closes the socket. */
	| { kind: 'hang'; hangMs: number | null }
	| { kind: '5xx-before'; status: number }
	| { kind: '5xx-after'; status: number }
	| { kind: '5xx-ratelimit-text'; status: number }
	| { kind: 'success-false' }
	| { kind: 'redirect'; status: RedirectStatus; location: string | null }
	| { kind: 'non-service-200'; variant: NonService200 }
	/** `html`: the credential as an HTML page escapes it (every character but letters, digits, `_` and spaces as a decimal entity). */
	| { kind: 'echo-key'; html?: boolean };

type Probability = Extract<keyof Faults, `p${string}`>;

/** What a fault needs to build its action: the settings, the RNG, and the API kind. */
interface Draw {
	settings: Faults;
	random: () => number;
	isSend: boolean;
}

const MAX_HANG_MS = 60_000;
const NONE: FaultAction = { kind: 'none' };
const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 303, 307, 308];

const redirect = (status: RedirectStatus) => (d: Draw): FaultAction => ({ kind: 'redirect', status, location: d.settings.redirectTo });
const nonService = (variant: NonService200) => (): FaultAction => ({ kind: 'non-service-200', variant });

/** Every script step and the action it stands for. */
const SCRIPT_ACTIONS: Record<ScriptStep, (d: Draw) => FaultAction> = {
	ok: () => NONE,
	'429': (d) => tooManyRequests(d.settings, '1'),
	reset: () => ({ kind: 'reset' }),
	'5xx-before': () => ({ kind: '5xx-before', status: 503 }),
	'5xx-after': () => ({ kind: '5xx-after', status: 500 }),
	'success-false': () => ({ kind: 'success-false' }),
	hang: (d) => ({ kind: 'hang', hangMs: d.settings.hangMs }),
	'hang-forever': () => ({ kind: 'hang', hangMs: null }),
	'reset-after': () => ({ kind: 'reset-after' }),
	'close-after': () => ({ kind: 'close-after' }),
	'redirect-301': redirect(301),
	'redirect-302': redirect(302),
	'redirect-303': redirect(303),
	'redirect-307': redirect(307),
	'redirect-308': redirect(308),
	'html-200': nonService('html-200'),
	'empty-200': nonService('empty-200'),
	'wrong-shape-200': nonService('wrong-shape-200'),
	'5xx-ratelimit-text': () => ({ kind: '5xx-ratelimit-text', status: 503 }),
	'echo-key': () => ({ kind: 'echo-key' }),
	'echo-key-html': () => ({ kind: 'echo-key', html: true }),
};

/**
 * The random faults in draw order. The first four come first so that the sequences a
 * seed gave before the others existed stay the same.
 */
const RANDOM_ACTIONS: Record<Probability, (d: Draw) => FaultAction> = {
	p429: (d) => tooManyRequests(d.settings, '1'),
	pResetBeforeProcessing: SCRIPT_ACTIONS.reset,
	p5xxAfterProcessing: (d) => ({ kind: '5xx-after', status: d.random() < 0.5 ? 500 : 502 }),
	pSuccessFalse: (d) => (d.isSend ? { kind: 'success-false' } : NONE),
	pResetAfterProcessing: SCRIPT_ACTIONS['reset-after'],
	pCloseAfterProcessing: SCRIPT_ACTIONS['close-after'],
	pRedirect: (d) => redirect(REDIRECT_STATUSES[Math.floor(d.random() * REDIRECT_STATUSES.length)])(d),
	pHtml200: SCRIPT_ACTIONS['html-200'],
	pEmpty200: SCRIPT_ACTIONS['empty-200'],
	pWrongShape200: SCRIPT_ACTIONS['wrong-shape-200'],
	p5xxRateLimitText: SCRIPT_ACTIONS['5xx-ratelimit-text'],
	pEchoKey: SCRIPT_ACTIONS['echo-key'],
};

const SCRIPT_STEPS = Object.keys(SCRIPT_ACTIONS) as ScriptStep[];
const PROBABILITIES = Object.keys(RANDOM_ACTIONS) as Probability[];

/** A 429 with the configured hostile Retry-After, or `normal` when none is set. */
function tooManyRequests(settings: Faults, normal: string): FaultAction {
	const date = settings.retryAfter === null ? null : /^<date:([+-]\d+)>$/.exec(settings.retryAfter);
	const retryAfter = date ? httpDateIn(Number(date[1])) : (settings.retryAfter ?? normal);
	return { kind: '429', retryAfter };
}

/** mulberry32: tiny, fast, and the same sequence for the same seed on every machine. */
function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function defaultFaults(latencyMs: number): Faults {
	const probabilities = Object.fromEntries(PROBABILITIES.map((p) => [p, 0])) as Record<Probability, number>;
	return { latencyMs, latencyJitterMs: 0, rateLimit: null, ...probabilities, script: [], hangMs: MAX_HANG_MS, retryAfter: null, redirectTo: null };
}

/** Validate a partial fault setting (from code or from JSON); throws on anything odd. */
export function validateFaultsPatch(input: unknown): FaultsPatch {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		throw new Error('Faults must be an object');
	}
	const patch = input as Record<string, unknown>;
	const known = ['latencyMs', 'latencyJitterMs', 'rateLimit', 'script', 'hangMs', 'seed', 'retryAfter', 'redirectTo', ...PROBABILITIES];
	for (const key of Object.keys(patch)) {
		if (!known.includes(key)) throw new Error(`Unknown fault '${key}' (known: ${known.join(', ')})`);
	}
	const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
	for (const key of ['latencyMs', 'latencyJitterMs', 'hangMs', 'seed'] as const) {
		if (patch[key] !== undefined && !(isNumber(patch[key]) && (patch[key] as number) >= 0)) {
			throw new Error(`Fault '${key}' must be a number >= 0`);
		}
	}
	for (const key of PROBABILITIES) {
		const p = patch[key];
		if (p !== undefined && !(isNumber(p) && p >= 0 && p <= 1)) {
			throw new Error(`Fault '${key}' must be a probability between 0 and 1`);
		}
	}
	if (patch.script !== undefined) {
		if (!Array.isArray(patch.script) || patch.script.some((s) => !SCRIPT_STEPS.includes(s as ScriptStep))) {
			throw new Error(`Fault 'script' must be an array of ${SCRIPT_STEPS.join(' | ')}`);
		}
	}
	// Printable ASCII only: anything else could not be sent as a header value at all.
	if (patch.retryAfter !== undefined && patch.retryAfter !== null && !(typeof patch.retryAfter === 'string' && /^[\x20-\x7e]*$/.test(patch.retryAfter))) {
		throw new Error("Fault 'retryAfter' must be null or a string of printable ASCII");
	}
	if (patch.redirectTo !== undefined && patch.redirectTo !== null && !isHttpUrl(patch.redirectTo)) {
		throw new Error("Fault 'redirectTo' must be null or an absolute http(s) URL");
	}
	const rateLimit = patch.rateLimit as Partial<RateLimitFault> | null | undefined;
	if (rateLimit !== undefined && rateLimit !== null) {
		const ok =
			typeof rateLimit === 'object' &&
			isNumber(rateLimit.limit) &&
			rateLimit.limit >= 0 &&
			isNumber(rateLimit.windowMs) &&
			rateLimit.windowMs > 0 &&
			(rateLimit.retryAfterSeconds === undefined ||
				(isNumber(rateLimit.retryAfterSeconds) && rateLimit.retryAfterSeconds >= 0)) &&
			(rateLimit.retryAfterFormat === undefined || ['seconds', 'date'].includes(rateLimit.retryAfterFormat)) &&
			(rateLimit.answer === undefined || ['429', 'reason'].includes(rateLimit.answer)) &&
			(rateLimit.counting === undefined || ['sliding', 'clock', 'every'].includes(rateLimit.counting)) &&
			(rateLimit.gateway === undefined ||
				(typeof rateLimit.gateway === 'object' &&
					rateLimit.gateway !== null &&
					isNumber(rateLimit.gateway.limit) &&
					rateLimit.gateway.limit >= 0 &&
					isNumber(rateLimit.gateway.windowMs) &&
					rateLimit.gateway.windowMs > 0));
		if (!ok) {
			throw new Error(
				"Fault 'rateLimit' must be null or {limit, windowMs > 0, retryAfterSeconds?, retryAfterFormat?: 'seconds'|'date', answer?: '429'|'reason', counting?: 'sliding'|'clock'|'every', gateway?: {limit, windowMs > 0}}",
			);
		}
	}
	return patch as FaultsPatch;
}

function isHttpUrl(value: unknown): boolean {
	if (typeof value !== 'string') return false;
	try {
		return ['http:', 'https:'].includes(new URL(value).protocol);
	} catch {
		return false;
	}
}

/** HTTP-date (1 s resolution), rounded up so a client that waits until then is not early. */
function httpDateIn(seconds: number): string {
	return new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000).toUTCString();
}

export class FaultController {
	private current: Faults;
	private random: () => number;
	/** Arrival times (performance.now) of the send requests the rate limit counts: those it let through (with `counting: 'every'`, those it refused too). */
	private counted: number[] = [];
	private oldest = 0;

	constructor(
		private readonly baselineLatencyMs: number,
		private readonly seed: number,
	) {
		this.current = defaultFaults(baselineLatencyMs);
		this.random = seededRandom(seed);
	}

	/** A copy, so callers cannot change settings behind the controller's back. */
	get settings(): Faults {
		return {
			...this.current,
			rateLimit: this.current.rateLimit && { ...this.current.rateLimit },
			script: [...this.current.script],
		};
	}

	get latencyMs(): number {
		return this.current.latencyMs;
	}

	/** The delay of one answer: the latency, and a draw of the jitter when there is one (none drawn otherwise: the fault sequences stay as they were). */
	answerDelayMs(): number {
		const { latencyMs, latencyJitterMs } = this.current;
		return latencyJitterMs > 0 ? latencyMs + Math.round(this.random() * latencyJitterMs) : latencyMs;
	}

	set(input: FaultsPatch): void {
		const { seed, ...patch } = validateFaultsPatch(input);
		if (seed !== undefined) this.random = seededRandom(seed);
		if (patch.rateLimit !== undefined) {
			// A new limit starts with an empty window.
			this.counted = [];
			this.oldest = 0;
		}
		this.current = {
			...this.current,
			...patch,
			hangMs: Math.min(patch.hangMs ?? this.current.hangMs, MAX_HANG_MS),
			rateLimit: patch.rateLimit === undefined ? this.current.rateLimit : patch.rateLimit && { ...patch.rateLimit },
			script: patch.script ? [...patch.script] : this.current.script,
		};
	}

	reset(): void {
		this.current = defaultFaults(this.baselineLatencyMs);
		this.random = seededRandom(this.seed);
		this.counted = [];
		this.oldest = 0;
	}

	decide(isSend: boolean): FaultAction {
		const draw: Draw = { settings: this.current, random: this.random, isSend };
		const step = this.current.script.shift();
		if (step !== undefined) return SCRIPT_ACTIONS[step](draw);

		if (isSend && this.current.rateLimit) {
			const limited = this.checkRateLimit(this.current.rateLimit);
			if (limited) return limited;
		}

		// Draw only when a probability is set, so the sequence for a seed starts when a test
		// turns random faults on, whatever traffic came before.
		if (PROBABILITIES.every((p) => this.current[p] === 0)) return NONE;
		const u = this.random();
		let edge = 0;
		for (const p of PROBABILITIES) {
			edge += this.current[p];
			if (u < edge) return RANDOM_ACTIONS[p](draw);
		}
		return NONE;
	}

	/**
	 * At most `limit` admitted send requests in any `windowMs` (sliding), or in each window of the
	 * clock (`counting: 'clock'`: a counter reset whenever the wall clock passes a multiple of
	 * windowMs, as a service counting per clock minute does), or at most `limit` send requests,
	 * refused ones included, in any `windowMs` (`counting: 'every'`).
	 */
	private checkRateLimit(rule: RateLimitFault): FaultAction | undefined {
		const t = performance.now();
		const { gateway } = rule;
		while (this.oldest < this.counted.length && this.counted[this.oldest] <= t - Math.max(rule.windowMs, gateway?.windowMs ?? 0)) this.oldest++;
		if (this.oldest > 4096) {
			this.counted = this.counted.slice(this.oldest);
			this.oldest = 0;
		}
		// The gateway first: its own window, its 429 naming when that frees.
		if (gateway) {
			const inGateway = this.counted.length - this.firstAfter(t - gateway.windowMs);
			if (inGateway >= gateway.limit) {
				const freesInMs = gateway.limit > 0 ? this.counted[this.counted.length - gateway.limit] + gateway.windowMs - t : gateway.windowMs;
				return tooManyRequests(this.current, String(Math.max(1, Math.ceil(freesInMs / 1000))));
			}
		}
		// The clock window's start, on the performance.now() scale of `counted` (never before the sliding window's: those are pruned).
		const wallNow = performance.timeOrigin + t;
		const clockStart = rule.counting === 'clock' ? t - (wallNow % rule.windowMs) : undefined;
		let first = this.firstAfter(t - rule.windowMs);
		if (clockStart !== undefined) while (first < this.counted.length && this.counted[first] < clockStart) first++;
		if (this.counted.length - first < rule.limit) {
			this.counted.push(t);
			return undefined;
		}
		// A limiter that logs every request it saw: a refused one fills the window too.
		if (rule.counting === 'every') this.counted.push(t);
		if (rule.answer === 'reason') return { kind: 'rate-reason' };
		const freesInMs =
			clockStart !== undefined ? clockStart + rule.windowMs - t : first < this.counted.length ? this.counted[first] + rule.windowMs - t : rule.windowMs;
		const seconds = rule.retryAfterSeconds ?? Math.max(1, Math.ceil(freesInMs / 1000));
		return tooManyRequests(this.current, rule.retryAfterFormat === 'date' ? httpDateIn(seconds) : String(seconds));
	}

	/** Index of the first counted send after `time` (from the oldest kept). */
	private firstAfter(time: number): number {
		let first = this.oldest;
		while (first < this.counted.length && this.counted[first] <= time) first++;
		return first;
	}
}
