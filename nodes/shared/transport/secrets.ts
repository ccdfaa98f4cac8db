import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { keyOf } from '../../../credentials/headerAuthentication';

/** The credential fields that hold a secret. */
const SECRET_FIELDS = ['accessToken', 'apiKey'];

/**
 * Secrets this long are scrubbed wherever they stand, in any form. A shorter one (a test key,
 * "secret") is scrubbed only where it stands as a word of its own, as it was written: anywhere,
 * or in any letter case, it would blank out parts of ordinary words ("bad" in "Bad request").
 */
const MIN_SECRET_LENGTH = 8;

/** A credential's secrets, ready to be scrubbed from what a service says. */
export interface Secrets {
	/** As is, in any letter case, URL-encoded or JSON-escaped. */
	readonly anyCase?: RegExp;
	/** Base64 (standard and URL-safe) at each of the three byte alignments, as is. */
	readonly encoded?: RegExp;
	/** Secrets shorter than MIN_SECRET_LENGTH, as words of their own: in text as read, never in JSON text (in "1234" or "true" it would break the JSON). */
	readonly words?: RegExp;
	/** Those short secrets as written and JSON-escaped: what JSON text holding one of them contains. */
	readonly short?: readonly string[];
}

const NO_SECRETS: Secrets = {};

export function secretsOf(credentials: ICredentialDataDecryptedObject): Secrets {
	return keySecrets(SECRET_FIELDS.map((field) => credentials[field]));
}

/** Keys as the user pasted them and as they are sent (keyOf: without a "Bearer " pasted with them), ready to be scrubbed. */
export const keySecrets = (keys: unknown[]): Secrets => secretValues(keys.flatMap((key) => [key, keyOf(key)]));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Base64 of `secret` wherever it stands in longer base64 text (e.g. "Basic " + base64(user:key)):
 * for each of the three alignments, the characters that depend on the secret's bytes alone.
 */
function base64Forms(secret: string): string[] {
	const bytes = new TextEncoder().encode(secret);
	const forms: string[] = [];
	for (let lead = 0; lead < 3; lead++) {
		const padded = new Uint8Array(lead + bytes.length);
		padded.set(bytes, lead);
		const full = btoa(String.fromCharCode(...padded)).replace(/=+$/, '');
		const core = full.slice(Math.ceil((lead * 8) / 6), Math.floor((padded.length * 8) / 6));
		if (core.length >= MIN_SECRET_LENGTH) forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return forms;
}

/** The names HTML gives the characters a page must escape (others, `+` among them, it writes by number: `&#43;`). */
const NAMED_ENTITIES: Record<string, string[]> = { '&': ['&amp;'], '<': ['&lt;'], '>': ['&gt;'], '"': ['&quot;'], "'": ['&apos;'] };

/**
 * One character of a secret as it is written, or as a page, a URL or JSON text spells it: a
 * decimal or hex entity (with leading zeros, in any case: the pattern ignores case), its HTML
 * name, its UTF-8 bytes percent-encoded, or JSON's escape of `"` and `/`. Each character on its
 * own, so every mixture matches: an escaper that writes `/`, `+` and `=` as entities but leaves
 * `_` (OWASP's encoders do), one that escapes only `& < > "`, a URL that encodes letters. A `\`
 * is not also spelled `\\` here: with two spellings, one the other's start, a run of backslashes
 * in a key could be matched in exponentially many ways against a run in an answer (64 KB of them
 * took 53 s); JSON's escaping of the whole key is a form of its own (secretValues).
 */
function spelledChar(char: string): string {
	const code = char.codePointAt(0)!;
	const written = [
		char,
		...(NAMED_ENTITIES[char] ?? []),
		Array.from(new TextEncoder().encode(char), (byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
		...(char === '"' || char === '/' ? [`\\${char}`] : []),
	];
	return `(?:${[`&#0*${code};`, `&#x0*${code.toString(16)};`, ...written.map(escapeRegExp)].join('|')})`;
}

/** The secret in every spelling of each of its characters (spelledChar). */
const spelled = (secret: string) => Array.from(secret, spelledChar).join('');

export function secretValues(values: unknown[]): Secrets {
	const all = [...new Set(values.filter((value): value is string => typeof value === 'string' && value.trim() !== '').map((value) => value.trim()))];
	const secrets = all.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
	const short = all.filter((secret) => secret.length < MIN_SECRET_LENGTH);
	if (all.length === 0) return NO_SECRETS;
	const byLength = (a: string, b: string) => b.length - a.length;
	const either = (forms: Iterable<string>) => [...forms].sort(byLength).map(escapeRegExp).join('|');
	// Hex of its bytes (a debugging proxy's dump), and every spelling of each character.
	const hex = (secret: string) => Array.from(new TextEncoder().encode(secret), (byte) => byte.toString(16).padStart(2, '0')).join('');
	const longestFirst = [...secrets].sort(byLength);
	const jsonEscaped = (secret: string) => JSON.stringify(secret).slice(1, -1);
	const anyCase = [
		...longestFirst.map(spelled),
		// As JSON text writes it, and as PHP's json_encode does (`/` as `\/` too).
		...[...new Set(longestFirst.flatMap((secret) => [jsonEscaped(secret), jsonEscaped(secret).replace(/\//g, '\\/')]))]
			.filter((form) => !longestFirst.includes(form))
			.map(escapeRegExp),
		...longestFirst.map((secret) => escapeRegExp(hex(secret))),
	].join('|');
	return {
		...(secrets.length > 0 ? { anyCase: new RegExp(anyCase, 'gi'), encoded: new RegExp(either(new Set(secrets.flatMap(base64Forms))), 'g') } : {}),
		...(short.length > 0
			? {
					words: new RegExp(`(?<![\\p{L}\\p{N}])(?:${either(short)})(?![\\p{L}\\p{N}])`, 'gu'),
					short: [...new Set(short.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))],
				}
			: {}),
	};
}

/**
 * `text` with every form of every secret replaced: what a service says, before anything reads it.
 * `long`: only the secrets scrubbed wherever they stand, for JSON text before it is parsed (a
 * short one is looked for as a word once the text is read: scrubSecrets).
 */
export function scrubText(text: string, secrets: Secrets, forms: 'all' | 'long' = 'all'): string {
	let scrubbed = text;
	for (const pattern of [secrets.anyCase, secrets.encoded, forms === 'all' ? secrets.words : undefined]) if (pattern) scrubbed = scrubbed.replace(pattern, '[redacted]');
	return scrubbed;
}

/**
 * A value with every secret replaced wherever it stands (values and keys, at any depth): a
 * service (or a proxy) that echoes the key it received must not put it into an error, an output
 * item or a log. Returned as it is when no secret occurs in it (nearly every answer); a value
 * that cannot be written out as JSON is replaced by a note saying so.
 */
export function scrubSecrets(value: unknown, secrets: Secrets): unknown {
	if (!secrets.anyCase && !secrets.words) return value;
	if (typeof value === 'string') return scrubText(value, secrets);
	if (typeof value !== 'object' || value === null) return value;
	let text: string;
	try {
		text = JSON.stringify(value);
	} catch {
		return '[an answer the node could not read]';
	}
	// Walked only when a secret may be in it. A short one is looked for as written in the JSON
	// text: its neighbours there are not its neighbours in the value ("\n" before it reads "n").
	const mayHold = scrubText(text, secrets, 'long') !== text || (secrets.short ?? []).some((secret) => text.includes(secret));
	return mayHold ? scrubEach(value, secrets) : value;
}

/**
 * Every text (key or value) and number scrubbed on its own, walking the value: replacing in its
 * JSON text and parsing that again could cut through an escape or a number ("\u000aBC…" for a
 * key "nbc…", "1.2345678E7" for "12345678") and fail to parse.
 */
function scrubEach(value: unknown, secrets: Secrets): unknown {
	if (typeof value === 'string') return scrubText(value, secrets);
	if (typeof value === 'number' || typeof value === 'bigint') return scrubText(String(value), secrets) === String(value) ? value : '[redacted]';
	if (typeof value !== 'object' || value === null) return value;
	if (Array.isArray(value)) return value.map((element) => scrubEach(element, secrets));
	// A field name is not scrubbed for a short secret: one spelled "message" or "id" would rename the field the answer is read by.
	return Object.fromEntries(Object.entries(value).map(([key, element]) => [scrubText(key, secrets, 'long'), scrubEach(element, secrets)]));
}
