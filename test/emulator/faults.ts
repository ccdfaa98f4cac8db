/**
 * Fault injection: decides, per API request and before any API logic runs (like a gateway
 * in front of the service), whether the request is answered normally or hit by a fault.
 *
 * Order of precedence for one request:
 *   1. the next `script` step, if any (it alone decides; `ok` = no fault at all);
 *   2. the rate limit (send APIs only);
 *   3. one draw of the seeded RNG against p429, pResetBeforeProcessing,
 *      p5xxAfterProcessing, pSuccessFalse (cumulative; success-false on send APIs only).
 */
import type { Faults, FaultsPatch, RateLimitFault, ScriptStep } from './types';

export type FaultAction =
	| { kind: 'none' }
	| { kind: '429'; retryAfter: string }
	| { kind: 'reset' }
	| { kind: 'hang'; hangMs: number }
	| { kind: '5xx-before'; status: number }
	| { kind: '5xx-after'; status: number }
	| { kind: 'success-false' };

const MAX_HANG_MS = 60_000;
const SCRIPT_STEPS: readonly ScriptStep[] = ['ok', '429', 'reset', '5xx-after', '5xx-before', 'success-false', 'hang'];
const PROBABILITIES = ['p429', 'pResetBeforeProcessing', 'p5xxAfterProcessing', 'pSuccessFalse'] as const;

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
	return {
		latencyMs,
		rateLimit: null,
		p429: 0,
		pResetBeforeProcessing: 0,
		p5xxAfterProcessing: 0,
		pSuccessFalse: 0,
		script: [],
		hangMs: MAX_HANG_MS,
	};
}

/** Validate a partial fault setting (from code or from JSON); throws on anything odd. */
export function validateFaultsPatch(input: unknown): FaultsPatch {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		throw new Error('Faults must be an object');
	}
	const patch = input as Record<string, unknown>;
	const known = ['latencyMs', 'rateLimit', 'script', 'hangMs', 'seed', ...PROBABILITIES];
	for (const key of Object.keys(patch)) {
		if (!known.includes(key)) throw new Error(`Unknown fault '${key}' (known: ${known.join(', ')})`);
	}
	const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
	for (const key of ['latencyMs', 'hangMs', 'seed'] as const) {
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
			(rateLimit.retryAfterFormat === undefined || ['seconds', 'date'].includes(rateLimit.retryAfterFormat));
		if (!ok) {
			throw new Error(
				"Fault 'rateLimit' must be null or {limit, windowMs > 0, retryAfterSeconds?, retryAfterFormat?: 'seconds'|'date'}",
			);
		}
	}
	return patch as FaultsPatch;
}

/** HTTP-date (1 s resolution), rounded up so a client that waits until then is not early. */
function httpDateIn(seconds: number): string {
	return new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000).toUTCString();
}

export class FaultController {
	private current: Faults;
	private random: () => number;
	/** Arrival times (performance.now) of send requests the rate limit let through. */
	private admitted: number[] = [];
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

	set(input: FaultsPatch): void {
		const { seed, ...patch } = validateFaultsPatch(input);
		if (seed !== undefined) this.random = seededRandom(seed);
		if (patch.rateLimit !== undefined) {
			// A new limit starts with an empty window.
			this.admitted = [];
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
		this.admitted = [];
		this.oldest = 0;
	}

	decide(isSend: boolean): FaultAction {
		const step = this.current.script.shift();
		if (step !== undefined) return this.fromScript(step);

		if (isSend && this.current.rateLimit) {
			const limited = this.checkRateLimit(this.current.rateLimit);
			if (limited) return limited;
		}

		const { p429, pResetBeforeProcessing, p5xxAfterProcessing, pSuccessFalse } = this.current;
		// Draw only when a probability is set, so the sequence for a seed starts when a test
		// turns random faults on, whatever traffic came before.
		if (p429 + pResetBeforeProcessing + p5xxAfterProcessing + pSuccessFalse === 0) return { kind: 'none' };
		const u = this.random();
		let edge = p429;
		if (u < edge) return { kind: '429', retryAfter: '1' };
		if (u < (edge += pResetBeforeProcessing)) return { kind: 'reset' };
		if (u < (edge += p5xxAfterProcessing)) return { kind: '5xx-after', status: this.random() < 0.5 ? 500 : 502 };
		if (isSend && u < edge + pSuccessFalse) return { kind: 'success-false' };
		return { kind: 'none' };
	}

	private fromScript(step: ScriptStep): FaultAction {
		switch (step) {
			case 'ok':
				return { kind: 'none' };
			case '429':
				return { kind: '429', retryAfter: '1' };
			case 'reset':
				return { kind: 'reset' };
			case 'hang':
				return { kind: 'hang', hangMs: this.current.hangMs };
			case '5xx-before':
				return { kind: '5xx-before', status: 503 };
			case '5xx-after':
				return { kind: '5xx-after', status: 500 };
			case 'success-false':
				return { kind: 'success-false' };
		}
	}

	/** Sliding window: at most `limit` admitted send requests in any `windowMs`. */
	private checkRateLimit(rule: RateLimitFault): FaultAction | undefined {
		const t = performance.now();
		while (this.oldest < this.admitted.length && this.admitted[this.oldest] <= t - rule.windowMs) this.oldest++;
		if (this.oldest > 4096) {
			this.admitted = this.admitted.slice(this.oldest);
			this.oldest = 0;
		}
		if (this.admitted.length - this.oldest < rule.limit) {
			this.admitted.push(t);
			return undefined;
		}
		const freesInMs = this.oldest < this.admitted.length ? this.admitted[this.oldest] + rule.windowMs - t : rule.windowMs;
		const seconds = rule.retryAfterSeconds ?? Math.max(1, Math.ceil(freesInMs / 1000));
		return { kind: '429', retryAfter: rule.retryAfterFormat === 'date' ? httpDateIn(seconds) : String(seconds) };
	}
}
