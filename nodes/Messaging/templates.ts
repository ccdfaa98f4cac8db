import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { isObject, oneLine } from '../shared/errors';
import { checkTarget, editorRequest, optionalRequest } from '../shared/transport';
import type { Run, ServiceRequest } from '../shared/transport';

/** A template record as list templates returns it (spec part 2.5). */
export interface TemplateRecord {
	id: number;
	user_id?: string;
	name: string;
	category?: string;
	type?: string;
	language?: string;
	status?: string;
	variable_counts?: number;
	template_formate?: string;
	template_id: string;
}

const TEMPLATE_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether `text` has the form of a template ID (spec 2.3: UUID-shaped). */
export const isTemplateId = (text: string) => TEMPLATE_ID.test(text);

/** A record the picker, the variable fields and a run can use: an object with a template ID. */
const isUsable = (record: unknown): record is TemplateRecord => isObject(record) && typeof record.template_id === 'string' && record.template_id.trim() !== '';

/**
 * Spec 4.3: list templates answers a JSON array of template records. One record that lacks a
 * field or has another type than spec 2.5 shows does not fail the whole list: Get Many outputs
 * every record as the service sent it, and the picker, the variable fields and a run set aside
 * those they cannot use (no template ID), so the account's other templates can still be chosen.
 * A list none of whose records has a template ID is not a templates answer (another API behind a
 * wrong base URL).
 */
export const LIST_TEMPLATES: ServiceRequest = {
	api: 'templates',
	method: 'GET',
	path: '/get_templates',
	isSuccess: (answer) => Array.isArray(answer) && (answer.length === 0 || answer.some(isUsable)),
};

/** The account's templates for the editor (the API has no paging or filters), one record per ID (in any letter case). */
export async function listTemplates(this: ILoadOptionsFunctions): Promise<TemplateRecord[]> {
	return usableOnce((await editorRequest.call(this, LIST_TEMPLATES)) as unknown[]);
}

/**
 * The records a picker, the variable fields and a run can use, one per ID, each ID without the
 * spaces a record may carry around it (" 6f1d… " is the template 6f1d…: the picker's value, the
 * ID typed in and the one sent are all that).
 */
function usableOnce(records: unknown[]): TemplateRecord[] {
	const seen = new Set<string>();
	const usable: TemplateRecord[] = [];
	for (const record of records) {
		if (!isUsable(record)) continue;
		const templateId = record.template_id.trim();
		const id = templateId.toLowerCase();
		if (seen.has(id)) continue;
		seen.add(id);
		usable.push(templateId === record.template_id ? record : { ...record, template_id: templateId });
	}
	return usable;
}

/**
 * The account's templates as the service lists them now, read once per run and shared by its
 * items; none when they cannot be read (no Templates Base URL, an error), and the run then sends
 * without them, the template send judging each message.
 */
export async function accountTemplates(run: Run, itemIndex: number): Promise<TemplateRecord[]> {
	await checkTarget(run, LIST_TEMPLATES.api, itemIndex, true);
	return await run.once('templates', async () => {
		const records = await optionalRequest<unknown[]>(run, itemIndex, LIST_TEMPLATES);
		return records ? usableOnce(records) : [];
	});
}

/** The template of that ID: UUIDs are compared in one letter case, so an ID typed in capitals is the same template. */
export function findTemplate(records: TemplateRecord[], templateId: string): TemplateRecord | undefined {
	const wanted = templateId.toLowerCase();
	return records.find((record) => String(record.template_id).toLowerCase() === wanted);
}

export interface TemplateVariable {
	name: string;
	/** What the editor shows: its name, and the words around it: "Body 2: …appointment on {2}." */
	label: string;
}

/**
 * One placeholder of `template_formate`. The spec shows only the shape `[b:7]`; the emulator
 * writes `[b:1]` (body), `[m:media]` (media header) and `[u:visit_website]` (button URL
 * parameter). `[body:1]`, `{{1}}`, `{{body1}}`, `{{media}}` and a bare `visit_website` are
 * read too, so a service that writes them another way still gets the right fields.
 */
// A label inside brackets is at most 64 characters and never crosses another bracket: an
// unbounded `[^\]]*` rescans the rest of the text from every "[m:" without a "]" (quadratic).
const PLACEHOLDER =
	/\[b(?:ody)?:(\d+)\]|\{\{\s*(?:body)?(\d+)\s*\}\}|\bbody(\d+)\b|(\[m(?:edia)?(?::[^[\]]{0,64})?\]|\{\{\s*media\s*\}\})|(\[(?:u|url|btn|button)(?::[^[\]]{0,64})?\]|\bvisit_website\b)/gi;

/** No real template comes near these (spec 2.3 names five variables; a message body holds about a thousand characters). */
const TEMPLATE_LIMITS = { variables: 100, textLength: 10_000 } as const;

/**
 * Why the node cannot use a template record as the service sent it (absurdly many variables,
 * or a text far longer than any message), or undefined when it can. Checked before anything
 * is built from the record, so such a record costs nothing.
 */
export function templateProblem(record: TemplateRecord): string | undefined {
	// Spec 2.3: a template is sent by its UUID; the node refuses any other ID when it runs, so the picker does not offer one.
	if (!isTemplateId(record.template_id)) return `its ID ${JSON.stringify(record.template_id)} is not a UUID, the form the template send takes`;
	const count = Number(record.variable_counts);
	if (Number.isFinite(count) && count > TEMPLATE_LIMITS.variables) {
		return `the service says it has ${count} variables, more than any template the node can fill (${TEMPLATE_LIMITS.variables})`;
	}
	const format = record.template_formate;
	if (typeof format === 'string' && format.length > TEMPLATE_LIMITS.textLength) {
		return `its text is ${format.length} characters long, more than any message (${TEMPLATE_LIMITS.textLength})`;
	}
	return undefined;
}

/** "Template "name" (id)": how errors name a template. */
export const templateName = (record: TemplateRecord) => `Template "${nameOf(record)}" (${String(record.template_id)})`;

/** A record's field as text: a list or an object is no status, category or language (a status read so is "unknown"). */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A template's name as text: a numeric name is its digits; any other type none. */
export const nameText = (record: TemplateRecord): string => {
	const name: unknown = record.name;
	return typeof name === 'number' && Number.isFinite(name) ? String(name) : textOf(name);
};

/** The name a template goes by: its name as text, else its ID, never "null" or "[object Object]". */
export function nameOf(record: TemplateRecord): string {
	const name = nameText(record);
	return name.trim() !== '' ? name : String(record.template_id);
}

/** The variable a placeholder match stands for. */
function variableOf(match: RegExpMatchArray): string {
	const body = match[1] ?? match[2] ?? match[3];
	if (body !== undefined) return `body${Number(body)}`;
	return match[4] !== undefined ? 'media' : 'visit_website';
}

/** How a variable shows in readable template text: {1}, {media}, {link}. */
function readableToken(variable: string): string {
	if (variable === 'media') return '{media}';
	if (variable === 'visit_website') return '{link}';
	return `{${variable.slice('body'.length)}}`;
}

/** The template's text as a person reads it: "Hello {1}, your appointment on {2}." on one line. */
export function templateText(record: TemplateRecord): string {
	if (templateProblem(record)) return '';
	const format = typeof record.template_formate === 'string' ? record.template_formate : '';
	return format
		.replace(PLACEHOLDER, (...match) => readableToken(variableOf(match as unknown as RegExpMatchArray)))
		.replace(/\s+/g, ' ')
		.trim();
}

/** `text` cut to at most `max` characters at a word boundary, with "…" where it was cut. */
export function shortened(text: string, max: number): string {
	if (text.length <= max) return text;
	const cut = text.slice(0, max - 1);
	const space = cut.lastIndexOf(' ');
	return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The words just around `token` in `text`, about `max` characters, cut at word boundaries.
 * Mostly the words before it: they usually say what the value is ("appointment on {2}").
 */
function around(text: string, token: string, max: number): string | undefined {
	const at = text.indexOf(token);
	if (at < 0) return undefined;
	if (text.length <= max) return text;
	const room = Math.max(0, max - token.length);
	const afterRoom = Math.min(text.length - at - token.length, Math.floor(room / 4));
	let start = Math.max(0, at - (room - afterRoom));
	let end = Math.min(text.length, at + token.length + (room - (at - start)));
	// Whole words only: a cut inside a word moves to the nearest space towards the token.
	if (start > 0 && text[start - 1] !== ' ') {
		const space = text.indexOf(' ', start);
		start = space >= 0 && space < at ? space + 1 : at;
	}
	if (end < text.length && text[end] !== ' ') {
		const space = text.lastIndexOf(' ', end);
		end = space >= at + token.length ? space : at + token.length;
	}
	const words = text.slice(start, end).trim();
	const head = start > 0 ? '…' : '';
	// "is confirmed…", not "is confirmed.…"
	return end < text.length ? `${head}${words.replace(/[\s.,;:!?]+$/, '')}…` : `${head}${words}`;
}

/** A variable's label, whole (n8n 2.41 shows about 26 characters of it). */
const LABEL_LENGTH = 26;

/** The variable names of each record already read: every item of a run asks for its template's. */
const namesRead = new WeakMap<TemplateRecord, string[]>();

/**
 * The variables a template takes, in the order the editor shows them: body1..bodyN, plus `media`
 * when it has a media header and `visit_website` when it has a dynamic button link.
 * `variable_counts` says how many it has (spec 2.5: the number of placeholders), whatever the
 * format seems to show (the spec's own example of a format, `[b:7]`, is no count of seven);
 * `template_formate` shows where they sit, and which is the media header or the button link (the
 * spec shows no other way to tell: without such a placeholder, every variable is a body).
 * Without a count, the placeholders the format shows.
 */
export function variableNames(record: TemplateRecord): string[] {
	const known = namesRead.get(record);
	if (known) return known;
	if (templateProblem(record)) return [];
	const format = typeof record.template_formate === 'string' ? record.template_formate : '';
	const found = [...format.matchAll(PLACEHOLDER)].map(variableOf);
	const hasMedia = found.includes('media');
	const hasButton = found.includes('visit_website');
	const count = variableCount(record);
	const bodies =
		count !== undefined
			? Math.max(0, count - Number(hasMedia) - Number(hasButton))
			: Math.max(0, ...found.filter((name) => name.startsWith('body')).map((name) => Number(name.slice('body'.length))));
	const names = [...Array.from({ length: bodies }, (_, n) => `body${n + 1}`), ...(hasMedia ? ['media'] : []), ...(hasButton ? ['visit_website'] : [])];
	namesRead.set(record, names);
	return names;
}

/**
 * Whether the template's text names every variable it takes, and only those: its placeholders
 * are exactly body1..bodyN (and the media header, the button link) of its count. Then those names
 * are the template's, and an item must give each of them; otherwise (the spec's `[b:7]` beside a
 * count of one, a count the text does not show) only how many it takes is known.
 */
export function variablesNamedByText(record: TemplateRecord): boolean {
	if (typeof record.template_formate !== 'string' || templateProblem(record)) return false;
	const names = variableNames(record);
	const shown = new Set([...record.template_formate.matchAll(PLACEHOLDER)].map(variableOf));
	// A count of none and a text that shows none: it takes no variable (an outside review's AI agent
	// filled Body 1 for such a template, and only the service refused it).
	if (names.length === 0) return variableCount(record) === 0 && shown.size === 0;
	return shown.size === names.length && names.every((name) => shown.has(name));
}

/** `variable_counts` when it is a count. */
function variableCount(record: TemplateRecord): number | undefined {
	const count = Number(record.variable_counts);
	return record.variable_counts !== null && record.variable_counts !== undefined && Number.isInteger(count) && count >= 0 ? count : undefined;
}

/** How many variables a template takes: its count, or the placeholders its format shows. */
export const variablesTaken = (record: TemplateRecord): number => (templateProblem(record) ? 0 : (variableCount(record) ?? variableNames(record).length));

const titleOf = (name: string) =>
	name === 'media' ? 'Media URL' : name === 'visit_website' ? 'Button link' : `Body ${name.slice('body'.length)}`;

/** A template's variables as the editor shows them: each label says where the variable sits in the template's text, when the text shows it. */
export function templateVariables(record: TemplateRecord): TemplateVariable[] {
	const text = templateText(record);
	return variableNames(record).map((name) => {
		const title = titleOf(name);
		const context = around(text, readableToken(name), LABEL_LENGTH - title.length - 2);
		// The name first, then the words around it: n8n cuts a field's label past about 26 characters
		// at its default width and shows nothing more on hover, so the whole label fits in that.
		return { name, label: context ? `${title}: ${context}` : title };
	});
}

// A status that is not text (a number, an object) is no status the node knows: shown as unknown, not as "[OBJECT OBJECT]".
const statusOf = (record: TemplateRecord) => textOf(record.status).trim().toUpperCase();

export const isApproved = (record: TemplateRecord) => statusOf(record) === 'APPROVED';

/**
 * The statuses of a template the platform does not send (spec 3 shows APPROVED and REJECTED and
 * not the full set; these are the platform's others that stop a send). The picker says so of
 * these only: of a status it does not know it says the status, and the run sends the template
 * all the same, the template send saying whether it can.
 */
const NOT_SENT_STATUSES = new Set(['REJECTED', 'PAUSED', 'DISABLED', 'DELETED', 'PENDING_DELETION', 'IN_APPEAL', 'LIMIT_EXCEEDED']);

/**
 * Why the platform will not send the template, by its status (PENDING: not yet; REJECTED,
 * PAUSED, ...: not at all), or undefined when it may (APPROVED, or a status the node does not
 * know, for the template send to judge).
 */
export function unsendableStatus(record: TemplateRecord): string | undefined {
	const status = statusOf(record);
	if (status === 'PENDING') return 'PENDING, cannot be sent yet';
	if (NOT_SENT_STATUSES.has(status)) return `${status}, cannot be sent`;
	return undefined;
}

/** How the picker marks a template that is not approved. */
function notApprovedMark(record: TemplateRecord): string {
	const status = statusOf(record);
	return unsendableStatus(record) ?? (status === '' ? 'status unknown' : `status ${status}`);
}

/**
 * How a template reads in the picker, which in n8n 2.41 shows one line per template and no
 * description: "appointment_reminder (en) — Hello {1}, this is a reminder of your…", and for
 * one that is not approved "spring_sale (en) — REJECTED, cannot be sent: Spring sale! …".
 */
export function templateLabel(record: TemplateRecord): string {
	const language = textOf(record.language) !== '' ? ` (${record.language})` : '';
	const text = shortened(templateText(record), 80);
	const problem = templateProblem(record);
	const mark = problem ? `cannot be used: ${problem}` : isApproved(record) ? '' : notApprovedMark(record);
	const detail = [mark, text].filter((part) => part !== '').join(': ');
	const name = nameOf(record);
	// One clean line: a direction override in a name (U+202E) would show the rest of the entry reversed.
	return oneLine(`${name}${language}${detail === '' ? '' : ` — ${detail}`}`);
}

/** The picker's second line where n8n shows one: category, status and the text, shortened. */
export function templateDescription(record: TemplateRecord): string {
	const facts = [record.category, record.status].filter((fact) => typeof fact === 'string' && fact !== '');
	return oneLine([facts.join(' · '), shortened(templateText(record), 80)].filter((part) => part !== '').join(' — '));
}
