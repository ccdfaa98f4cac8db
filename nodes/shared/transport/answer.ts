import { interruptibleSleep } from './scheduler';
import { scrubSecrets, scrubText } from './secrets';
import type { Secrets } from './secrets';

/**
 * Reading an answer as an untrusted peer sends it: one deadline over the whole answer
 * (headers and body: a body that drips a byte a second must not outlive Timeout), a cap on its
 * size (past it the connection is closed without reading the rest), and parsing that no body
 * can drive into a stack overflow. n8n's request helper hands the body over as a stream
 * (`encoding: 'stream'`); everything after that is done here.
 */

/** The most a send's answer may hold beyond twice its request (the spec's bodies are a few hundred bytes). */
export const SEND_ANSWER_MAX_BYTES = 64 * 1024;
/** The most a list's answer may hold (all of an account's templates, or plants, at once). */
export const LIST_ANSWER_MAX_BYTES = 32 * 1024 * 1024;
/** Deeper JSON is not an answer of this service, and would overflow recursive readers downstream. */
const MAX_JSON_DEPTH = 64;

type BodyRead =
	| { type: 'read'; text: string }
	| { type: 'tooLarge'; maxBytes: number }
	/** The deadline or the run's stop came first; `reason` is the signal's. */
	| { type: 'ended'; reason: unknown }
	/** The connection broke while the body came in. */
	| { type: 'broken'; error: unknown };

interface BodyStream {
	[Symbol.asyncIterator](): AsyncIterator<unknown>;
	destroy?(error?: Error): void;
}

const isStream = (value: unknown): value is BodyStream =>
	typeof value === 'object' && value !== null && typeof (value as BodyStream)[Symbol.asyncIterator] === 'function';

/** Closes a body nobody will read (its connection goes with it). */
export function discard(body: unknown): void {
	if (isStream(body)) body.destroy?.();
}

/** Reasons made once: an abort without one builds a DOMException (and its stack) every time, and every request has a deadline. */
const DEADLINE_PASSED = new Error('deadline');
const TIMER_NOT_NEEDED = new Error('no deadline pending');

interface Deadline {
	/** Aborts when the time is up, or when the run abandons its requests (with that one's reason). */
	signal: AbortSignal;
	/** Whether the time ran out (rather than the run ending it). */
	readonly expired: boolean;
	/** Once it is no longer needed: frees its place among the run's deadlines. */
	clear(): void;
}

/** A deadline as the run keeps it. */
interface Pending {
	ends: AbortController;
	at: number;
	expired: boolean;
}

/**
 * The deadlines of one run's requests, all ended when the run abandons them, through one
 * listener on its signal: EventTarget walks a signal's whole list of listeners on every add and
 * remove, so with 200 requests under way each adding its own, every request paid for the others.
 * One timer serves them all, set for the earliest: a timer per request (a sleep, its promises and
 * listeners, a second AbortController to end it) took an eighth of the node's own CPU in a
 * profile of 2,000 sends. A run's requests share one Timeout, so they fall due in the order they
 * started, and most are answered in that order too (clear finds them near the front).
 */
export class Deadlines {
	/** The deadlines not yet cleared or ended, earliest first. */
	private due: Pending[] = [];
	/** Ends the timer's sleep when it is no longer needed; undefined while no timer is set. */
	private timer: AbortController | undefined;
	private timerAt = Infinity;

	constructor(
		/** Aborted when the run abandons its requests under way. */
		readonly signal: AbortSignal,
	) {
		signal.addEventListener(
			'abort',
			() => {
				const due = this.due;
				this.due = [];
				this.stopTimer();
				for (const pending of due) pending.ends.abort(signal.reason);
			},
			{ once: true },
		);
	}

	/** A deadline `ms` from now that also ends when the run abandons its requests: one signal for both. */
	start(ms: number): Deadline {
		const pending: Pending = { ends: new AbortController(), at: performance.now() + ms, expired: false };
		if (this.signal.aborted) {
			pending.ends.abort(this.signal.reason);
		} else {
			let index = this.due.length;
			while (index > 0 && this.due[index - 1].at > pending.at) index--;
			this.due.splice(index, 0, pending);
			if (pending.at < this.timerAt) this.setTimer(pending.at);
		}
		return {
			signal: pending.ends.signal,
			get expired() {
				return pending.expired;
			},
			clear: () => {
				const index = this.due.indexOf(pending);
				if (index < 0) return;
				this.due.splice(index, 1);
				if (this.due.length === 0) this.stopTimer();
			},
		};
	}

	/** Sets the one timer for `at`, in place of any set before. */
	private setTimer(at: number): void {
		this.stopTimer();
		const timer = new AbortController();
		this.timer = timer;
		this.timerAt = at;
		void interruptibleSleep(at - performance.now(), timer.signal).then(
			() => this.fire(timer),
			() => undefined,
		);
	}

	private stopTimer(): void {
		this.timer?.abort(TIMER_NOT_NEEDED);
		this.timer = undefined;
		this.timerAt = Infinity;
	}

	/** The timer went off: every deadline due by now ends, and the timer is set for the next. */
	private fire(timer: AbortController): void {
		if (this.timer !== timer) return;
		this.timer = undefined;
		this.timerAt = Infinity;
		const now = performance.now();
		let index = 0;
		while (index < this.due.length && this.due[index].at <= now) index++;
		const ended = this.due.slice(0, index);
		this.due = this.due.slice(index);
		if (this.due.length > 0) this.setTimer(this.due[0].at);
		for (const pending of ended) {
			pending.expired = true;
			pending.ends.abort(DEADLINE_PASSED);
		}
	}
}

/**
 * `promise`'s outcome, or `{ ended }` with the signal's reason as soon as it aborts (a value
 * that comes later is handed to `onLate`, to be discarded).
 */
export async function untilAborted<T>(
	promise: Promise<T>,
	signal: AbortSignal,
	onLate: (value: T) => void,
): Promise<{ value: T } | { failed: unknown } | { ended: unknown }> {
	const settled = promise.then(
		(value) => ({ value }),
		(failed: unknown) => ({ failed }),
	);
	let onAbort!: () => void;
	const aborted = new Promise<{ ended: unknown }>((resolve) => {
		onAbort = () => resolve({ ended: signal.reason });
		if (signal.aborted) onAbort();
		else signal.addEventListener('abort', onAbort, { once: true });
	});
	const outcome = await Promise.race([settled, aborted]);
	signal.removeEventListener('abort', onAbort);
	if ('ended' in outcome) void settled.then((late) => 'value' in late && onLate(late.value));
	return outcome;
}

/** What a read that `signal` ended gives instead of a chunk. */
const ENDED = Symbol('ended');

/**
 * Reads a body to its end as text: at most `maxBytes`, and only until `signal` aborts. Each
 * read is raced against the signal, because destroying the stream does not end a read under
 * way: n8n's helper (axios) hands the body over as Readable.from(an async generator), whose
 * destroy() only queues the generator's return behind the read parked on the socket, so a
 * server that sends headers and then nothing, without closing, would hold the read forever.
 */
export async function readBody(body: unknown, maxBytes: number, signal: AbortSignal, contentType?: unknown): Promise<BodyRead> {
	if (!isStream(body)) return { type: 'read', text: typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body) };
	if (signal.aborted) {
		body.destroy?.();
		return { type: 'ended', reason: signal.reason };
	}
	// One listener for the whole body, not one per chunk: it wakes the read under way, and
	// destroys the body so its connection closes as soon as the stream lets it.
	let wake: ((ended: typeof ENDED) => void) | undefined;
	const onAbort = () => {
		wake?.(ENDED);
		body.destroy?.();
	};
	signal.addEventListener('abort', onAbort, { once: true });
	const chunks = body[Symbol.asyncIterator]();
	const decoder = decoderFor(contentType);
	let text = '';
	let bytes = 0;
	try {
		for (;;) {
			// A fresh promise per read (not a race against one shared abort promise, which would
			// keep a reaction per chunk until the body ends); a read that settles after the
			// abort settles a promise nobody awaits, its rejection included.
			const next = await new Promise<IteratorResult<unknown> | typeof ENDED>((resolve, reject) => {
				wake = resolve;
				chunks.next().then(resolve, reject);
			});
			if (next === ENDED) return { type: 'ended', reason: signal.reason };
			if (next.done) break;
			const chunk = next.value;
			const data = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
			bytes += data.byteLength;
			if (bytes > maxBytes) {
				body.destroy?.();
				return { type: 'tooLarge', maxBytes };
			}
			text += decoder.decode(data, { stream: true });
		}
		if (signal.aborted) return { type: 'ended', reason: signal.reason };
		return { type: 'read', text: text + decoder.decode() };
	} catch (error) {
		return signal.aborted ? { type: 'ended', reason: signal.reason } : { type: 'broken', error };
	} finally {
		wake = undefined;
		signal.removeEventListener('abort', onAbort);
	}
}

/**
 * A decoder for the charset the answer declares (a gateway's `iso-8859-1` or `windows-1252` page,
 * outside review: its accents came out as U+FFFD); UTF-8, JSON's own, when it declares none or
 * one no decoder knows.
 */
function decoderFor(contentType: unknown): InstanceType<typeof TextDecoder> {
	const charset = typeof contentType === 'string' ? /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] : undefined;
	if (charset) {
		try {
			return new TextDecoder(charset);
		} catch {
			// An unknown label: read as UTF-8.
		}
	}
	return new TextDecoder();
}

/** A body the node cannot read as an answer. */
export class UnreadableBody {
	constructor(readonly why: string) {}
}

/**
 * The body as the service meant it: JSON when it is JSON (an object, array or value), else the
 * text itself (an HTML page, plain text, an empty body), or UnreadableBody when it is JSON
 * nested deeper than any answer of this service.
 */
export function parseBody(text: string): unknown {
	const trimmed = text.trim();
	if (trimmed === '') return '';
	let value: unknown;
	try {
		value = JSON.parse(trimmed);
	} catch {
		return text;
	}
	return depthOf(value) > MAX_JSON_DEPTH ? new UnreadableBody(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`) : value;
}

/**
 * The body with every secret scrubbed out: as text before it is parsed (a page or text is kept as
 * it came), and again once parsed, because JSON may spell a secret in escapes no text form
 * lists ("\u0052eview-…", PHP's "\/" for "/"), which parsing turns back into the plain secret.
 */
export function parseScrubbed(text: string, secrets: Secrets): unknown {
	const body = parseBody(scrubText(text, secrets, 'long'));
	return body instanceof UnreadableBody ? body : scrubSecrets(body, secrets);
}

/** How deeply objects and arrays nest in `value` (0 for a plain value), without recursion. */
function depthOf(value: unknown): number {
	let deepest = 0;
	const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	while (pending.length > 0) {
		const next = pending.pop()!;
		if (typeof next.value !== 'object' || next.value === null) continue;
		const depth = next.depth + 1;
		if (depth > deepest) deepest = depth;
		if (deepest > MAX_JSON_DEPTH) return deepest;
		for (const element of Object.values(next.value)) if (typeof element === 'object' && element !== null) pending.push({ value: element, depth });
	}
	return deepest;
}
