/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Shared pieces of the bad-input fuzz suite: value generators (phones, texts, wrong types,
 * huge strings, unicode), an independent model of what the node must do with a value, and a
 * runner that executes one generated input through the real engine and checks the outcome.
 *
 * The property every operation must have, for every input:
 *   - either the node sent exactly the expected, well-formed request (the emulator got exactly
 *     the body the model predicts), and then succeeded or failed with the SERVICE's reason
 *     (NodeApiError) - the service may refuse what is well-formed (unknown template, id taken);
 *   - or it failed with a NodeOperationError that has context.itemIndex, and the emulator
 *     recorded no request at all;
 *   - never another error class (TypeError, ...), never a hang.
 * The model decides which of the two applies, so an input the node should refuse but sends
 * (or the reverse) fails the property too.
 */
import fc from 'fast-check';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js';
import type { IDataObject } from 'n8n-workflow';

import type { Emulator, RequestRecord } from '../emulator';
import { runOn } from '../emulator/use';
import { n8nWorkflow } from '../harness';

// ---------------------------------------------------------------------------------------------
// The model (from README "Messaging node" / node contract, written independently of the node)
// ---------------------------------------------------------------------------------------------

/** A value as it reaches a parameter through `={{ $json.x }}`; MISSING = the key is absent. */
export const MISSING = Symbol('missing');
export type Input = unknown;

/**
 * Text parameters take strings, and finite numbers and booleans as their text; null/absent is
 * empty; objects, NaN and Infinity (what a broken expression yields) are refused.
 */
export function modelText(value: Input): string | undefined {
	if (value === MISSING || value === null || value === undefined) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'boolean') return String(value);
	return undefined;
}

/** Country calling codes, from libphonenumber-js's country list (not the node's table). */
const CALLING_CODES = new Set(getCountries().map((country) => getCountryCallingCode(country) as string));

/** Returned for a number whose national part opens with a 0: the numbering plans decide (unit tests), so the property skips it. */
export const UNDECIDED = Symbol('undecided');

const PHONE_SEPARATORS = '-.()[]';

/**
 * The node contract, read literally and written without the node's code: the characters of the
 * input are digits, a + at the very start, or separators (white space, dashes, dots, brackets),
 * and anything else refuses the number; "00" at the start is "+"; the README's trunk mark, a 0
 * alone in brackets right after the country code ("+44 (0) 20 ..."), is not dialled; the result
 * is E.164 ("+", a first digit 1-9, 7 to 15 digits). A 0 right after the country code that is
 * not bracketed is trunk or number depending on the country: UNDECIDED.
 */
export function modelPhone(value: Input): string | undefined | typeof UNDECIDED {
	const text = modelText(value);
	if (text === undefined) return undefined;
	// Read the characters one by one; a bracketed lone 0 is kept as a 'T' to place it later.
	const chars = [...text.trim()];
	let read = '';
	for (let i = 0; i < chars.length; i++) {
		const char = chars[i];
		if (char === '(' || char === '[') {
			let j = i + 1;
			while (j < chars.length && /\s/.test(chars[j])) j++;
			if (chars[j] === '0') {
				let k = j + 1;
				while (k < chars.length && /\s/.test(chars[k])) k++;
				if (chars[k] === ')' || chars[k] === ']') {
					read += 'T';
					i = k;
					continue;
				}
			}
		}
		if (/\s/.test(char) || PHONE_SEPARATORS.includes(char) || /[\p{Pd}\p{Cf}]/u.test(char)) continue;
		read += char;
	}
	if (read.startsWith('00')) read = `+${read.slice(2)}`;
	if (!read.startsWith('+')) return undefined;
	const digits = read.slice(1);
	const code = [1, 2, 3].map((length) => digits.slice(0, length)).find((candidate) => CALLING_CODES.has(candidate));
	let national = code === undefined ? digits : digits.slice(code.length);
	if (code !== undefined && national.startsWith('T')) national = national.slice(1);
	else if (code !== undefined && national.startsWith('0')) return UNDECIDED;
	const phone = `+${code ?? ''}${national.replace(/T/g, '0')}`;
	if (!/^\+[0-9]+$/.test(phone)) return undefined;
	const count = phone.length - 1;
	return phone[1] !== '0' && count >= 7 && count <= 15 ? phone : undefined;
}

/** Text that must not be empty: the text as it is sent (unchanged), or undefined when refused. */
export function modelRequiredText(value: Input): string | undefined {
	const text = modelText(value);
	// Blank: nothing a reader sees (spaces, or only invisible format characters such as a zero-width space).
	return text !== undefined && text.replace(/\p{Cf}/gu, '').trim() !== '' ? text : undefined;
}

/** A whole number of at least `min`: numbers as they are, decimal strings as the number they spell. */
export function modelInteger(value: Input, min: number): number | undefined {
	const raw = value === MISSING ? undefined : value;
	const number = typeof raw === 'string' && isDecimalIntegerText(raw) ? Number(raw) : raw;
	return typeof number === 'number' && Number.isSafeInteger(number) && number >= min ? number : undefined;
}

export const isDecimalIntegerText = (value: string) => /^\s*[+-]?\d+(\.0*)?\s*$/.test(value);

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const HUGE = 100 * 1024;

/** 100 KB strings of a few kinds (ASCII, multi-byte, digits that look like a phone). */
export const hugeString = fc.constantFrom(
	'x'.repeat(HUGE),
	'é✓😀'.repeat(HUGE / 4),
	`+${'1'.repeat(HUGE)}`,
	` ${'a b '.repeat(HUGE / 4)} `,
);

/** Types an expression can produce that are not text. */
export const wrongType: fc.Arbitrary<Input> = fc.oneof(
	fc.integer(),
	fc.double(),
	fc.constantFrom(0, -0, 1e21, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity, -Infinity),
	fc.boolean(),
	fc.constant(null),
	fc.constant(MISSING),
	fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 3 }),
	fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.integer()), { maxLength: 3 }),
	fc.constant({}),
	fc.constant([]),
);

/** Strings of every shape: ASCII, full Unicode, graphemes, whitespace, control characters, lone surrogates. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
	fc.string({ maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 40 }),
	fc.string({ unit: 'grapheme', maxLength: 20 }),
	fc.constantFrom('', ' ', '\t\n', '\u00a0', '\u2028', '\ufeff', '\u200b', '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '{{ $json.x }}', '=1+1', '"quoted"', '\\', '<b>x</b>', "'; DROP TABLE--"),
);

const SEPARATORS = [' ', '-', '.', '(', ')', '[', ']', '\t', '\u00a0', '  ', ' (0) ', '[0]'];

/** A valid number written the ways people write it: separators anywhere, + or 00. */
const formattedValidPhone = fc
	.tuple(
		fc.integer({ min: 1, max: 9 }),
		fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 14 }),
		fc.constantFrom('+', '00', ' +', '+ '),
		fc.array(fc.constantFrom(...SEPARATORS, '', '', ''), { minLength: 16, maxLength: 16 }),
	)
	.map(([first, rest, prefix, seps]) => prefix + [first, ...rest].map((digit, n) => `${digit}${seps[n] ?? ''}`).join(''));

/** Numbers that are almost valid: too short/long, leading 0, letters, other dashes and digits, no prefix. */
const nearValidPhone = fc.oneof(
	fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 20 }).map((digits) => `+${digits.join('')}`),
	fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 7, maxLength: 15 }).map((digits) => digits.join('')),
	fc.constantFrom(
		'+0123456789',
		'+1234567890123456',
		'+123456',
		'0014155550123',
		'000014155550123',
		'00+14155550123',
		'++14155550123',
		'+1 415 555 0123 ext 4',
		'+1–415–555–0123', // en dashes: taken out like '-'
		'+１４１５５５５０１２３', // full-width digits
		'＋14155550123', // full-width plus
		'+٤١٥٥٥٥٠١٢٣٤', // Arabic-Indic digits
		'+1415555O123', // letter O
		'+1/415/555/0123',
		'+1_415_555_0123',
		'tel:+14155550123',
		'+1{415}5550123',
		'(+1) 415 555 0123',
		'+49 (0) 151 2345678',
		' 0049 151 2345678 ',
	),
);

/**
 * The contract's trunk mark right after a real country code, the national number after it
 * starting with any digit (a 0 there is part of the number: the mark was the trunk 0).
 */
const writtenTrunkPhone = fc
	.tuple(
		fc.constantFrom(...CALLING_CODES),
		fc.constantFrom('(0)', '( 0 )', '[0]', '(0) '),
		// Half of them go on with a 0: where a reader could take the trunk 0 twice.
		fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })),
		fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 5, maxLength: 10 }),
	)
	.map(([code, mark, first, digits]) => `+${code} ${mark}${first}${digits.join('')}`);

export const phoneInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 4, arbitrary: formattedValidPhone },
	{ weight: 2, arbitrary: writtenTrunkPhone },
	{ weight: 3, arbitrary: nearValidPhone },
	{ weight: 2, arbitrary: anyString },
	{ weight: 2, arbitrary: wrongType },
	{ weight: 1, arbitrary: hugeString },
);

/** Text with whitespace around it: it must be sent as it is (only phones are normalised). */
const paddedString = fc
	.tuple(fc.constantFrom(' ', '\n', '\t', '\u00a0', '  ', ''), anyString, fc.constantFrom(' ', '\r\n', '\u3000', ''))
	.map(([before, text, after]) => `${before}${text}${after}`);

export const textInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 4, arbitrary: anyString },
	{ weight: 2, arbitrary: paddedString },
	{ weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 200, maxLength: 2000 }) },
	{ weight: 2, arbitrary: wrongType },
	{ weight: 1, arbitrary: hugeString },
);

/** Plant ids and limits: integers, numeric strings, decimals, negatives, huge, wrong types. */
export const integerInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 3, arbitrary: fc.integer({ min: -5, max: 1_000_000 }) },
	{ weight: 2, arbitrary: fc.integer({ min: -5, max: 100_000 }).chain((n) => fc.constantFrom(String(n), ` ${n} `, `${n}.0`, `+${n}`)) },
	{ weight: 1, arbitrary: fc.constantFrom(0, -0, 1.5, -1, 2 ** 53, 2 ** 53 - 1, 1e21, '1.5', '', ' ', 'abc', '12abc', '١٢', 'Infinity', '-0') },
	{ weight: 2, arbitrary: wrongType },
	{ weight: 1, arbitrary: anyString },
);

// ---------------------------------------------------------------------------------------------
// Running one input
// ---------------------------------------------------------------------------------------------

/** Puts a value into an item so that `={{ $json.<key> }}` yields exactly that value. */
export function itemWith(values: Record<string, Input>): IDataObject {
	const item: IDataObject = {};
	for (const [key, value] of Object.entries(values)) if (value !== MISSING) item[key] = value as IDataObject[string];
	return item;
}

export interface FuzzRun {
	type?: 'messaging' | 'sandboxPlants';
	parameters: IDataObject;
	items: IDataObject[];
	credentialType?: 'messagingBearerApi' | 'messagingAuthorizationKeyApi' | 'messagingXApiKeyApi';
	expressionEngine?: 'legacy' | 'vm';
}

const BOUND_MS = 15_000;

/** One run of the node, bounded: a hang is a failure, not a stuck suite. */
export async function runBounded(emulator: Emulator, run: FuzzRun) {
	emulator.reset();
	let timer: NodeJS.Timeout | undefined;
	const hang = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`HANG: the run did not finish within ${BOUND_MS} ms`)), BOUND_MS);
	});
	try {
		const result = await Promise.race([
			runOn(emulator, { ...run, expressionEngine: run.expressionEngine ?? 'legacy' }),
			hang,
		]);
		return { ...result, requests: [...emulator.requests] };
	} finally {
		clearTimeout(timer);
	}
}

export interface ExpectedRequest {
	api: RequestRecord['api'];
	method: string;
	path?: string;
	body?: unknown;
	query?: Record<string, string>;
}

type RunResult = Awaited<ReturnType<typeof runBounded>>;

const describeError = (error: unknown) => {
	if (!(error instanceof Error)) return String(error);
	const { context } = error as { context?: unknown };
	return `${error.constructor.name}(${error.name}): ${error.message.slice(0, 300)} context=${JSON.stringify(context ?? null)}`;
};

export class PropertyViolation extends Error {}

function fail(message: string, run: RunResult): never {
	const requests = run.requests.map((r) => ({ api: r.api, method: r.method, path: r.path, query: r.query, body: JSON.stringify(r.body)?.slice(0, 300) }));
	throw new PropertyViolation(`${message}\n  error: ${run.error ? describeError(run.error) : 'none'}\n  requests: ${JSON.stringify(requests)}\n  output: ${JSON.stringify(run.items.map((i) => i.json)).slice(0, 400)}`);
}

/**
 * The node refused the input: NodeOperationError with context.itemIndex, and nothing was sent.
 * `reads`: the only requests allowed, in order, each as `METHOD api` (Send Template reads the
 * account's templates once, before any item is checked against them).
 */
export function expectRefusedBeforeAnyRequest(run: RunResult, itemIndex: number, field?: RegExp, reads: string[] = []) {
	const { error } = run;
	if (!(error instanceof n8nWorkflow.NodeOperationError)) fail(`expected a NodeOperationError for item ${itemIndex}`, run);
	const context = (error as { context?: { itemIndex?: unknown } }).context;
	if (context?.itemIndex !== itemIndex) fail(`expected context.itemIndex ${itemIndex}`, run);
	if (field && !field.test(error.message)) fail(`expected the error to name the field ${field}`, run);
	const made = run.requests.map((request) => `${request.method} ${request.api}`);
	if (JSON.stringify(made) !== JSON.stringify(reads)) {
		fail(`expected ${reads.length === 0 ? 'no request at all' : `only ${reads.join(', ')}`} (bad input is refused before anything is sent)`, run);
	}
}

/**
 * The node sent exactly `expected` (as the last request of the run) and then either succeeded
 * or reported the service's refusal of it.
 */
export function expectSent(run: RunResult, expected: ExpectedRequest, requestCount: number) {
	const { error } = run;
	if (error && !(error instanceof n8nWorkflow.NodeApiError)) fail('expected the request to be sent (and at most a service error)', run);
	if (run.requests.length !== requestCount) fail(`expected ${requestCount} request(s)`, run);
	const request = run.requests.at(-1)!;
	if (request.api !== expected.api || request.method !== expected.method) fail(`expected ${expected.method} to ${expected.api}`, run);
	if (expected.path !== undefined && request.path !== expected.path) fail(`expected path ${expected.path}`, run);
	if (expected.query !== undefined && JSON.stringify(request.query) !== JSON.stringify(expected.query)) fail(`expected query ${JSON.stringify(expected.query)}`, run);
	if (expected.body !== undefined && !sameJson(request.body, expected.body)) {
		fail(`expected body ${JSON.stringify(expected.body).slice(0, 300)}`, run);
	}
	if (error) {
		// A service refusal must come from an answer the emulator gave (not a client-side failure).
		if (!['rejected', 'delivered', 'ok'].includes(request.outcome)) fail(`unexpected outcome ${request.outcome}`, run);
		if (request.outcome !== 'rejected') fail('a NodeApiError although the service accepted the request', run);
	} else if (request.outcome === 'rejected') {
		fail('the service refused the request but the node reported success', run);
	}
}

/** Deep equality of JSON values with key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const aKeys = Object.keys(a as object);
	const bKeys = Object.keys(b as object);
	if (aKeys.length !== bKeys.length) return false;
	return aKeys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson((a as IDataObject)[key], (b as IDataObject)[key]));
}

/**
 * fast-check settings: modest runs, reproducible with FUZZ_SEED (printed on failure), more with
 * FUZZ_RUNS (e.g. FUZZ_RUNS=2000 for a long local hunt; a property then stops after 50 s).
 */
export const fcOptions = (numRuns = 60): fc.Parameters<unknown> => ({
	numRuns: Number(process.env.FUZZ_RUNS ?? numRuns),
	seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
	interruptAfterTimeLimit: 50_000,
	markInterruptAsFailure: false,
});

/**
 * Counts which way each generated input went, so a property cannot pass vacuously (e.g. a
 * generator that only ever produces refused inputs). `expectBoth` is called after fc.assert.
 */
export class Tally {
	sent = 0;
	refused = 0;

	/** expectRefusedBeforeAnyRequest, counted. */
	refusedBeforeAnyRequest(run: RunResult, itemIndex: number, field?: RegExp, reads?: string[]): void {
		this.refused++;
		expectRefusedBeforeAnyRequest(run, itemIndex, field, reads);
	}

	/** expectSent, counted. */
	sentExactly(run: RunResult, expected: ExpectedRequest, requestCount: number): void {
		this.sent++;
		expectSent(run, expected, requestCount);
	}

	/**
	 * Both outcomes were exercised, each by at least `share` of the runs. Low enough that a
	 * random seed does not fail a sound generator (one refused 5 of 60 inputs where 6 were
	 * asked for), high enough to catch one that has stopped producing one of the outcomes.
	 */
	expectBoth(share = 0.05): void {
		const total = this.sent + this.refused;
		if (this.sent < total * share || this.refused < total * share) {
			throw new Error(`the generators are lopsided: ${this.sent} sent, ${this.refused} refused of ${total}`);
		}
	}
}
