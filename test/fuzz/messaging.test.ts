/**
 * Bad-input fuzz of the Messaging node's send operations (direct, template, dashboard,
 * alternative). Each generated input is item 1 of a two-item run whose item 0 is valid, so
 * "refused before ANY request" also covers the other item: a bad row stops the whole batch
 * before anything is sent (Send Template: before any send; its one read of the account's
 * templates comes first). See ./support.ts for the property and the model.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';

import {
	MISSING,
	anyString,
	fcOptions,
	hugeString,
	itemWith,
	modelPhone,
	UNDECIDED,
	modelRequiredText,
	modelText,
	phoneInput,
	runBounded,
	textInput,
	wrongType,
	Tally,
	type Input,
} from './support';
import { useEmulator } from '../emulator/use';

const emulator = useEmulator({ seed: 17, resetEachTest: false });

/** Several dimensions that each refuse a share of inputs: keep enough fully valid combinations. */
const mostlyValidPhone = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('+14155550123', '+44 20 7946 0958', '0049 (151) 234-5678') }, { weight: 3, arbitrary: phoneInput });

const VALID = { phone: '+14155550100', text: 'hello from item 0' };
const PATH = {
	send: '/api:snd7f3a/send',
};

describe('Message → Send', () => {
	it('phone × text: the exact request, or a NodeOperationError before any request', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(phoneInput, textInput, async (phone, text) => {
				const run = await runBounded(emulator, {
					parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}', options: {} },
					items: [VALID, itemWith({ phone, text })],
				});
				const expectedPhone = modelPhone(phone);
				// A 0 opening the national part is left to the numbering plans (test/unit/validation.test.ts).
				if (expectedPhone === UNDECIDED) return;
				const expectedText = modelRequiredText(text);
				if (!expectedPhone) return tally.refusedBeforeAnyRequest(run, 1, /Phone \(phone\)/);
				if (expectedText === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Text \(text\)/);
				tally.sentExactly(run, { api: 'send', method: 'POST', path: PATH.send, body: { phone: expectedPhone, text: expectedText } }, 2);
			}),
			fcOptions(100),
		);
		tally.expectBoth();
	}, 90_000);

	it('attachment URL × file name: sent as written, or refused before any request', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(attachmentInput, fileNameInput, async (attachment, filename) => {
				const run = await runBounded(emulator, {
					parameters: {
						resource: 'message',
						operation: 'send',
						phone: '={{ $json.phone }}',
						text: '={{ $json.text }}',
						additionalFields: { attachment: '={{ $json.attachment }}', filename: '={{ $json.filename }}' },
						options: {},
					},
					items: [VALID, itemWith({ ...VALID, attachment, filename })],
				});
				const model = modelAttachment(attachment, filename);
				if (model === 'refused') return tally.refusedBeforeAnyRequest(run, 1, /Attachment URL|File Name/);
				tally.sentExactly(run, { api: 'send', method: 'POST', path: PATH.send, body: { ...VALID, ...model } }, 2);
			}),
			fcOptions(80),
		);
		tally.expectBoth();
	}, 90_000);
});

describe('Message → Send via Dashboard (V2) and via Alternative API', () => {
	it('dashboard: to × text', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(phoneInput, textInput, async (to, text) => {
				const run = await runBounded(emulator, {
					parameters: { resource: 'message', operation: 'sendDashboard', to: '={{ $json.to }}', text: '={{ $json.text }}', options: {} },
					items: [{ to: VALID.phone, text: VALID.text }, itemWith({ to, text })],
					credentialType: 'messagingAuthorizationKeyApi',
				});
				const expectedTo = modelPhone(to);
				// A 0 opening the national part is left to the numbering plans (test/unit/validation.test.ts).
				if (expectedTo === UNDECIDED) return;
				const expectedText = modelRequiredText(text);
				if (!expectedTo) return tally.refusedBeforeAnyRequest(run, 1, /To \(to\)/);
				if (expectedText === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Text \(text\)/);
				tally.sentExactly(run, { api: 'dashboard', method: 'POST', body: { to: expectedTo, text: expectedText } }, 2);
			}),
			fcOptions(50),
		);
		tally.expectBoth();
	}, 90_000);

	it('alternative: to × message', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(phoneInput, textInput, async (to, message) => {
				const run = await runBounded(emulator, {
					parameters: { resource: 'message', operation: 'sendAlternative', to: '={{ $json.to }}', message: '={{ $json.message }}', options: {} },
					items: [{ to: VALID.phone, message: VALID.text }, itemWith({ to, message })],
					credentialType: 'messagingXApiKeyApi',
				});
				const expectedTo = modelPhone(to);
				// A 0 opening the national part is left to the numbering plans (test/unit/validation.test.ts).
				if (expectedTo === UNDECIDED) return;
				const expectedMessage = modelRequiredText(message);
				if (!expectedTo) return tally.refusedBeforeAnyRequest(run, 1, /To \(to\)/);
				if (expectedMessage === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Message \(message\)/);
				tally.sentExactly(run, { api: 'alternative', method: 'POST', body: { to: expectedTo, message: expectedMessage } }, 2);
			}),
			fcOptions(50),
		);
		tally.expectBoth();
	}, 90_000);
});

// ---------------------------------------------------------------------------------------------
// Send Template
// ---------------------------------------------------------------------------------------------

const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01'; // body1, body2; APPROVED
const SPRING_SALE = 'deadbeef-5678-4bcd-9ef0-123456789a04'; // body1; REJECTED
/** Send Template reads the account's templates once per run, before it checks any item against them. */
const TEMPLATES_READ = ['GET templates'];
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const templateIdInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 8, arbitrary: fc.constant(APPOINTMENT_REMINDER) },
	{ weight: 1, arbitrary: fc.constantFrom(APPOINTMENT_REMINDER.toUpperCase(), ` ${APPOINTMENT_REMINDER}\n`, SPRING_SALE, `${APPOINTMENT_REMINDER}x`, APPOINTMENT_REMINDER.slice(1), [APPOINTMENT_REMINDER], `{${APPOINTMENT_REMINDER}}`) },
	{ weight: 1, arbitrary: fc.uuid() },
	{ weight: 1, arbitrary: anyString },
	{ weight: 1, arbitrary: wrongType },
);

/** Any value a variable may get from an expression. */
const variableInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 4, arbitrary: anyString },
	{ weight: 2, arbitrary: wrongType },
	{ weight: 1, arbitrary: hugeString },
);

/** A variable value the node must send (as text): non-empty text, a number, a boolean. */
const goodVariable: fc.Arbitrary<Input> = fc.oneof(
	fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
	fc.integer(),
	fc.boolean(),
	fc.constantFrom(' ', '0', 'false', 'null', 'é✓😀', 'a\u0000b'),
);

/** Mostly valid values, any value now and then: each of several dimensions can refuse on its own. */
const mostly = (good: fc.Arbitrary<Input>, any: fc.Arbitrary<Input>) => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: any });

/** An unknown variable name now and then (the mapper keeps values the template does not take). */
const extraVariable = fc.oneof(
	{ weight: 5, arbitrary: fc.constant(undefined) },
	{ weight: 1, arbitrary: fc.tuple(fc.constantFrom('body3', 'media', 'visit_website', 'Body1', ' body1', 'x'), variableInput) },
);

const schema = ['body1', 'body2'].map((id, n) => ({
	id,
	displayName: `Body ${n + 1}`,
	required: true,
	defaultMatch: false,
	display: true,
	type: 'string',
	canBeUsedToMatch: false,
}));

/**
 * 'refused': by the item's own checks, before anything is read; 'refusedByTemplate': counted
 * against the account's live templates, which were read first (once).
 */
type TemplateModel = 'refused' | 'refusedByTemplate' | 'undecided' | { template: string; variables: Record<string, string>; phone_number: string };

function isHttpUrl(text: string): boolean {
	try {
		return ['http:', 'https:'].includes(new URL(text).protocol);
	} catch {
		return false;
	}
}

/**
 * `mapped`: how the values reach the node. Mapped by hand, their types are the item's own check;
 * mapped automatically from the item, they are read once the templates are.
 */
function modelTemplateSend(phone: Input, templateId: Input, values: Array<[string, Input]>, mapped: 'byHand' | 'automatically' = 'byHand'): TemplateModel {
	const phoneNumber = modelPhone(phone);
	if (phoneNumber === UNDECIDED) return 'undecided';
	if (!phoneNumber) return 'refused';
	// Read as text like every text parameter: a list holding an ID is not an ID.
	const template = modelText(templateId)?.trim();
	if (template === undefined || !UUID.test(template)) return 'refused';
	const variables: Record<string, string> = {};
	for (const [name, value] of values) {
		if (value === MISSING || value === null) continue;
		const text = modelText(value);
		if (text === undefined) return mapped === 'byHand' ? 'refused' : 'refusedByTemplate';
		// The media variable is an attachment's URL: http(s), as Send's attachment.
		const seen = text.replace(/\p{Cf}/gu, '').trim() !== '';
		if (name === 'media' && seen && !isHttpUrl(text.trim())) return mapped === 'byHand' ? 'refused' : 'refusedByTemplate';
		// A blank value (nothing a reader sees) carries nothing and is left out (one mapping can serve templates that take different variables).
		if (seen) variables[name] = text;
	}
	// Checked against the account's live templates, whose texts name their variables (UUIDs compared
	// in any letter case, sent as the account spells it). The run's other item sends
	// APPOINTMENT_REMINDER, which the list has: a template the list does not have is none of the
	// account's, and SPRING_SALE is REJECTED; both are refused before any send. APPOINTMENT_REMINDER
	// needs body1 and body2 and takes no other body variable; other names (media, visit_website,
	// "Body1", "x") are the template send's to judge: they go as given.
	if (template.toLowerCase() !== APPOINTMENT_REMINDER.toLowerCase()) return 'refusedByTemplate';
	if (!['body1', 'body2'].every((name) => Object.hasOwn(variables, name)) || Object.hasOwn(variables, 'body3')) return 'refusedByTemplate';
	return { template: APPOINTMENT_REMINDER, variables, phone_number: phoneNumber };
}

describe('Message → Send Template', () => {
	it('phone × template id × variables: every variable sent as text, or refused before any request', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(mostlyValidPhone, templateIdInput, mostly(goodVariable, variableInput), mostly(goodVariable, variableInput), extraVariable, async (phone, templateId, body1, body2, extra) => {
				const value: Record<string, string> = { body1: '={{ $json.v1 }}', body2: '={{ $json.v2 }}' };
				if (extra) value[extra[0]] = '={{ $json.v3 }}';
				const run = await runBounded(emulator, {
					parameters: {
						resource: 'message',
						operation: 'sendTemplate',
						phoneNumber: '={{ $json.phone }}',
						template: { __rl: true, mode: 'id', value: '={{ $json.template }}' },
						variables: { mappingMode: 'defineBelow', value, matchingColumns: [], schema },
						options: {},
					},
					items: [
						{ phone: VALID.phone, template: APPOINTMENT_REMINDER, v1: 'Ada', v2: 'Monday' },
						itemWith({ phone, template: templateId, v1: body1, v2: body2, ...(extra ? { v3: extra[1] } : {}) }),
					],
				});
				const model = modelTemplateSend(phone, templateId, [
					['body1', body1],
					['body2', body2],
					...(extra ? [[extra[0], extra[1]] as [string, Input]] : []),
				]);
				if (model === 'undecided') return;
				if (model === 'refused') return tally.refusedBeforeAnyRequest(run, 1);
				if (model === 'refusedByTemplate') return tally.refusedBeforeAnyRequest(run, 1, undefined, TEMPLATES_READ);
				tally.sentExactly(run, { api: 'templateSend', method: 'POST', body: model }, 3);
			}),
			fcOptions(100),
		);
		tally.expectBoth();
	}, 120_000);
});

describe('Message → Send Template, variables mapped automatically from the item', () => {
	it('only the listed template\'s variables are read from the item, each sent as text; anything else in the item is ignored', async () => {
		const tally = new Tally();
		const otherKeys = fc.dictionary(fc.constantFrom('body3', 'media', 'name', 'Body1', 'phone2', 'x'), variableInput, { maxKeys: 3 });
		await fc.assert(
			fc.asyncProperty(fc.oneof(goodVariable, variableInput), mostly(goodVariable, variableInput), otherKeys, async (body1, body2, others) => {
				const run = await runBounded(emulator, {
					parameters: {
						resource: 'message',
						operation: 'sendTemplate',
						phoneNumber: '={{ $json.phone }}',
						template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
						variables: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema },
						options: {},
					},
					items: [
						{ phone: VALID.phone, body1: 'Ada', body2: 'Monday' },
						itemWith({ ...others, phone: VALID.phone, body1, body2 }),
					],
				});
				const model = modelTemplateSend(
					VALID.phone,
					APPOINTMENT_REMINDER,
					[
						['body1', body1],
						['body2', body2],
					],
					'automatically',
				);
				if (model === 'refused' || model === 'refusedByTemplate') return tally.refusedBeforeAnyRequest(run, 1, /[Vv]ariable/, TEMPLATES_READ);
				tally.sentExactly(run, { api: 'templateSend', method: 'POST', body: model }, 3);
			}),
			fcOptions(60),
		);
		tally.expectBoth();
	}, 90_000);
});

// ---------------------------------------------------------------------------------------------
// Attachments
// ---------------------------------------------------------------------------------------------

const ACCEPTED_EXTENSIONS = ['jpeg', 'jpg', 'png', 'mp4', '3gp', 'pdf', 'doc', 'xls', 'ppt', 'txt', 'mp3', 'aac', 'm4a', 'ogg'];
/** Types part 2.8 does not list: the service's to judge (spec 7, condition 9), so sent as well. */
const UNLISTED_EXTENSIONS = ['gif', 'docx', 'webp', 'xlsx', 'zip', 'exe', 'mov', 'wav', 'html', 'csv'];
/** Not a recognisable type: left to the service. */
const UNKNOWN_EXTENSIONS = ['xyz', 'bin1', 'q'];

const segment = anyString.map((text) => text.replace(/[./?#\\%]/g, ''));
const extension = fc.oneof(
	fc.constantFrom(...ACCEPTED_EXTENSIONS, ...UNLISTED_EXTENSIONS, ...UNKNOWN_EXTENSIONS).chain((ext) => fc.constantFrom(ext, ext.toUpperCase())),
	fc.constant(''),
);

const attachmentUrl = fc
	.record({
		lead: fc.constantFrom('', ' ', '\n'),
		scheme: fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'javascript:', 'data:', 'file:///', 'mailto:', '', '//'),
		host: fc.constantFrom('example.com', 'cdn.example.org:8443', 'bücher.example', '127.0.0.1', 'localhost', 'user:pw@files.example.com', 'exa mple.com'),
		path: fc.array(segment, { maxLength: 3 }),
		name: segment,
		extension,
		suffix: fc.constantFrom('', '?dl=1', '#page=2', '/'),
	})
	.map(({ lead, scheme, host, path, name, extension: ext, suffix }) => `${lead}${scheme}${host}/${[...path, `${name}${ext ? `.${ext}` : ''}`].join('/')}${suffix}${lead}`);

const attachmentInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 6, arbitrary: attachmentUrl },
	{ weight: 1, arbitrary: fc.constantFrom(MISSING, '', '   ', null) },
	{ weight: 1, arbitrary: anyString },
	{ weight: 1, arbitrary: wrongType },
);

const fileNameInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(MISSING, '', '  ') },
	{ weight: 2, arbitrary: fc.constantFrom('report.pdf', ' invoice 7.pdf ', 'файл.txt') },
	{ weight: 1, arbitrary: anyString },
	{ weight: 1, arbitrary: wrongType },
);

function modelAttachment(attachment: Input, filename: Input): 'refused' | { attachment?: string; filename?: string } {
	const raw = modelText(attachment);
	if (raw === undefined) return 'refused';
	const sent: { attachment?: string; filename?: string } = {};
	if (raw.trim() !== '') {
		let url: URL;
		try {
			url = new URL(raw.trim());
		} catch {
			return 'refused';
		}
		if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'refused';
		// Any file type: the service's to judge.
		sent.attachment = raw.trim();
	}
	const name = modelText(filename);
	if (name === undefined) return 'refused';
	// Only a name the user gave goes out, with an attachment or without.
	if (name.trim()) sent.filename = name.trim();
	return sent;
}

describe('the same through the isolated-vm expression engine (as an n8n 2.x server runs it)', () => {
	it('phone × text with wrong types', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(mostlyValidPhone, textInput, async (phone, text) => {
				const run = await runBounded(emulator, {
					parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}', options: {} },
					items: [VALID, itemWith({ phone, text })],
					expressionEngine: 'vm',
				});
				const expectedPhone = modelPhone(phone);
				// A 0 opening the national part is left to the numbering plans (test/unit/validation.test.ts).
				if (expectedPhone === UNDECIDED) return;
				const expectedText = modelRequiredText(text);
				if (!expectedPhone) return tally.refusedBeforeAnyRequest(run, 1, /Phone \(phone\)/);
				if (expectedText === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Text \(text\)/);
				tally.sentExactly(run, { api: 'send', method: 'POST', path: PATH.send, body: { phone: expectedPhone, text: expectedText } }, 2);
			}),
			fcOptions(25),
		);
		tally.expectBoth();
	}, 90_000);
});
