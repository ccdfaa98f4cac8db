import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { ZERO_AFTER_CALLING_CODE } from './trunkZero.generated';

/** E.164: a leading +, a first digit 1-9, 7 to 15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;

/** Country calling codes, longest first: the one a number starts with is found by its first digits (they are prefix-free). */
const CALLING_CODES = Object.keys(ZERO_AFTER_CALLING_CODE).sort((a, b) => b.length - a.length);

/** Stands for a bracketed 0 while a number is read (not a character a number can hold). */
const TRUNK_MARK = 'Z';

export type PhoneCheck = { ok: true; phone: string } | { ok: false; problem: string };

/**
 * A phone number as users paste it ("+1 (415) 555-0123", "0049 151 2345678") in E.164 form, or
 * what is wrong with it. Only separators are removed, and a trunk 0: written "(0)" or "[0]"
 * after the country code ("+44 (0) 20 7946 0958"), or right after it in a country whose plan
 * dials it only at home ("+49 0151 ...", "0049 0151 ..."), from libphonenumber's numbering
 * plans (trunkZero.generated.ts). Italy keeps its 0 ("+39 06 ..."); where the countries sharing
 * a code disagree, or the code is unknown, that form is refused: digits are never guessed, so a
 * number stays an error instead of reaching a stranger.
 */
export function normalizePhoneNumber(raw: string): PhoneCheck {
	const notE164 = { ok: false as const, problem: `${quoted(raw)} is not a phone number in E.164 format` };
	// A bracketed 0 is marked first: it is the trunk mark only where it stands right after the
	// country code; anywhere else it is a digit like any other.
	// Also taken out: any dash (an en dash from a word processor) and invisible format characters
	// (direction marks from a phone's contacts, zero-width spaces). Other digits than 0-9
	// (full-width, Arabic-Indic) are refused, not read.
	let phone = raw
		// Invisible ones first: "(\u200b0)" is the "(0)" the user sees.
		.replace(/\p{Cf}/gu, '')
		.replace(/[([]\s*0\s*[)\]]/g, TRUNK_MARK)
		.trim()
		.replace(/[\s\p{Pd}.()[\]]/gu, '');
	if (phone.startsWith('00')) phone = `+${phone.slice(2)}`;
	const code = CALLING_CODES.find((candidate) => phone.startsWith(candidate, 1));
	// A written trunk mark is the one trunk 0 there is: what follows it is the number as the
	// user meant it, so the country's rule for a bare 0 does not take a second one.
	const trunkWritten = phone.startsWith('+') && code !== undefined && phone[1 + code.length] === TRUNK_MARK;
	if (trunkWritten) phone = `+${code}${phone.slice(2 + code.length)}`;
	phone = phone.split(TRUNK_MARK).join('0');
	if (!/^\+\d+$/.test(phone)) return notE164;
	if (!trunkWritten && code !== undefined && phone[1 + code.length] === '0') {
		const rule = ZERO_AFTER_CALLING_CODE[code];
		if (rule === 'drop') phone = `+${code}${phone.slice(2 + code.length)}`;
		else if (rule === 'depends') {
			return {
				ok: false,
				problem: `${quoted(raw)} has a 0 right after the country code +${code}, which some countries using +${code} dial and others do not; write the number without it as it is dialled from abroad`,
			};
		}
	}
	return E164.test(phone) ? { ok: true, phone } : notE164;
}

export type AttachmentCheck =
	| { ok: true; url: string }
	| { ok: false; problem: string };

/**
 * Checks an attachment URL: a public http(s) link. Its file type and size are the service's to
 * judge (spec 7, condition 9): a name's extension need not be the file's type (a CDN serves
 * "photo.webp" as JPEG), and the service knows what it takes today.
 */
export function checkAttachmentUrl(raw: string): AttachmentCheck {
	let url: URL;
	try {
		url = new URL(raw.trim());
	} catch {
		return { ok: false, problem: `${quoted(raw)} is not a URL; use a public http(s) link to the file` };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { ok: false, problem: `${quoted(raw)} must start with https:// or http:// (a public link the service can fetch)` };
	}
	// The URL goes out as the user wrote it; URL() would rewrite it (a trailing slash, escapes).
	return { ok: true, url: raw.trim() };
}

/**
 * Parameter values may come from expressions as numbers, booleans or dates ({{ $now }} is a
 * Luxon DateTime); dates become ISO text. Other objects and lists are not text.
 */
export function asText(value: unknown): string | undefined {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	// NaN and Infinity are the result of a broken expression, not a value to send.
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	const toISO = (value as { toISO?: unknown }).toISO;
	if (typeof toISO === 'function') {
		const iso: unknown = toISO.call(value);
		return typeof iso === 'string' ? iso : undefined;
	}
	return undefined;
}

/**
 * Text with nothing a reader sees: spaces, line breaks, or only invisible format characters (a
 * zero-width space pasted from a rich-text field, a direction mark) that would arrive as a blank
 * message.
 */
export const isBlank = (text: string): boolean => text.replace(/\p{Cf}/gu, '').trim() === '';

/** A value quoted in an error message: long ones are cut, so a 100 KB field stays readable. */
export function quoted(value: string, max = 60): string {
	return value.length > max ? `"${value.slice(0, max)}…" (${value.length} characters)` : `"${value}"`;
}

/**
 * Reads and checks one item's parameters. Every failure is a NodeOperationError that names
 * the item and the field, raised before the item's request is built.
 */
export class ItemInput {
	constructor(
		private readonly context: IExecuteFunctions,
		readonly itemIndex: number,
	) {}

	fail(field: string, label: string, problem: string, description?: string): never {
		throw new NodeOperationError(
			this.context.getNode(),
			`${label} (${field}): ${problem} [item ${this.itemIndex}]`,
			{ itemIndex: this.itemIndex, description },
		);
	}

	/**
	 * The parameter's value for this item. An expression that fails (a node renamed since it was
	 * written, `$('Node')` with no run) is named like every other bad value: the field and the item.
	 */
	raw(field: string, label: string, fallback?: unknown, options?: { extractValue?: boolean }): unknown {
		try {
			return this.context.getNodeParameter(field, this.itemIndex, fallback, options);
		} catch (error) {
			if (error instanceof Error && error.name === 'ExpressionError') {
				const { description } = error as Error & { description?: string | null };
				return this.fail(field, label, `its expression failed: ${error.message}`, description ?? undefined);
			}
			throw new NodeOperationError(this.context.getNode(), error as Error, { itemIndex: this.itemIndex });
		}
	}

	/** Text that may be empty. */
	optionalText(field: string, label: string, options?: { extractValue?: boolean }): string {
		return this.textOf(this.raw(field, label, '', options), field, label);
	}

	/** Text that must not be empty (nor only spaces or invisible characters). */
	text(field: string, label: string): string {
		return this.notBlank(this.optionalText(field, label), field, label);
	}

	phone(field: string, label: string): string {
		const value = this.raw(field, label, '');
		const check = normalizePhoneNumber(this.notBlank(this.textOf(value, field, label), field, label));
		if (!check.ok) {
			// A column of numbers (a spreadsheet, a CRM) cannot hold the leading +.
			const asNumber = typeof value === 'number' ? '; it came as a number, which cannot hold the leading +' : '';
			this.fail(
				field,
				label,
				`${check.problem}${asNumber}`,
				`Use the international format: a leading + (or 00), the country code, then the number, 7 to 15 digits in all, e.g. +14155550123. Spaces, dashes, dots and brackets are ignored.${asNumber ? ' For numbers stored without their +, write the field as an expression such as {{ "+" + $json.phone }}.' : ''}`,
			);
		}
		return check.phone;
	}

	private textOf(value: unknown, field: string, label: string): string {
		const text = asText(value);
		if (text === undefined) this.fail(field, label, 'must be text or a finite number, not an object or list');
		return text;
	}

	private notBlank(text: string, field: string, label: string): string {
		if (isBlank(text)) this.fail(field, label, 'must not be empty');
		return text;
	}

	attachmentUrl(field: string, label: string): { url: string } | undefined {
		const raw = this.optionalText(field, label);
		if (raw.trim() === '') return undefined;
		const check = checkAttachmentUrl(raw);
		if (!check.ok) this.fail(field, label, check.problem);
		return check;
	}

	/** A whole number within bounds (IDs, limits). */
	integer(field: string, label: string, { min }: { min: number }): number {
		const raw = this.raw(field, label);
		// Decimal only: Number() would also read "0x10", "0b10000" and "1.6e1" as 16.
		const value = typeof raw === 'string' && /^\s*[+-]?\d+(\.0*)?\s*$/.test(raw) ? Number(raw) : raw;
		// Said as what came: an AI agent that left the field out reads "undefined" as a value it sent (outside review).
		if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) this.fail(field, label, 'is missing; give a whole number');
		if (typeof raw === 'object') this.fail(field, label, `must be a whole number, not ${Array.isArray(raw) ? 'a list' : 'an object'}`);
		if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
			this.fail(field, label, `${quoted(String(raw))} is not a whole number`);
		}
		if (value < min) this.fail(field, label, `must be at least ${min}, got ${value}`);
		return value;
	}
}
