import { sleep } from 'n8n-workflow';

import { countBounds, countWithin, distinctTimes, estimateLimit, indexAfter } from './limitEstimate';
import type { Limit, LimitChoice, LimitEvidence } from './limitEstimate';

/**
 * When a request may start. One Account per credential and limit in this process (the API
 * groups that count toward one: SERVICE_APIS' `limitGroup`, the two sends sharing theirs) holds
 * everything every run using them shares: the requests under way, what the service accepted
 * and refused, the limit learned from its refusals, the adaptive concurrency. A run brings its
 * own limits (the node's options) and its stop signal with each request it queues.
 *
 * The rules, each stated once:
 * 1. A place is taken only for one attempt: `acquire` gives a Ticket, and the caller finishes
 *    it exactly once with what the answer meant (a `finally` does). Nothing is held across a
 *    backoff or a pause, so no path can leave a place taken. The request goes out once the
 *    Ticket's `begin` lets it, two per turn of the event loop (BEGINS_PER_TURN); a run stopped
 *    meanwhile finishes it unsent.
 * 2. The run with the fewest requests under way goes first (a one-item webhook execution is not
 *    queued behind a bulk run, nor behind the bulk run's refused sends while a limit is being
 *    found); then a request tried again, at the place in line of its first try (refused sends
 *    keep their order); then first come first served. What holds the
 *    account holds every request alike; what is a run's own (its limits, its Max Wait, its
 *    number of requests at once) holds no other run's.
 * 3. Concurrency: the number the user set, counted over the run, or with Share Limits over every
 *    request of the account. Otherwise Auto, an AIMD limit over the account: one request first
 *    (unanswered, one more after a second, then after two and four more: HUNG_OPENING_MS), then
 *    rounds of 32, each starting once the last is answered or a second after its first answer,
 *    until a whole round of 32 comes back with no rate refusal and nothing abandoned;
 *    from then on +1 per answer while at least half the limit is in use and latency holds; x0.9
 *    for each request that fails; and when latency rises well above its floor (the lowest its
 *    short average fell to), by as much as it rose (x0.5 to x0.9), once per round trip (only the
 *    answer to a request started after the last cut cuts again). A rate refusal is not
 *    congestion: rule 5 paces it.
 * 4. The user's per-second/per-minute limits: starts spaced evenly from the run's start and
 *    never more than the limit in any window (a request counts from its start until a window
 *    after its answer).
 * 5. A rate refusal:
 *    a. pauses the account. Its probes go at least 250 ms apart (a batch goes together), the
 *       last at Max Wait.
 *    b. With Retry-After, nothing starts until then; then as many probes go at once as the
 *       service had accepted (one at a time once a probe after a named time was refused).
 *    c. Without, one probe goes at a time, each when the next round window length (1 s, 5 s, a
 *       minute, ...) has passed since the oldest answer still counted toward the service's
 *       window (it admits the next one once that answer leaves its window); sooner, when a limit
 *       learned beside (rule 5f) held its count as learned at the refusal, once that one frees a
 *       place (one probe then; refused, the round lengths go on). (A creep of 100 a minute
 *       refused in a real n8n: probed at 45 s and then 60 s from an answer of the second's window,
 *       the probe came 13 s after the clock minute had reset.)
 *    d. An accepted probe ends the pause (probes of its batch refused after it go again under
 *       the limit it taught, their Retry-After holding, and begin no new pause) and teaches the
 *       limit. Its window is at least the time from the oldest answer the refusal counted (back
 *       to a quiet second, or two of the fastest round trips against a slow service; under a
 *       learned limit, its window, or when that held none, the learned count's latest answers
 *       that may have been in it) to the probe (the round length below it, when a whole-second
 *       Retry-After made the probe late). It keeps the window learned before while this refusal
 *       came with it full and it still fits every refusal since the pause before and every
 *       answer accepted (limitEstimate.ts: the window before each refusal was full, none held
 *       more than the limit), else learns the shortest that fits of that window and the round
 *       ones up to four times as long: the last burst alone may have filled only part of the
 *       window. The count is what the window held at the refusal, within what fits. When none
 *       fits, or the service took more than the learned count within the learned window (a
 *       counter reset on the clock, a token bucket, a plan raised), it learns what the service
 *       accepted in that time (at least the learned count when none started with the refused
 *       request got past and the window found is longer: it had not reopened). A pause in which
 *       more of the requests started after the refused one were accepted than the others under
 *       way were refused teaches nothing: a full window refuses everything that reaches it after
 *       (requests started together reach it in any order), so that refusal was a stray one.
 *    e. From then on the account never has more than that many in such a window, in every run
 *       (a request counted half the fastest round trip before its answer: the service counted it
 *       earlier, by at least the way back of the answer, and the next request still has its way
 *       there to go; together those take about a whole round trip). The count creeps up by 5%
 *       once ten windows' worth were accepted at it without a refusal (a plan may be raised;
 *       idle time shows nothing), then every five windows' worth by twice the step before (at most
 *       25%) while none is refused (CREEP_AFTER_WINDOWS), and is learned again at the next refusal.
 *    f. Two limits at once (a gateway's per-second limit in front of the plan's per-minute one):
 *       a limit learned over a longer window does not replace the one learned before while that
 *       one still holds (the service never took more than twice it within its window: a counter
 *       reset on the clock lets the end of one window and the start of the next through) and is still
 *       needed (the longer one does not explain the refusals it was learned from); the two hold
 *       together, each learned, crept and judged as above. When no one limit fits at all, the
 *       refusals the one before does not explain (the window before them held fewer than it
 *       allows: probes refused long after it emptied) teach the longer one, and when none fits
 *       those either, what the service took within the window the pause found. The times a
 *       Retry-After named, less a second of its rounding, count as refusals too (the window was
 *       still full then), for a longer window, never for a smaller count. A limit beside holds more
 *       than twice the count the one before was learned with, and the service stayed shut over
 *       twice that one's window: a counter reset on the clock, first seen in part, shows no more.
 *       The longer one creeps as the other; a plan raised past it is met at that pace.
 *    g. A service may count the requests it refuses too (a sliding log that records each request
 *       before it checks it): then each refused probe holds its window shut for a window more, and
 *       the requests refused with the first one hold it until they leave. So a pause spends at most
 *       two fewer refused probes than the service accepted in the minute before it (at least
 *       three; the lengths services use most, when that is fewer than the round lengths under a
 *       minute), then only the minute and longer. Those go from the last refusal of the
 *       requests under way with the first (within a second of it), and also from the oldest answer
 *       when that is more than a second older; Max Wait counts from that refusal too.
 *    h. A refusal under the limit learned, when the accepted answers fill no learned limit's window
 *       but the node's own requests refused for rate with them fill it, shows that the service
 *       counts those too: from then on the learned limits count them in admission, a pause
 *       probes once enough of them have left the window, and a refusal they explain teaches no
 *       smaller count, only takes back the creep (5e). (Counted without them, each pause taught
 *       less: 3 a minute for 10.)
 * 6. A pause longer than a run's Max Wait (counted from the pause, or from the last refusal of the
 *    requests under way with its first, rule 5g; or from the run's start when it started later)
 *    fails that run's waiting requests with LimitNotReopenedError (a last probe goes at Max Wait,
 *    unless that is 0, which asks for no wait; a probe already under way then, another run's or one
 *    that hangs, is waited for a second more, or two of the fastest round trips when that is
 *    longer), and so does a Retry-After reaching further than Max Wait; an aborted run signal takes
 *    its waiters out at once.
 * 7. A pause lasts only while something waits on it: once no request is in line and no probe
 *    is under way (the runs stopped, were cancelled, gave up at Max Wait, or their last items
 *    failed), it ends. What it knew belongs to its probe schedule, and a pause nobody probes goes
 *    stale: a later run would fail at once without a request, or learn an hour for a minute from
 *    a probe that went late. Its Retry-After goes with it: one longer than every waiting run's
 *    Max Wait would otherwise hold every later execution, with no request, for as long as it
 *    said (a proxy's error page said a day, a date in 2099 seventy years). A later run asks the
 *    service again, one request, and is told the time again if it still holds; the next refusal
 *    begins a new pause. With nothing accepted since the pause that ended, and about when its next
 *    probe was due, that pause would have been waiting still: the new pause counts from its oldest
 *    answer, and its probes go on from where they were.
 */

/** The limits the user set on the node for one run. */
export interface UserLimits {
	/** Requests under way at once; undefined = Auto. */
	maxConcurrent?: number;
	/** 0 = no limit. */
	maxPerSecond: number;
	/** 0 = no limit. */
	maxPerMinute: number;
	/** The longest the run waits for a limit to reopen. */
	maxWaitMs: number;
}

/** What an answer meant for the account. */
export type Outcome =
	/** The service answered and acted or judged the request itself (a success, or a refusal not about rate). */
	| { type: 'answered' }
	/** Refused for rate: nothing was done. */
	| { type: 'refused'; retryAfterMs?: number; retryAfterGraceMs?: number }
	/** No useful answer: connection failure, timeout, 5xx. */
	| { type: 'failed' }
	/**
	 * Under way when its run stopped or was cancelled, and given up: it went out (it counts in the
	 * windows), but its fate says nothing of the service (no latency, no refusal, no failure).
	 */
	| { type: 'abandoned' };

export interface Ticket {
	/** The request's place in line, from its first try: a try again passes it back to keep it. */
	readonly place: number;
	/**
	 * Waits for the request's turn to go out (BEGINS_PER_TURN), then counts its round trip from now.
	 * The place is held meanwhile. A run stopped in that wait finishes the ticket unsent (abandoned)
	 * and rejects with the stop's reason, as `acquire` does for a request still in line.
	 */
	begin(): Promise<void>;
	/** Once, when the attempt is over; later calls do nothing. */
	finish(outcome: Outcome): void;
}

/** The run's side of the scheduler: its limits, its stop signal, and its own counts for limits it does not share. */
export interface RunLane {
	limits: UserLimits;
	/** Whether the user's limits count every run sharing the account (Share Limits Across Executions). */
	shareLimits: boolean;
	signal: AbortSignal;
	/** When the run started (pacing counts from here). */
	since: number;
	/** This run's own counts, for limits it does not share. */
	own: Counts;
}

export class LimitNotReopenedError extends Error {
	constructor(
		/** How long the service has been refusing (ms). */
		readonly refusingForMs: number,
		/**
		 * How many the account accepted in the hour before (answers are kept that long): what an
		 * hourly limit took. Counted in the learned window, a learned 5 a minute said "accepted 5"
		 * where the run had 15 accepted.
		 */
		readonly acceptedBefore: number,
		readonly maxWaitMs: number,
		/** When the service asked for a wait longer than Max Wait (Retry-After), that wait. */
		readonly askedMs?: number,
	) {
		super('The account rate limit did not reopen within Max Wait');
	}
}

export interface Clock {
	now(): number;
	/** Resolves after `ms`, or rejects at once when `signal` aborts. */
	sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Longest single timer: Node's setTimeout overflows past 2^31-1 ms and would fire at once. */
const MAX_TIMER_MS = 3_600_000;

/**
 * Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted.
 * n8n-workflow's sleep takes the signal in n8n 2.x; the race keeps waits interruptible on
 * versions whose sleep ignores it.
 */
export async function interruptibleSleep(ms: number, signal: AbortSignal): Promise<void> {
	if (signal.aborted) throw signal.reason;
	let onAbort!: () => void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(signal.reason as Error);
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(Math.min(Math.max(0, ms), MAX_TIMER_MS), signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** Ends the pump's sleep when something changed (made once: an abort without a reason builds a DOMException each time). */
const WOKEN = new Error('woken');

/**
 * Milliseconds on a clock that only moves forward, in the range of Date.now(): the system clock
 * may be stepped (NTP, a VM resumed), and a step back of an hour would hold a paced run for an
 * hour, one forward would end a Retry-After or Max Wait at once. Whole milliseconds, as Date.now()
 * gives them: the rules compare times to the millisecond (a probe "at Max Wait" must not go a
 * fraction before it).
 */
export const monotonicNow = (): number => Math.floor(performance.timeOrigin + performance.now());

const realClock: Clock = { now: monotonicNow, sleep: interruptibleSleep };

/** Answer times in order, oldest first, with a count of those after a time in O(log n). */
class TimeLog {
	private times: number[] = [];
	private first = 0;

	add(time: number): void {
		// Never before the last one: should the clock step back, a window must not shrink.
		this.times.push(Math.max(time, this.times.at(-1) ?? time));
	}

	/** Index of the first time after `after`. */
	private indexAfter(after: number): number {
		return indexAfter(this.times, after, this.first);
	}

	countAfter(after: number): number {
		return this.times.length - this.indexAfter(after);
	}

	/** How many are after `after` and at or before `until` (limitEstimate's countWithin, over the log). */
	countWithin(after: number, until: number): number {
		return this.indexAfter(until) - this.indexAfter(after);
	}

	/** The times after `after`, at most the `most` latest of them. */
	after(after: number, most: number): number[] {
		return this.times.slice(Math.max(this.indexAfter(after), this.times.length - most));
	}

	/** The `k`-th (0 = oldest) of the times after `after`. */
	nthAfter(after: number, k: number): number | undefined {
		return this.times[this.indexAfter(after) + k];
	}

	get last(): number | undefined {
		return this.times.length > this.first ? this.times[this.times.length - 1] : undefined;
	}

	/** Forgets times at or before `before` (in chunks: each is moved once on average). */
	forget(before: number): void {
		this.first = this.indexAfter(before);
		if (this.first > 1024 && this.first * 2 > this.times.length) {
			this.times = this.times.slice(this.first);
			this.first = 0;
		}
	}
}

/** Requests under way and answered, for one owner of limits (an account, or a run that keeps its own). */
export class Counts {
	inFlight = 0;
	readonly answers = new TimeLog();
	/** When the last start was due by the per-second/per-minute spacing. */
	lastStart = 0;
}

const WINDOWS = [
	{ lengthMs: 1_000, limitOf: (limits: UserLimits) => limits.maxPerSecond },
	{ lengthMs: 60_000, limitOf: (limits: UserLimits) => limits.maxPerMinute },
];

/** A margin for clocks and timers when a window frees up. */
const marginMs = (lengthMs: number) => Math.max(5, lengthMs * 0.01);

/** How far the spacing may fall behind and still be made up: one per-second window. */
const CATCH_UP_MS = 1_000;

/** How long answers are kept: the longest window the node can learn (Max Wait's upper bound). */
const KEPT_MS = 3_600_000;

/**
 * Auto's sizes (rule 3). One request first: a refused key, an empty balance or an unreadable
 * answer costs one call and puts at most one message in doubt (one that hangs, at most four:
 * HUNG_OPENING_MS). Then 32 (Netflix's
 * concurrency-limits start at 20), up to 200 (Netflix's cap): against a slow service rising
 * latency shrinks it long before that; against a fast one n8n's own CPU is the bottleneck, and
 * at 64 the node sat idle between answers.
 */
export const AUTO_CONCURRENCY = { initial: 1, opened: 32, max: 200 } as const;

/**
 * n8n's own event loop, as Auto's second signal. Against a fast service n8n's CPU is the
 * bottleneck long before 200: the answers queue up in the process, and each turn of its event
 * loop reads a hundred of them before it serves anything else. Latency rose with it, but the
 * floor it is measured against rose too, and in a real n8n a Stop from the editor took 1.2-2.7 s
 * (about 1,000 messages went after the click; 89 ms at 32 in flight). So while requests are under
 * way a timer of LOOP_PROBE_MS is watched. Once it has fired more than LOOP_ON_TIME_MS late, the
 * loop is known to be this account's limit: from then on Auto grows by at most
 * GROWTH_PER_ON_TIME_PROBE after each timer that fires on time, not at all after a late one (grown
 * per answer, it outran the watch), and backs off by 0.9 after each more than LOOP_LATE_MS late,
 * down to the opening round. Below that round, a busy machine's lateness (other processes) would
 * slow every run for nothing.
 */
const LOOP_PROBE_MS = 50;
const LOOP_ON_TIME_MS = 20;
const LOOP_LATE_MS = 50;
const GROWTH_PER_ON_TIME_PROBE = 4;

/** A signal for the loop watch's timers, which end by themselves. */
const NEVER = new AbortController().signal;

/**
 * How many of an account's requests go out in one turn of the event loop. Requests let go
 * together (a round of Auto, the places a burst of answers frees) are prepared by n8n's request
 * helper side by side, one step of each before the next, so all are written at once, reach the
 * service at once and come back at once: against a service that answers in a steady time, the
 * requests under way then move in waves, and n8n sits idle between them (10-37% of the sending at
 * 20 ms). Two at a time, the loop reading the answers that came meanwhile before the next two, go
 * out as they are ready and the answers spread out: 2,000 sends at 20 ms went 1.14x as fast
 * (median of 12 interleaved pairs; an earlier form in the pump, 1.12-1.20x in 20 pairs, and with
 * 3 at a time 1.10x, 4 1.14x, one at a time 0.99x).
 */
const BEGINS_PER_TURN = 2;

/**
 * The window lengths services count in, in seconds: round numbers, a second, a minute, an hour
 * and the steps between, each at most half as long again as the one before. Without Retry-After a
 * probe goes when the next of these has passed since the oldest counted answer, so a window of
 * one of these lengths is met the moment it reopens, and any other is overshot by under a half.
 */
const ROUND_WINDOWS_MS = [
	0.25, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 7.5, 10, 12, 15, 20, 30, 40, 45, 60,
	90, 120, 180, 240, 300, 360, 450, 600, 900, 1200, 1800, 2400, 2700, 3600,
].map((seconds) => seconds * 1_000);

/**
 * Rule 5g: a service may count the requests it refuses in its window too (a sliding log that
 * records each request before it checks it, a penalty each request extends). Then every refused
 * probe of a pause keeps its window shut: the 17 round lengths within a minute kept a limit of 10
 * a minute shut until Max Wait. So a pause spends at most PROBE_BUDGET_BELOW fewer refused probes
 * than the service accepted in the minute before it (a limit over a minute is at least that many),
 * never fewer than PROBE_BUDGET_LEAST (a per-second limit of 1 or 2 is still found within seconds). With
 * fewer than the round lengths under a minute, it probes at the lengths services most often use, in
 * this order of preference: a second, ten, five, thirty, two, fifteen, forty-five, three, ... (with a
 * budget of 8, a clock window of 5 s begun 2 s in still reopens at a length probed: 3 s). Once the
 * budget is spent, only the minute and the lengths after it are left, and the minute's probe finds
 * room.
 */
const PROBE_BUDGET_BELOW = 2;
const PROBE_BUDGET_LEAST = 3;
const PREFERRED_ROUND_WINDOWS_MS = [1, 10, 5, 30, 2, 15, 45, 3, 20, 4, 6, 7.5, 12, 40, 1.5, 0.5, 0.25].map((seconds) => seconds * 1_000);
const MINUTE_MS = 60_000;

/**
 * Rule 5g: requests under way when a pause began and refused too are counted from their refusals,
 * up to this long after the first one: a service that counts refused requests holds them in its
 * window until they leave it.
 */
const UNDER_WAY_REFUSALS_MS = 1_000;

/** Auto's opening rounds wait this long past a round's first answer for the rest of it. */
const ROUND_STRAGGLERS_MS = 1_000;

/**
 * Auto's one request first (rule 3) that gets no answer: one more goes after this long (or four
 * of the fastest round trips, when longer), then after twice as long, at most HUNG_OPENING_MAX
 * more. Held until its Timeout, one request that hung held every execution of the credential for
 * 30 s (an outside review: a burst of 20 webhook executions behind the first one's send); one
 * more at once each time would put a message in doubt per second against a service that is down.
 */
const HUNG_OPENING_MS = 1_000;
const HUNG_OPENING_MAX = 3;

/** One of Auto's opening rounds: how many it may start, and what came back. */
interface Round {
	id: number;
	size: number;
	started: number;
	answered: number;
	refused: boolean;
	/** A request of it was abandoned: the round did not show that a burst is taken. */
	abandoned: boolean;
	firstAnswerAt?: number;
}

const newRound = (id: number): Round => ({ id, size: 0, started: 0, answered: 0, refused: false, abandoned: false });

/** How long past a run's Max Wait a probe already under way is waited for (rule 6). */
const LAST_PROBE_ANSWER_MS = 1_000;

/** Probes of one pause are at least this far apart. */
const PROBE_MIN_GAP_MS = 250;

/** The most answers a limit is estimated from (rule 5d): the latest ones. */
const ESTIMATE_ANSWERS = 20_000;

/**
 * How much longer than the time this pause took to reopen a learned window may be (rule 5d). Long
 * windows fit at about the pace the account was sent at, whatever the limit (the count grows with
 * the window): chosen for it after refusals another client of the account caused, 239 per 2
 * minutes was learned for 20 per 10 s, and whole bursts of it were refused.
 */
const MAX_WINDOW_GROWTH = 4;

/** How many of the latest round trips set that tolerance. */
const KEPT_ROUND_TRIPS = 100;

/** The least two answer times are taken to be off from the service's counting (rule 5d). */
const ESTIMATE_TOLERANCE_MS = 20;

/**
 * A learned limit creeps up once this many windows' worth were accepted at it without a refusal,
 * by CREEP_FIRST; then, while no refusal comes, again after CREEP_AGAIN_AFTER_WINDOWS, each time
 * by twice as much as the time before (at most CREEP_MOST). A limit learned below the
 * account's (a plan raised; another credential of the account sending too, in an outside review:
 * left alone, one crept from 1 per 10 s by one per ten windows for minutes) is found in a few
 * dozen windows, not hundreds; a limit that holds costs one refusal per ten windows, as before.
 * (Doubling every two windows, up to twice the count, drew 527 refusals where a token bucket's
 * test allows 300.)
 */
const CREEP_AFTER_WINDOWS = 10;
const CREEP_AGAIN_AFTER_WINDOWS = 5;
const CREEP_FIRST = 0.05;
const CREEP_MOST = 0.25;

/** A limit learned from the service's refusals: at most `count` answers in any `windowMs`. */
interface LearnedLimit {
	count: number;
	windowMs: number;
	/** The count before its latest creep (as learned, when it never crept): a refusal of the creep goes back to it. */
	base: number;
	/** Answers accepted since it was learned or last crept up (creep). */
	acceptedSince: number;
	/** Creeps since it was learned or last refused: the next one is bigger and comes sooner (creep). */
	creeps?: number;
	/** The refusals it was learned from (rule 5f: a longer limit learned later replaces it only when it explains them too). */
	taughtBy: number[];
	/** Its count when last learned from a pause, before any creep (rule 5f). */
	asLearned: number;
}

/** The service is refusing for rate: probes until it accepts again. */
interface Pause {
	since: number;
	/** The oldest answer counted toward the service's window when it first refused. */
	oldest: number;
	/** How many it had accepted in that window (answers of requests started before the refused one, whenever they come). */
	accepted: number;
	/** When the next probe may go (Retry-After, or the probe schedule). */
	nextProbeAt: number;
	/** Probes under way. */
	probing: number;
	/**
	 * How many may probe at once: one; or, once the service named a time (Retry-After) and no
	 * probe of this pause was refused yet, what it accepted before it refused: the service said
	 * its window reopens then, and a lone probe would cost every other request a round trip.
	 */
	batch: number;
	/** Probes refused in this pause. */
	refusedProbes: number;
	/** The start number of the refused request that began the pause. */
	refusedStart: number;
	/** When that request started. */
	refusedAt: number;
	/** Begun under a learned limit: its count before its latest creep, and its window (see reopened). */
	underLearned?: { base: number; windowMs: number };
	/** A request started with the refused one (in the same moment, before it) was accepted: the window had room for it. */
	batchAccepted: boolean;
	/** Requests started after the refused one, accepted (see strayPause). */
	laterAccepted: number;
	/** Requests under way when the refusal came back, refused too. */
	othersRefused: number;
	/** The last refusal of a request under way with the first one, within UNDER_WAY_REFUSALS_MS of it (rule 5g). */
	underWayRefused?: number;
	/** When its refusals were answered (each says the window was full then). */
	refusals: number[];
	/**
	 * A second before the times its Retry-Afters named (whole seconds, rounded up): the window was
	 * still full then. Evidence for a longer window, never a smaller count (rules 5d, 5f): a service
	 * that names its whole window every time would speak against the limit it has.
	 */
	fullUntil: number[];
	/** When the limit learned beside frees a place, when it held its count as learned at the refusal (rule 5c). */
	besideFreeAt?: number;
}

interface Waiter {
	lane: RunLane;
	/** Its place in line: from its first try when it is tried again. */
	place: number;
	retry: boolean;
	grant(ticket: Ticket): void;
	fail(error: unknown): void;
}

export class Account {
	/** Waiting requests, retries first, then by place in line (see inTurn). */
	private queue: Waiter[] = [];
	private readonly watched = new WeakSet<AbortSignal>();
	readonly counts = new Counts();
	/** Answers that were not rate refusals: what the service accepted (learned limits). */
	private readonly accepted = new TimeLog();
	/** Answers accepted and refused for rate: what a service that counts the requests it refuses counts (rule 5h). */
	private readonly counted = new TimeLog();
	/** The service was seen to count the requests it refuses (rule 5h): learned limits count those too. */
	private refusalsCount = false;
	/** When the latest-started request that was accepted started. */
	private latestAcceptedStart = -Infinity;
	autoConcurrency: number = AUTO_CONCURRENCY.initial;
	/**
	 * Auto opens in rounds (rule 3): answers arrive in the order the service took them, the
	 * accepted ones first, so sending on at each of those would put a second burst on the wire
	 * before the refusals behind them are read. A round waits a second past its first answer at
	 * most: a request that hangs must not hold every other for its Timeout.
	 */
	private opening = true;
	private round: Round = newRound(0);
	/** Requests started past Auto's one request while none answered (hungOpeningFreedAt); back to 0 at the next answer. */
	private hungOpeningStarts = 0;
	/** When the account's latest request started. */
	private lastStartAt = -Infinity;
	/**
	 * Latency (ms) for Auto: a short average of the round trips, and the lowest it fell to. Not the
	 * fastest single answer: answers vary (a recipient refused in 20 ms beside sends answered in
	 * 300 ms, a service answering anywhere in 50-850 ms), and measured from the fastest one, every
	 * round trip looked like congestion (an outside review's 200 sends took 40 s at Auto, 2.4 s at
	 * 32 at once). A service that queues still raises the average itself, and is still cut.
	 */
	private latencyFloor = Infinity;
	private latencyRecent = 0;
	private latencySamples = 0;
	/**
	 * When Auto was last cut. The latency of the answers to requests started before it speaks for
	 * the concurrency before the cut, and cuts no further (TCP cuts once per window of data,
	 * Netflix's WindowedLimit once per window of samples). Cut by each of them, the 40 answers of
	 * a burst that n8n's busy CPU read late took Auto from 40 to 5, again and again in one run.
	 */
	private lastCutAt = -Infinity;
	/** The fastest round trip seen (never forgotten: a stale one only errs on the safe side). */
	private fastestRoundTrip = Infinity;
	/** How much Auto may still grow until the loop watch's next timer (watchLoop), once the loop was seen late. */
	private growthAllowed = Infinity;
	private loopWasLate = false;
	/** Auto's level before a pause nobody waited out (rule 7): back with the next accepted answer. */
	private resumeConcurrency?: number;
	private watchingLoop = false;
	/** The latest round trips of answers the service counted or refused, oldest first (rule 5d's tolerance). */
	private readonly roundTripsSeen: number[] = [];
	learned?: LearnedLimit;
	/** A second limit over a longer window, learned beside `learned` (rule 5f). */
	learnedLonger?: LearnedLimit;
	pause?: Pause;
	/**
	 * Refusals that said the window was full, since the pause before the present one began: with
	 * the present pause's, the evidence a limit is estimated from (rule 5d). Two pauses back, not
	 * an hour: a plan changed, or another client of the account, must not hold the estimate for long.
	 */
	private earlierRefusals: number[] = [];
	/** A pause that ended with nobody waiting on it before a probe was accepted (rule 7): where its window began. */
	private deserted?: { since: number; oldest: number; accepted: number; nextProbeAt: number };
	/** Places given in line so far. */
	private places = 0;
	/** Starts so far: orders starts made in the same millisecond. */
	private starts = 0;
	/** When the last probe of the pause went. */
	private lastProbeAt = -Infinity;
	/** Retry-After: nothing starts before this. */
	private pausedUntil = 0;
	/** How far past Max Wait `pausedUntil` may reach and still be waited out (an HTTP date's whole second). */
	private pausedUntilGraceMs = 0;
	private wake?: AbortController;
	private pumping = false;
	/** Requests gone out in this turn of the event loop, and those waiting for a later turn, in order (see BEGINS_PER_TURN). */
	private begunInTurn = 0;
	private readonly turnLine: Array<() => void> = [];
	/** When a run last took the account, queued on it or had an answer (see idle). */
	private lastUsed: number;
	/** Which of the service's accounts it was learned for (accountFor's `serves`). */
	serves?: string;

	constructor(private readonly clock: Clock = realClock) {
		this.lastUsed = clock.now();
	}

	/** A run takes the account for its requests (see idle). */
	touch(): void {
		this.lastUsed = Math.max(this.lastUsed, this.clock.now());
	}

	/** The limits learned (rule 5e, 5f): every one holds, creeps and starts its count again at a refusal. */
	private get learnedLimits(): LearnedLimit[] {
		return [this.learned, this.learnedLonger].filter((learned) => learned !== undefined);
	}

	/** Plain data, for logs and tests. */
	get state() {
		return {
			queued: this.queue.length,
			inFlight: this.counts.inFlight,
			autoConcurrency: this.autoConcurrency,
			learned: this.learned && { ...this.learned },
			learnedLonger: this.learnedLonger && { ...this.learnedLonger },
			pause: this.pause && { ...this.pause },
			refusalsCount: this.refusalsCount,
		};
	}

	/**
	 * Nothing queued or under way, and nothing learned worth keeping: unused for as long as answers
	 * are kept. Counted from its last use, its creation included: a run holds its account from
	 * before it checks its items until its last answer, and one that has not sent yet must not be
	 * forgotten (the next execution of the credential would get an account of its own).
	 */
	get idle(): boolean {
		return this.queue.length === 0 && this.counts.inFlight === 0 && !this.pause && this.lastUsed + KEPT_MS < this.clock.now();
	}

	/**
	 * Waits until the run may start one request (see the rules above) and returns its Ticket.
	 * Rejects with the signal's reason when the run stops, or LimitNotReopenedError.
	 */
	async acquire(lane: RunLane, { place }: { place?: number } = {}): Promise<Ticket> {
		if (lane.signal.aborted) throw lane.signal.reason;
		this.touch();
		this.watch(lane.signal);
		return await new Promise<Ticket>((grant, fail) => {
			const waiter: Waiter = { lane, place: place ?? ++this.places, retry: place !== undefined, grant, fail };
			this.queue.splice(this.lineIndexOf(waiter), 0, waiter);
			this.poke();
		});
	}

	/** One listener per signal (adding one costs O(listeners) in Node); on abort its waiters leave. */
	private watch(signal: AbortSignal): void {
		if (this.watched.has(signal)) return;
		this.watched.add(signal);
		signal.addEventListener(
			'abort',
			() => {
				const leaving = this.queue.filter((waiter) => waiter.lane.signal === signal);
				this.queue = this.queue.filter((waiter) => waiter.lane.signal !== signal);
				for (const waiter of leaving) waiter.fail(signal.reason);
				this.poke();
			},
			{ once: true },
		);
	}

	/**
	 * Something changed: the pump looks at the queue once the code that changed it has run (a
	 * microtask later), so a refused request that goes again is back in line, at its place,
	 * before anyone's turn is decided.
	 */
	private poke(): void {
		this.wake?.abort(WOKEN);
		if (this.pumping) return;
		this.pumping = true;
		queueMicrotask(() => void this.pump());
	}

	private async pump(): Promise<void> {
		try {
			for (;;) {
				this.endPauseIfDeserted();
				const now = this.clock.now();
				let soonest = Infinity;
				let granted = false;
				// Every run with a waiter is looked at, its first waiter in turn: what holds the whole account
				// holds each of them alike, so one behind can go first only by what is its run's own (a webhook
				// execution is not held by a bulk run's Max Requests Per Minute, nor a short Max Wait by a
				// longer one's). A run's other waiters wait for the same: when its first may not start, they
				// are passed over (looking at each cost O(queue) per answer with 200 waiting).
				const runsLookedAt = new Set<RunLane>();
				for (const waiter of this.inTurn()) {
					if (runsLookedAt.has(waiter.lane)) continue;
					runsLookedAt.add(waiter.lane);
					const at = this.startTime(waiter.lane, now);
					if (at instanceof LimitNotReopenedError) {
						this.queue.splice(this.queue.indexOf(waiter), 1);
						waiter.fail(at);
						granted = true;
						break;
					}
					if (at === undefined) continue; // waits for an answer
					// Due within this millisecond: now (timers have no finer grain; every window keeps a margin of 5 ms or more).
					if (at < now + 1) {
						this.queue.splice(this.queue.indexOf(waiter), 1);
						waiter.grant(this.start(waiter, now));
						granted = true;
						break;
					}
					soonest = Math.min(soonest, at);
				}
				if (granted) continue;
				if (soonest === Infinity) return; // nothing due by time: an answer or a new waiter pokes
				this.wake = new AbortController();
				// Whole milliseconds (a fractional wait would wake in the same millisecond and spin), at
				// most an hour (a longer timer overflows Node's setTimeout and fires at once).
				await this.clock.sleep(Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(soonest - now))), this.wake.signal).catch(() => undefined);
				this.wake = undefined;
			}
		} finally {
			this.pumping = false;
		}
	}

	/**
	 * The queue in turn (rule 2): the runs with the fewest requests under way, then retries, then by
	 * place in line. The queue is kept in line without the runs' share, so with one run waiting (the
	 * usual case) it is already in turn: the pump looks at it after every answer. (Retries first
	 * across runs, an outside review's one-item executions waited three windows behind a bulk
	 * run's refused sends while the limit was being found, where a learned limit gave them the next.)
	 */
	private inTurn(): Waiter[] {
		const lane = this.queue[0]?.lane;
		if (this.queue.every((waiter) => waiter.lane === lane)) return this.queue;
		return [...this.queue].sort((a, b) => a.lane.own.inFlight - b.lane.own.inFlight || Number(b.retry) - Number(a.retry) || a.place - b.place);
	}

	/** Where `waiter` goes in the queue: behind the retries and the places before its own (most often, at the end). */
	private lineIndexOf(waiter: Waiter): number {
		const goesAhead = (other: Waiter) => (other.retry !== waiter.retry ? other.retry : other.place < waiter.place);
		const last = this.queue.at(-1);
		if (!last || goesAhead(last)) return this.queue.length;
		let low = 0;
		let high = this.queue.length;
		while (low < high) {
			const middle = (low + high) >> 1;
			if (goesAhead(this.queue[middle])) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	/** The error that ends a wait (rule 6): how long the service has refused, and what it accepted in the hour (answers are kept that long). */
	private notReopened(now: number, maxWaitMs: number, askedMs?: number): LimitNotReopenedError {
		return new LimitNotReopenedError(this.pause ? now - this.pause.since : 0, this.accepted.countAfter(now - KEPT_MS), maxWaitMs, askedMs);
	}

	/** Counts that hold `lane`'s own limits: its run's, or the account's when shared (both are always kept). */
	private countsOf(lane: RunLane): Counts {
		return lane.shareLimits ? this.counts : lane.own;
	}

	/**
	 * When a request of `lane` may start (epoch ms; in the past: now), undefined while it must wait for an
	 * answer, or the error that ends its wait.
	 */
	private startTime(lane: RunLane, now: number): number | undefined | LimitNotReopenedError {
		const { limits } = lane;
		let at = now;
		// Measured from now, not from when it was said: a later run waits only for what is left of it.
		const asked = this.pausedUntil - now;
		if (asked > limits.maxWaitMs + this.pausedUntilGraceMs) {
			return this.notReopened(now, limits.maxWaitMs, asked);
		}
		if (this.pause) {
			const { pause } = this;
			// The last probes go at Max Wait; once they are refused, the wait is over. A probe under way
			// then (another run's, one that hangs) is waited for only a moment longer. A run that started
			// during the pause counts its Max Wait from its own start (outside review: executions that
			// joined a pause 4 s in gave up with the first ones, 1.6 s into their own 5 s).
			// Counted from the last refusal of the requests under way with the first (rule 5g: a window that
			// counts them holds them until they leave it, and the probe at Max Wait must find it without).
			// Max Wait 0 asks for no wait at all: a last probe at once would only be refused again.
			if (limits.maxWaitMs === 0) return this.notReopened(now, 0);
			const deadline = Math.max(pause.underWayRefused ?? pause.since, lane.since) + limits.maxWaitMs;
			const answerBy = deadline + Math.max(LAST_PROBE_ANSWER_MS, this.roundTrips(2));
			if (this.lastProbeAt >= deadline && pause.probing === 0) return this.notReopened(now, limits.maxWaitMs);
			if (pause.probing >= pause.batch) {
				if (now >= answerBy) return this.notReopened(now, limits.maxWaitMs);
				// Woken then to give up, unless the probe's answer comes first.
				return answerBy;
			}
			at = Math.max(at, Math.min(pause.nextProbeAt, deadline));
		}
		at = Math.max(at, this.pausedUntil);

		// Concurrency: the user's number, or Auto over the account.
		const own = this.countsOf(lane);
		if (limits.maxConcurrent !== undefined) {
			if (own.inFlight >= limits.maxConcurrent) return undefined;
		} else if (this.counts.inFlight >= this.autoConcurrency) {
			const unanswered = this.hungOpeningFreedAt();
			if (unanswered === undefined) return undefined;
			at = Math.max(at, unanswered);
		} else if (this.opening && this.roundIsOut()) {
			if (this.round.firstAnswerAt === undefined) return undefined;
			at = Math.max(at, this.round.firstAnswerAt + ROUND_STRAGGLERS_MS);
		}
		// The learned limits, over the account.
		if (!this.pause) {
			for (const learned of this.learnedLimits) {
				const free = this.blockingAnswer(this.refusalsCount ? this.counted : this.accepted, this.counts.inFlight, learned.count, learned.windowMs, now);
				if (free === null) return undefined;
				if (free !== undefined) at = Math.max(at, free + learned.windowMs - this.answerLead());
			}
		}

		// The run's own per-second and per-minute limits: even spacing from its start, and the windows.
		at = Math.max(at, this.dueTime(own, limits));
		for (const { lengthMs, limitOf } of WINDOWS) {
			const free = this.windowFree(own, limitOf(limits), lengthMs + marginMs(lengthMs), now);
			if (free === undefined) return undefined;
			at = Math.max(at, free);
		}
		return at;
	}

	/** When a start is due by the spacing of `limits` alone. */
	private dueTime(counts: Counts, limits: UserLimits): number {
		// Nothing started yet: the first start waits for no spacing (at 1e-9/s it would wait 31 years).
		if (counts.lastStart === 0) return 0;
		let due = counts.lastStart;
		for (const { lengthMs, limitOf } of WINDOWS) {
			const limit = limitOf(limits);
			if (limit > 0) due = Math.max(due, counts.lastStart + lengthMs / limit);
		}
		return due;
	}

	/**
	 * When one more request fits `limit` per `countedMs` (a request counts from its start until
	 * `countedMs` after its answer), or undefined when only an answer can make room.
	 */
	private windowFree(counts: Counts, limit: number, countedMs: number, now: number): number | undefined {
		const blocking = this.blockingAnswer(counts.answers, counts.inFlight, limit, countedMs, now);
		return blocking === null ? undefined : blocking === undefined ? now : blocking + countedMs;
	}

	/**
	 * The answer in `answers` whose leaving the `countedMs` window makes room for one more under
	 * `limit` (requests under way count too): undefined when there is room now, null when only an
	 * answer can make room.
	 */
	private blockingAnswer(answers: TimeLog, inFlight: number, limit: number, countedMs: number, now: number): number | undefined | null {
		if (!(limit > 0)) return undefined;
		const horizon = now - countedMs;
		const answered = answers.countAfter(horizon);
		const counted = answered + inFlight;
		if (counted < limit) return undefined;
		const leaving = counted - limit; // counted in answer order, those under way last
		if (leaving >= answered) return null;
		return answers.nthAfter(horizon, leaving) as number;
	}

	private start({ lane, place }: Waiter, now: number): Ticket {
		const own = this.countsOf(lane);
		const seq = ++this.starts;
		// Started in a pause: a probe of that pause.
		const probeOf = this.pause;
		const probe = probeOf !== undefined;
		if (probeOf) {
			probeOf.probing++;
			this.lastProbeAt = now;
		}
		// The spacing goes on from when this start was due, not from when it went out, so a run
		// held back (checking its items, a window, a slot) keeps its rate; never from before the run
		// began or more than a window back; after a pause it begins afresh.
		const due = this.dueTime(own, lane.limits);
		own.lastStart = probe || own.lastStart < this.pausedUntil ? now : Math.min(now, Math.max(due, lane.since, now - CATCH_UP_MS));
		if (lane.limits.maxConcurrent === undefined) {
			this.watchLoop();
			// Started past Auto's level: only hungOpeningFreedAt lets that happen.
			if (this.counts.inFlight >= this.autoConcurrency) this.hungOpeningStarts++;
		}
		this.lastStartAt = now;
		lane.own.inFlight++;
		this.counts.inFlight++;
		// Rounds are Auto's: a run with a number of its own neither joins them nor waits for them.
		// A round's size is fixed when it begins: Auto grows with each answer, the round does not.
		// A start past the round's stragglers begins the next round; their answers count for nothing.
		if (lane.limits.maxConcurrent === undefined && this.opening && this.roundIsOut()) this.round = newRound(this.round.id + 1);
		const round = lane.limits.maxConcurrent === undefined ? this.round.id : undefined;
		if (round !== undefined && this.round.started++ === 0) this.round.size = this.autoConcurrency;
		let finished = false;
		let startedAt = now;
		const ticket: Ticket = {
			place,
			begin: async () => {
				await this.takeTurn();
				// Stopped while it waited for its turn: it never went.
				if (lane.signal.aborted) {
					ticket.finish({ type: 'abandoned' });
					throw lane.signal.reason;
				}
				startedAt = this.clock.now();
			},
			finish: (outcome) => {
				if (finished) return;
				finished = true;
				const end = this.clock.now();
				this.touch();
				lane.own.inFlight--;
				this.counts.inFlight--;
				lane.own.answers.add(end);
				this.counts.answers.add(end);
				this.learn(outcome, startedAt, seq, end, probeOf);
				if (round === this.round.id) this.roundAnswered(outcome, end);
				this.poke();
			},
		};
		return ticket;
	}

	/** Returns once the caller may go out in this turn of the event loop (BEGINS_PER_TURN), in the order they asked. */
	private async takeTurn(): Promise<void> {
		if (this.begunInTurn < BEGINS_PER_TURN && this.turnLine.length === 0) return this.beginInTurn();
		// Each is woken once, in its turn. (All waiting on the turn's end, each went back in line at
		// every turn: about 80 wake-ups per request in a run of 2,000 at 20 ms.)
		await new Promise<void>((resolve) => this.turnLine.push(resolve));
	}

	/** Counts one more request gone out in this turn; the first starts the turn, whose end lets the next in line go. */
	private beginInTurn(): void {
		if (this.begunInTurn++ > 0) return;
		void this.clock.sleep(0, NEVER).then(() => {
			this.begunInTurn = 0;
			for (const next of this.turnLine.splice(0, BEGINS_PER_TURN)) {
				this.beginInTurn();
				next();
			}
		});
	}

	/** One more answer of the round; once all are in, the next round may start, and a full round without a rate refusal ends the opening. */
	private roundAnswered(outcome: Outcome, now: number): void {
		const round = this.round;
		round.answered++;
		round.firstAnswerAt ??= now;
		if (outcome.type === 'refused') round.refused = true;
		if (outcome.type === 'abandoned') round.abandoned = true;
		if (round.answered < round.started) return;
		if (round.started >= AUTO_CONCURRENCY.opened && !round.refused && !round.abandoned) this.opening = false;
		this.round = newRound(round.id + 1);
	}

	/** Every request of the round has started: the next waits for its answers. */
	private roundIsOut(): boolean {
		return this.round.started > 0 && this.round.started >= this.round.size;
	}

	/** While Auto asks with one request and none has answered, when one more may go (HUNG_OPENING_MS); undefined: not before an answer. */
	private hungOpeningFreedAt(): number | undefined {
		if (!this.opening || this.autoConcurrency >= AUTO_CONCURRENCY.opened || this.hungOpeningStarts >= HUNG_OPENING_MAX) return undefined;
		return this.lastStartAt + Math.max(HUNG_OPENING_MS, this.roundTrips(4)) * 2 ** this.hungOpeningStarts;
	}

	/** What an answer teaches: latency and concurrency, and the account's rate limit. */
	private learn(outcome: Outcome, startedAt: number, seq: number, end: number, probeOf: Pause | undefined): void {
		if (probeOf) probeOf.probing--;
		// A Stop that gave up 32 requests under way cut Auto by 0.9 for each, to a few for every later run.
		if (outcome.type === 'abandoned') return;
		this.hungOpeningStarts = 0;
		// A probe of this pause (one that started in an earlier pause speaks for that one).
		const probe = probeOf !== undefined && probeOf === this.pause;
		if (outcome.type === 'refused' || outcome.type === 'answered') {
			if (this.roundTripsSeen.length >= KEPT_ROUND_TRIPS) this.roundTripsSeen.shift();
			this.roundTripsSeen.push(end - startedAt);
			this.counted.add(end);
			this.counted.forget(end - KEPT_MS);
		}
		if (outcome.type === 'refused') {
			if (probeOf !== undefined && !probe && !this.pause) {
				// A probe of a pause that a batch-mate ended (accepted at the time the service named: a
				// sliding window had freed only its oldest place). It goes again under the limit that
				// probe taught, and the time it names holds; a new pause here would begin again at each
				// named time, and the learned limit would never apply.
				if (outcome.retryAfterMs !== undefined) this.pauseUntil(end + outcome.retryAfterMs, outcome.retryAfterGraceMs);
				noteRefusal(this.earlierRefusals, end);
				return;
			}
			// Not a cut in concurrency: a rate refusal says the account's window is full, not that the
			// service is congested; the pause and the learned limit govern the pace.
			this.refused(end, startedAt, seq, outcome.retryAfterMs, probe, outcome.retryAfterGraceMs);
			return;
		}
		if (outcome.type === 'answered') {
			// Counted at its answer: the service counted it somewhere before, never after. (At the
			// middle of the round trip, a busy n8n that wrote the request late made the probes early,
			// each one refused and the next a whole round length later.)
			this.accepted.add(end);
			this.latestAcceptedStart = Math.max(this.latestAcceptedStart, startedAt);
			// Only the probe ends the pause. One under way with the refused request, answered only after
			// its refusal (answers cross on the way back: a slower route, a busier server thread; or it
			// started later and got there first), was accepted in the window that refused: it counts in
			// what the pause teaches (started later, it may also show a stray refusal: strayPause). Left
			// out, a few tens of ms of jitter taught 1 or 2 of a limit of 10, and every later run crawled
			// at that pace.
			if (this.pause && probe) this.reopened(startedAt);
			else if (this.pause) {
				if (seq > this.pause.refusedStart) this.pause.laterAccepted++;
				if (startedAt <= this.pause.since) {
					this.pause.accepted++;
					if (startedAt >= this.pause.refusedAt) this.pause.batchAccepted = true;
				}
			}
			this.adaptConcurrency(startedAt, end);
			this.creep();
		} else if (outcome.type === 'failed') {
			// Every failure cuts: unlike latency, which a burst read late by a busy n8n raises for all
			// of it, each failure is the service's own word.
			this.cutConcurrency(end);
		}
		this.counts.answers.forget(end - KEPT_MS);
		this.accepted.forget(end - KEPT_MS);
	}

	private refused(now: number, startedAt: number, seq: number, retryAfterMs: number | undefined, probe: boolean, graceMs = 0): void {
		if (!this.pause) {
			// The window the service counts holds what it accepted before this refusal: within the
			// learned window when there is one (its oldest is the learned count's most recent one:
			// earlier answers still inside the window are stragglers of a burst before), else the
			// answers since the last quiet second.
			const since = this.learned ? now - this.learned.windowMs : this.burstStart(now);
			let accepted = this.accepted.countAfter(since);
			let oldest = this.oldestCounted(since) ?? now;
			// Nothing accepted within the learned window before this answer: the learned limit let each
			// refused request go as an answer left that window, and a whole round of them went before the
			// first refusal was read (a busy n8n reads some answers a second late). The answers the
			// service still counted are then the learned count's latest, when they may have been in its
			// window as it counted the refused request: the probes go from the oldest of them (rule 5d).
			// From this refusal instead, they began again at a quarter second and the pause taught
			// nothing: a clock window of 5 s first seen in part stayed 10 per 3 s, and a later run was
			// refused a whole round.
			if (this.learned && accepted === 0) oldest = this.oldestCounted(startedAt - this.learned.windowMs - this.estimateTolerance()) ?? oldest;
			// Refused again with nothing accepted since a pause nobody waited on any more (its run was
			// stopped): that pause's window still holds, and its probes go on from where they were.
			// Counted from this refusal, they began again at a quarter second, the message came a round
			// length after the window reopened, and nothing was learned.
			const { deserted } = this;
			this.deserted = undefined;
			// Only about when that pause's next probe was due (twice as long from its oldest answer, a
			// round length or so): this refusal is one it would have had. Later, the window may be
			// another's (a client of the account, another worker filled it): counted from the old answer,
			// a probe went at the round minute and taught 10 per minute against 10 per 10 s.
			if (deserted && this.accepted.countAfter(deserted.since) === 0 && oldest > deserted.oldest && now - deserted.oldest <= 2 * (deserted.nextProbeAt - deserted.oldest)) {
				oldest = deserted.oldest;
				accepted = deserted.accepted;
			}
			this.noticeRefusalsCounted(now, startedAt);
			this.pause = {
				since: now,
				oldest,
				accepted,
				nextProbeAt: now,
				probing: 0,
				batch: 1,
				refusedProbes: 0,
				refusedStart: seq,
				refusedAt: startedAt,
				underLearned: this.learned && { base: this.learned.base, windowMs: this.learned.windowMs },
				batchAccepted: this.latestAcceptedStart >= startedAt,
				laterAccepted: 0,
				othersRefused: 0,
				refusals: [now],
				fullUntil: [],
				besideFreeAt: this.besideFreeAt(now),
			};
			// A refusal: what the creep counts starts again, from its first step.
			for (const learned of this.learnedLimits) {
				learned.acceptedSince = 0;
				learned.creeps = 0;
			}
		} else if (probe) {
			noteRefusal(this.pause.refusals, now);
			this.pause.refusedProbes++;
			// The time the service named was wrong once: from now on one probe at a time.
			this.pause.batch = 1;
		} else {
			// Under way when the pause began: the pause already speaks for it.
			noteRefusal(this.pause.refusals, now);
			this.pause.othersRefused++;
			if (now <= this.pause.since + UNDER_WAY_REFUSALS_MS) this.pause.underWayRefused = now;
			if (retryAfterMs !== undefined) this.askedToWait(now, retryAfterMs, graceMs);
			return;
		}
		if (retryAfterMs !== undefined) this.askedToWait(now, retryAfterMs, graceMs);
		else this.pause.nextProbeAt = this.nextProbe(now);
	}

	/**
	 * Retry-After: the service said when; nothing starts before, and the probe goes then, but never
	 * sooner than PROBE_MIN_GAP_MS after the last probe: a gateway that keeps refusing with a
	 * fraction of a second ("0.001") would otherwise be probed once per round trip until Max Wait.
	 */
	private askedToWait(now: number, retryAfterMs: number, graceMs: number): void {
		const pause = this.pause!;
		pause.nextProbeAt = Math.max(pause.probing > 0 ? 0 : pause.nextProbeAt, now + retryAfterMs, this.lastProbeAt + PROBE_MIN_GAP_MS);
		if (retryAfterMs >= 2_000) noteRefusal(pause.fullUntil, now + retryAfterMs - 1_000);
		if (pause.refusedProbes === 0) pause.batch = Math.max(1, pause.accepted);
		this.pauseUntil(now + retryAfterMs, graceMs);
	}

	/**
	 * The oldest of the accepted answers after `since` that the service's window may hold: of the
	 * learned count's latest when there is a learned limit (earlier answers still inside the window
	 * are stragglers of a burst before), else the first; undefined when none came after `since`.
	 */
	private oldestCounted(since: number): number | undefined {
		const skipped = this.learned ? Math.max(0, this.accepted.countAfter(since) - this.learned.count) : 0;
		return this.accepted.nthAfter(since, skipped);
	}

	/** Nothing starts before `until` (a Retry-After); `graceMs`: how far past Max Wait it may reach (retryAfterGraceMs). */
	private pauseUntil(until: number, graceMs = 0): void {
		if (until >= this.pausedUntil) this.pausedUntilGraceMs = graceMs;
		this.pausedUntil = Math.max(this.pausedUntil, until);
	}

	/**
	 * Start of the run of answers that led to a refusal at `now`: back to the first gap of over a
	 * second, or of two of the fastest round trips against a slow service (whose answers come in
	 * rounds that far apart: a second's gap would count only the last round).
	 */
	private burstStart(now: number): number {
		const quietMs = Math.max(1_000, this.roundTrips(2));
		let start = now;
		for (let k = this.accepted.countAfter(now - KEPT_MS) - 1; k >= 0; k--) {
			const time = this.accepted.nthAfter(now - KEPT_MS, k) as number;
			if (start - time > quietMs) break;
			start = time;
		}
		return start - 1;
	}

	/**
	 * When the next probe may go: once the next round window length (or the learned one) has
	 * passed since the oldest counted answer; past an hour, a fifth longer each time; no later than
	 * when the limit learned beside frees a place, when it was full (rule 5c).
	 */
	private nextProbe(now: number): number {
		const pause = this.pause!;
		// Rule 5h: the window counts refused requests, and the learned limit explains the refusal so:
		// it frees a place once enough of what it counted has left it. Any probe before is refused,
		// and holds it shut for a window more.
		const countedFree = this.refusalsCount && this.learned ? this.blockingAnswer(this.counted, 0, this.learned.base, this.learned.windowMs, now) : undefined;
		if (typeof countedFree === 'number') return Math.max(countedFree + this.learned!.windowMs, now + PROBE_MIN_GAP_MS);
		const rounds = probeRounds(this.probeBudget(pause, now), pause.refusedProbes);
		const elapsed = now - pause.oldest;
		const learned = this.learned?.windowMs;
		const round = rounds.find((length) => length > elapsed) ?? elapsed * 1.2;
		const length = learned !== undefined && learned > elapsed ? Math.min(learned, round) : round;
		let at = pause.oldest + length;
		// The minute and longer also counted from the last of the requests refused with the first one
		// (rule 5g): a window that counts refused requests holds those until they leave it, and the
		// probe a minute after the oldest answer found it full. Beside that one when the oldest answer
		// is over a second older (a window that counts only what it accepted reopens as its oldest
		// leaves, and a clock window at its own time: counted later, 30 per clock minute took 100 s
		// where 96 s were allowed); in its place when they came in one burst, where that probe is
		// refused by such a window and would be one more in it (4 a minute went to Max Wait).
		const { underWayRefused } = pause;
		if (underWayRefused !== undefined && underWayRefused > pause.oldest) {
			const sinceThem = now - underWayRefused;
			const minute = rounds.find((length) => length >= MINUTE_MS && length > sinceThem);
			const oneBurst = underWayRefused - pause.oldest <= UNDER_WAY_REFUSALS_MS;
			if (minute !== undefined) at = oneBurst && length >= MINUTE_MS ? underWayRefused + minute : Math.min(at, underWayRefused + minute);
		}
		// The limit beside frees a place once: a probe refused after that time was its probe, and the
		// time stays in the past. Taken again, it sent a probe every PROBE_MIN_GAP_MS until Max Wait.
		const besideFree = pause.besideFreeAt !== undefined && pause.besideFreeAt > now ? pause.besideFreeAt : Infinity;
		return Math.max(Math.min(at, besideFree), now + PROBE_MIN_GAP_MS);
	}

	/**
	 * Rule 5h: a refusal under a learned limit (the request started at `startedAt`, answered at
	 * `now`), with fewer accepted in its window than any learned limit allows, but at least that many
	 * once the node's own refused requests are counted: the service counts those too (a limit that
	 * logs each request before it checks it). Another client of the account can look the same; the
	 * cost of that mistake is a slower window after each pause, not a refusal.
	 */
	private noticeRefusalsCounted(now: number, startedAt: number): void {
		if (this.refusalsCount || !this.learned) return;
		// Accepted answers that may be in the window: the service counted the refused request once it
		// had started, so one answered a window before that start was out of it. (Counted back from
		// the refusal's answer with the longest round trip as slack, a busy machine put the burst
		// before the pause in it, and a limit of 5 per 5 s was learned as 1.) Any learned limit those
		// fill explains the refusal (the minute's beside a second's that held 3 of its 5).
		const filled = (learned: LearnedLimit) => this.accepted.countAfter(startedAt - learned.windowMs) >= learned.base;
		if (this.learnedLimits.some(filled)) return;
		// Requests surely in it: answered less than a window less the longest round trip before.
		const { base, windowMs } = this.learned;
		if (this.countedBefore(now, Math.max(0, windowMs - this.estimateTolerance())) >= base) this.refusalsCount = true;
	}

	/** What the service counted in the `windowMs` before the refusal at `at` when it counts refused requests (rule 5h), that refusal left out. */
	private countedBefore(at: number, windowMs: number): number {
		return this.counted.countWithin(at - windowMs, at) - 1;
	}

	/**
	 * How many probes of `pause` may be refused before it goes on to the minute (rule 5g): by what
	 * the service accepted within the minute before it (a limit over a minute or less is at least
	 * that; a short limit learned beside a longer one counts only its own window, and the minute's
	 * pause then probed at three lengths); unbounded when it accepted nothing.
	 */
	private probeBudget(pause: Pause, now: number): number {
		const accepted = this.accepted.countWithin(pause.since - MINUTE_MS, now);
		return accepted > 0 ? Math.max(accepted - PROBE_BUDGET_BELOW, PROBE_BUDGET_LEAST) : Infinity;
	}

	/** When the limit learned beside frees a place, if its window holds its count as learned at `now` (rule 5c). */
	private besideFreeAt(now: number): number | undefined {
		const longer = this.learnedLonger;
		if (!longer) return undefined;
		const leaving = this.blockingAnswer(this.accepted, 0, longer.base, longer.windowMs, now);
		return typeof leaving === 'number' ? leaving + longer.windowMs : undefined;
	}

	/**
	 * Rule 7: nothing waits on the pause or the Retry-After any more (no request in line, no probe
	 * under way), so they end. Looked at by the pump, a microtask after any change: a refused
	 * request that goes again is back in line by then (see poke).
	 */
	private endPauseIfDeserted(): void {
		if ((!this.pause && this.pausedUntil === 0) || (this.pause?.probing ?? 0) > 0 || this.queue.length > 0) return;
		if (this.pause && !strayPause(this.pause)) this.deserted = { since: this.pause.since, oldest: this.pause.oldest, accepted: this.pause.accepted, nextProbeAt: this.pause.nextProbeAt };
		// Nobody waited the limit out: the next run asks the service again with one request, not with
		// Auto's whole round (outside review: after an hourly limit stopped a run, the next sent all
		// 25 at once, all refused). Auto's level comes back with that request's acceptance.
		this.resumeConcurrency = Math.max(this.resumeConcurrency ?? 0, this.autoConcurrency);
		// A request still under way (another run's, one that hangs) holds that one request only a
		// second (hungOpeningFreedAt). Counted out here instead, a run stopped with its round under
		// way left Auto at the round, and the next run sent it all at once.
		this.autoConcurrency = AUTO_CONCURRENCY.initial;
		this.opening = true;
		this.round = newRound(this.round.id + 1);
		this.endPause();
	}

	/** A probe was accepted: the pause ends, and what the service accepted before it teaches the limit. */
	private reopened(probeStart: number): void {
		const pause = this.pause!;
		// Refused with nothing accepted in the learned window before: that pause teaches no limit of its
		// own, but it may show one beside the learned one (5 per second sent a window after the last 5
		// answers, 30 a minute refusing them).
		if ((pause.accepted > 0 || this.learned) && !strayPause(pause)) this.learnFrom(pause, probeStart);
		this.endPause();
	}

	/** What the pause that `probeStart`'s probe ended teaches (rules 5d and 5f). */
	private learnFrom(pause: Pause, probeStart: number): void {
		const learnedBefore = this.learned;
		// Rule 5h: the learned limit explains the refusal with the refused requests counted. Counted
		// without them, each pause taught a smaller count: 3 a minute for 10. What it crept past its
		// base is what was refused (rule 5e); kept, every window went one over, refused for good.
		if (this.refusalsCount && learnedBefore && this.countedBefore(pause.since, learnedBefore.windowMs) >= learnedBefore.base) {
			learnedBefore.count = learnedBefore.base;
			return;
		}
		const windowMs = learnedWindow(probeStart - pause.oldest, pause.since - pause.oldest);
		// Under a learned limit, a refused request none started with it got past, and a window found
		// longer than learned: the window had not reopened yet (a counter reset each clock minute
		// first looks like a shorter window), the count is not smaller. The request took the place
		// of one the learned window had let go, which the count back from the refusal leaves out:
		// counted so, the limit lost that place for good (29 of 30), and the last item of 90 waited
		// a minute more. Otherwise what the window held is the limit (a plan lowered, a creep
		// refused, a token bucket's refill).
		const { underLearned } = pause;
		const longer = underLearned !== undefined && !pause.batchAccepted && windowMs > underLearned.windowMs;
		// The sliding limit that fits every refusal since the pause before and every answer accepted,
		// over that window or a longer one (rule 5d); when none fits, what this pause showed.
		const refused = [...this.earlierRefusals, ...pause.refusals];
		const evidence = { accepted: this.accepted.after(Math.min(...refused) - KEPT_MS, ESTIMATE_ANSWERS), refused, toleranceMs: this.estimateTolerance() };
		// What the refusal counted, and the answers before its oldest still within such a window.
		const heldIn = (length: number) => pause.accepted + Math.max(0, this.accepted.countWithin(pause.since - length, pause.oldest - 0.5));
		const choice: LimitChoice = {
			windows: [windowMs, ...ROUND_WINDOWS_MS.filter((length) => length > windowMs && length <= MAX_WINDOW_GROWTH * windowMs)],
			// Kept only when this refusal came with it full: a window refused with fewer in it than it
			// allows speaks against it (a plan raised from 30 a minute to 10 a second refused 20 of each
			// 30 at once, which 30 a minute also explains: kept, it was never left).
			keepMs: learnedBefore && heldIn(learnedBefore.windowMs) >= learnedBefore.base ? learnedBefore.windowMs : undefined,
			heldIn,
		};
		// The times Retry-Afters named are evidence too, for a longer window, never for a smaller
		// count: a service that names its whole window each time (Retry-After: 60, whatever is left of
		// it) said the window was full when it held 3, and 3 a minute was learned.
		const everything = { ...evidence, refused: [...refused, ...pause.fullUntil] };
		const named = (found: (inThis: LimitEvidence) => Limit | undefined, alone: boolean): Limit | undefined => {
			const plain = found(evidence);
			const withNamed = pause.fullUntil.length > 0 ? found(everything) : undefined;
			return withNamed && (plain ? withNamed.count >= plain.count : alone) ? withNamed : plain;
		};
		let estimate = named((inThis) => estimateLimit(inThis, choice), false);
		// The window learned before no longer fits because the service took more than its count (as
		// learned, before any creep) within it: no sliding limit of it (a counter reset on the clock,
		// a token bucket's refill, a plan raised), and a longer window would not be one either. Each
		// pause then learned a window a few times longer (10 per clock second became 2,290 per 4
		// minutes: bursts of it refused).
		const tookInLearned = learnedBefore ? countBounds(evidence, learnedBefore.windowMs).least : 0;
		if (estimate && learnedBefore && estimate.windowMs !== learnedBefore.windowMs && tookInLearned > learnedBefore.base) estimate = undefined;
		const count = estimate?.count ?? (longer ? Math.max(pause.accepted, underLearned.base) : pause.accepted);
		const beside = learnedBefore && this.limitBeside(pause, learnedBefore, { evidence, choice, estimate, windowMs, count, named, tookInBefore: tookInLearned });
		const taughtBy = [...pause.refusals, ...pause.fullUntil];
		if (beside) {
			const kept = this.learnedLonger?.windowMs === beside.windowMs ? this.learnedLonger.taughtBy : [];
			this.learnedLonger = { count: beside.count, base: beside.count, windowMs: beside.windowMs, acceptedSince: 0, taughtBy: taughtFrom(kept, taughtBy), asLearned: beside.count };
			return;
		}
		// Nothing accepted in the learned window before the refusal teaches no count of its own, but a
		// window found longer than learned, from the answers it still counted (see `refused`), keeps
		// the count. Not when the service named the times: those say when its window reopens, not how
		// long it is (a clock window's reset named in ms taught 10 per 4 s, then 1 per 500 ms).
		const longerFromAnswers = longer && pause.oldest < pause.since && pause.fullUntil.length === 0;
		if (pause.accepted === 0 && !longerFromAnswers) return;
		const learnedWindowMs = estimate?.windowMs ?? windowMs;
		// Every refusal the shorter limit was learned from, whatever its window since: one learned
		// between (10 per 2 s for 5 per second after a creep) would drop the first burst's refusals,
		// the only ones the longer limit does not explain, and 100 a minute replaced 5 a second.
		const kept = learnedBefore?.taughtBy ?? [];
		this.learned = { count, base: count, windowMs: learnedWindowMs, acceptedSince: 0, taughtBy: taughtFrom(kept, taughtBy), asLearned: count };
		// The longer limit holds while the service never took more than it within its window, and
		// the one learned now is shorter. More than its count, not twice it as for the shorter one
		// (rule 5f): that lets a minute dropped or raised go at once. Twice kept later runs at 298-304 s
		// where they took 123 s (5 a second and 100 a minute, the minute then dropped or made 1,000).
		const besideIt = this.learnedLonger;
		if (besideIt && (besideIt.windowMs <= this.learned.windowMs || countBounds(evidence, besideIt.windowMs).least > besideIt.base)) this.learnedLonger = undefined;
	}

	/** The pause ends (reopened, or nobody waits on it): its refusals become the evidence of the one before (rule 5d). */
	private endPause(): void {
		if (this.pause && !strayPause(this.pause)) this.earlierRefusals = this.pause.refusals;
		this.pause = undefined;
		this.pausedUntil = 0;
		this.pausedUntilGraceMs = 0;
		this.lastProbeAt = -Infinity;
	}

	/** Whether the window before each of `times` held `limit`'s count (it explains refusals then). */
	private explains(limit: { count: number; windowMs: number }, times: readonly number[]): boolean {
		const toleranceMs = this.estimateTolerance();
		// Answers are kept for an hour: older refusals are no evidence either way.
		const since = this.clock.now() - KEPT_MS + limit.windowMs + toleranceMs;
		return times.every((time) => time < since || this.accepted.countWithin(time - limit.windowMs - toleranceMs, time + toleranceMs) >= limit.count);
	}

	/**
	 * Rule 5f: a limit over a longer window beside `before`, the one learned before, or undefined.
	 * `before` must still hold (the service took no more than twice what it allows now, a creep it
	 * accepted included: a counter reset each clock second takes the end of one second and the
	 * start of the next within a second, 10 against 5 per second, and the pause behind the minute
	 * was learned in its place with its count, 5 per 45 s, a run of 300 taking 593 s against 180)
	 * and the service have stayed shut over twice its window: a clock window first seen
	 * in part (10 per 3 s learned 2 s into a clock window of 5 s) reopens within one length of it,
	 * and kept beside a longer one it let a later run send 3 s after a full window, refused.
	 * - The one limit that fits everything (rule 5d), when it is longer and does not explain the
	 *   refusals `before` was learned from: `before` is still needed.
	 * - When none fits, and what the pause showed is not a counter reset on the clock (which lets
	 *   at most twice its count through a window: the end of one and the start of the next), the
	 *   refusals `before` does not explain (the window before them held fewer than it allows:
	 *   probes refused long after it had emptied), judged over the windows longer than its own;
	 *   when no limit fits those, what the service took within the window the pause found.
	 *   Learned as one limit, the pause's long window with the short window's count was learned
	 *   (5 per 45 s against 5 per second and 100 per minute), and 300 messages took 16 minutes
	 *   instead of 2.
	 * Either holds more than twice the count `before` was learned with (as learned, not crept: 5
	 * per second crept to 50 while the longer one held the pace): a clock window first seen in part
	 * shows no more (10 per 0.5 s and 20 per 6 s were learned for 10 per clock 5 s, and every later
	 * send was refused once).
	 */
	private limitBeside(
		pause: Pause,
		before: LearnedLimit,
		found: {
			evidence: LimitEvidence;
			choice: LimitChoice;
			estimate: Limit | undefined;
			windowMs: number;
			count: number;
			named: (find: (inThis: LimitEvidence) => Limit | undefined, alone: boolean) => Limit | undefined;
			/** The most the service took within `before`'s window. */
			tookInBefore: number;
		},
	): Limit | undefined {
		const { evidence, choice, estimate } = found;
		if (beyondClockReset(found.tookInBefore, before.count) || this.clock.now() - pause.since <= 2 * before.windowMs) return undefined;
		let beside: Limit | undefined;
		if (estimate) {
			if (estimate.windowMs > before.windowMs && !this.explains(estimate, before.taughtBy)) beside = estimate;
		} else {
			const took = countBounds(evidence, found.windowMs).least;
			// When no limit fits the refusals either (a Retry-After that names the whole window each
			// time said it was full when it held 3), what the service took within the window found:
			// learned as one limit, that window with the short one's count (5 per minute against 5 per
			// second and 100 per minute) made 300 messages take 34 minutes.
			if (beyondClockReset(took, found.count)) beside = found.named((inThis) => this.unexplainedLimit(before, inThis, choice), true) ?? { count: took, windowMs: found.windowMs };
		}
		return beside && beyondClockReset(beside.count, before.asLearned) ? beside : undefined;
	}

	/** The limit over a window longer than `before`'s that fits the refusals `before` does not explain (rule 5f). */
	private unexplainedLimit(before: LearnedLimit, evidence: LimitEvidence, choice: LimitChoice): Limit | undefined {
		const { accepted, toleranceMs } = evidence;
		const unexplained = evidence.refused.filter((time) => countWithin(accepted, time - before.windowMs - toleranceMs, time + toleranceMs) < before.base);
		if (unexplained.length === 0) return undefined;
		const longer = this.learnedLonger;
		return estimateLimit(
			{ accepted, refused: unexplained, toleranceMs, takenFrom: Math.min(...evidence.refused) },
			{
				windows: choice.windows.filter((length) => length > before.windowMs),
				keepMs: longer && choice.heldIn(longer.windowMs) >= longer.base ? longer.windowMs : undefined,
				heldIn: choice.heldIn,
			},
		);
	}

	/**
	 * Ten windows' worth accepted at the learned limit without a refusal: the plan may have been
	 * raised, so 5% more (at least one) may go per window. Time alone is no evidence: counted in time, a later
	 * run after ten idle windows (a daily batch against a per-minute limit) began one over the
	 * limit, and its refusal and the probes after it came at every such run.
	 */
	private creep(): void {
		// Answers during a pause are no evidence of room: the service is refusing.
		if (this.pause) return;
		for (const learned of this.learnedLimits) {
			const creeps = learned.creeps ?? 0;
			if (++learned.acceptedSince < (creeps === 0 ? CREEP_AFTER_WINDOWS : CREEP_AGAIN_AFTER_WINDOWS) * learned.count) continue;
			learned.base = learned.count;
			learned.count += Math.max(1, Math.round(learned.count * Math.min(CREEP_MOST, CREEP_FIRST * 2 ** creeps)));
			learned.creeps = creeps + 1;
			learned.acceptedSince = 0;
		}
	}

	/**
	 * How long before its answer an accepted request is counted for the learned limit (rule 5):
	 * half the fastest round trip, never half of any one request's (a request a busy n8n wrote
	 * late has a long round trip but arrived near its end).
	 */
	private answerLead(): number {
		return this.roundTrips(0.5);
	}

	/**
	 * How far two answer times may be off from when the service counted the requests (rule 5d):
	 * each was counted somewhere within its round trip, so by up to the longest of the latest ones
	 * (a busy n8n reads some answers hundreds of ms late; at their 90th percentile, those beyond it
	 * ruled out the true limit, and each pause learned a longer window).
	 */
	private estimateTolerance(): number {
		return Math.max(ESTIMATE_TOLERANCE_MS, ...this.roundTripsSeen);
	}

	/** `n` of the fastest round trips seen; 0 before any was measured. */
	private roundTrips(n: number): number {
		return Number.isFinite(this.fastestRoundTrip) ? n * this.fastestRoundTrip : 0;
	}

	/** AIMD with a latency check (Netflix's AIMDLimit and Gradient limit, simplified). */
	private adaptConcurrency(startedAt: number, end: number): void {
		const latencyMs = end - startedAt;
		this.latencySamples++;
		this.fastestRoundTrip = Math.min(this.fastestRoundTrip, latencyMs);
		this.latencyRecent = this.latencySamples === 1 ? latencyMs : this.latencyRecent * 0.8 + latencyMs * 0.2;
		this.latencyFloor = Math.min(this.latencyFloor, this.latencyRecent);
		// The floor forgets slowly, so that a slower service is not taken for congestion for ever.
		if (this.latencySamples % 256 === 0) this.latencyFloor = this.latencyRecent;
		if (this.resumeConcurrency !== undefined) {
			this.autoConcurrency = Math.max(this.autoConcurrency, this.resumeConcurrency);
			this.resumeConcurrency = undefined;
		} else if (this.latencySamples === 1) {
			this.autoConcurrency = Math.max(this.autoConcurrency, AUTO_CONCURRENCY.opened);
		} else if (this.latencyRecent > this.latencyHeldMs()) {
			// Not grown while latency is high. Cut once per round trip, as deep as latency rose above
			// what holds (Netflix's Gradient2 limit: x0.5 at most, x0.9 at least): a service that went
			// from 50 ms to a second halves it at once, a busy n8n that reads a burst late trims it.
			// The average then starts again halfway down.
			if (startedAt >= this.lastCutAt) {
				this.cutConcurrency(end, Math.max(0.5, Math.min(0.9, this.latencyHeldMs() / this.latencyRecent)));
				this.latencyRecent = (this.latencyRecent + this.latencyFloor) / 2;
			}
		} else if (this.counts.inFlight + 1 >= this.autoConcurrency / 2 && this.growthAllowed > 0) {
			this.growthAllowed--;
			this.autoConcurrency = Math.min(AUTO_CONCURRENCY.max, this.autoConcurrency + 1);
		}
	}

	/** The most latency that still holds (rule 3): well above its floor. */
	private latencyHeldMs(): number {
		return 2.5 * this.latencyFloor + 20;
	}

	/** Auto cut by `factor` (rule 3). */
	private cutConcurrency(now: number, factor = 0.9): void {
		this.lastCutAt = now;
		this.autoConcurrency = Math.max(1, Math.floor(this.autoConcurrency * factor));
	}

	/** Watches n8n's event loop while requests are under way (LOOP_PROBE_MS): Auto's second signal. */
	private watchLoop(): void {
		if (this.watchingLoop) return;
		this.watchingLoop = true;
		void (async () => {
			try {
				do {
					const before = this.clock.now();
					await this.clock.sleep(LOOP_PROBE_MS, NEVER);
					const lateMs = this.clock.now() - before - LOOP_PROBE_MS;
					if (lateMs > LOOP_ON_TIME_MS) this.loopWasLate = true;
					if (this.loopWasLate) this.growthAllowed = lateMs <= LOOP_ON_TIME_MS ? GROWTH_PER_ON_TIME_PROBE : 0;
					if (lateMs > LOOP_LATE_MS && this.autoConcurrency > AUTO_CONCURRENCY.opened) {
						this.autoConcurrency = Math.max(AUTO_CONCURRENCY.opened, Math.floor(this.autoConcurrency * 0.9));
					}
				} while (this.counts.inFlight > 0);
			} finally {
				this.watchingLoop = false;
				if (this.loopWasLate) this.growthAllowed = GROWTH_PER_ON_TIME_PROBE;
			}
		})();
	}
}

/**
 * The round lengths a pause may probe at with a budget of `budget` refused probes, `refused` of
 * them spent (rule 5g): the `budget` most preferred of those under a minute (all of them, from
 * 17), and the minute and those after it; once it is spent, only those.
 */
function probeRounds(budget: number, refused: number): readonly number[] {
	const preferred = refused < budget ? PREFERRED_ROUND_WINDOWS_MS.slice(0, budget) : [];
	return ROUND_WINDOWS_MS.filter((length) => length >= MINUTE_MS || preferred.includes(length));
}

/**
 * The window a pause teaches: at most `upperMs` (the probe that went then was accepted) and more
 * than `lowerMs` (a request was refused then). A Retry-After in whole seconds makes the probe
 * late, so the round length between the two is taken when there is one: the service counts in
 * one of those far more often than in the rounded-up wait it named.
 */
export function learnedWindow(upperMs: number, lowerMs: number): number {
	let round: number | undefined;
	for (const length of ROUND_WINDOWS_MS) if (length <= upperMs && length > lowerMs) round = length;
	return Math.max(1, round ?? upperMs);
}

/**
 * More than a counter reset on the clock lets through within one window of a limit of `count`:
 * the end of one window and the start of the next, twice its count (rule 5f).
 */
function beyondClockReset(took: number, count: number): boolean {
	return took > 2 * count;
}

/**
 * A pause whose refusal was not a full window, which teaches no limit (its Retry-After still holds
 * while something waits on it: rule 7): of the requests under way with it, more of those started
 * after it were accepted than all the others refused. A full window refuses everything that reaches
 * it after, but requests started together reach the service in any order (a few ms of jitter on the
 * way there): judged by any later-started one accepted, a third of first runs against a limit
 * learned nothing, and every later run was refused at its start. Judged by the refusal being the
 * only one, a proxy refusing 1 in 10 at random taught 2 per 500 ms.
 */
function strayPause(pause: Pause): boolean {
	return pause.laterAccepted > pause.othersRefused;
}

/** The most refusals a learned limit keeps of those it was learned from. */
const KEPT_TAUGHT_BY = 100;

/**
 * The refusals a limit was learned from, once more learned: those before and these. The first ones
 * matter most (a burst limit is shown by the first burst, then kept to), so half are the first and
 * half the latest.
 */
function taughtFrom(before: readonly number[], now: readonly number[]): number[] {
	const times = distinctTimes([...before, ...now]);
	return times.length <= KEPT_TAUGHT_BY ? times : [...times.slice(0, KEPT_TAUGHT_BY / 2), ...times.slice(-KEPT_TAUGHT_BY / 2)];
}

/** The refusals kept as evidence of one pause or between two (rule 5d): the latest ones. */
const KEPT_REFUSALS = 1_000;

function noteRefusal(refusals: number[], time: number): void {
	if (refusals.length >= KEPT_REFUSALS) refusals.shift();
	refusals.push(time);
}

/** Accounts of this process, one per credential and limit; in memory only. */
const accounts = new Map<string, Account>();

/** The account of `key` if a run has taken it, without taking it (for logs and tests). */
export function existingAccount(key: string): Account | undefined {
	return accounts.get(key);
}

/**
 * The account of a credential and limit (accountKey). `serves` says which account of the service it is
 * (its base URL and key, as a digest): once the credential is edited to point at another one, what
 * was learned is not carried over (an outside review's credential, moved to an account allowing
 * 100 per 10 s, went on at the 10 per 10 s learned for the one before). Runs under way keep theirs.
 */
export function accountFor(key: string, serves?: string): Account {
	let account = accounts.get(key);
	if (!account || (serves !== undefined && account.serves !== serves)) {
		for (const [other, candidate] of accounts) if (candidate.idle) accounts.delete(other);
		account = new Account();
		account.serves = serves;
		accounts.set(key, account);
	}
	account.touch();
	return account;
}
