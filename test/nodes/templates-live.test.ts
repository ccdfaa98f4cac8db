/**
 * Send Template reads the account's templates once per execution and counts each item's values
 * against the template as the service has it when the run starts, not against the fields the
 * editor saved: those are missing when the template comes from an expression and stale when the
 * template changed in the dashboard after the workflow was saved. What the list says of an item's
 * template (a status the platform does not send, a body variable its text does not show, an ID
 * the account does not have beside the run's other templates) fails the item before any send: a
 * bad row must not leave half a batch delivered.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import type { Emulator } from '../emulator';
import { callListSearch, callResourceMapper } from '../harness';
import { APPOINTMENT_REMINDER, mapperValue, ORDER_CONFIRMATION, runOn, sendTemplate, templateById, useEmulator } from './setup';

const emulator = useEmulator();

const WELCOME_MESSAGE = 'c0ffee00-1234-4abc-8def-0123456789a3';
const RECORDATORIO_PAGO = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c05';
const SPRING_SALE = 'deadbeef-5678-4bcd-9ef0-123456789a04';
const FEATURE_ANNOUNCEMENT = 'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06';

const requestsTo = (api: string) => emulator.requests.filter((request) => request.api === api);

/** What the emulator saw: one templates read and no send at all. */
function expectNothingSent(): void {
	expect(requestsTo('templates')).toHaveLength(1);
	expect(requestsTo('templateSend')).toEqual([]);
	expect(emulator.deliveries).toEqual([]);
}

/** What the emulator saw: one templates read, one send, refused. */
function expectSentAndRefused(run: { error?: Error }, said: RegExp): void {
	expect(run.error?.name).toBe('NodeApiError');
	expect(run.error?.message).toMatch(said);
	expect(requestsTo('templates')).toHaveLength(1);
	expect(requestsTo('templateSend')).toHaveLength(1);
	expect(emulator.deliveries).toEqual([]);
}

describe('a template chosen by an expression', () => {
	// The editor cannot load fields for an expression, so the saved schema is empty.
	const perItem = sendTemplate(templateById('={{ $json.template }}'), {
		mappingMode: 'defineBelow',
		value: { body1: '={{ $json.first }}', body2: '={{ $json.second }}' },
		schema: [],
		matchingColumns: [],
	});

	it('sends each item with its own template when every variable is there', async () => {
		const run = await runOn(emulator, {
			parameters: perItem,
			items: [
			{ template: APPOINTMENT_REMINDER, first: 'Ada', second: 'Friday' },
			{ template: APPOINTMENT_REMINDER, first: 'Bob', second: 'Monday' },
		],
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo('templateSend').map((request) => (request.body as IDataObject).variables)).toEqual([
			{ body1: 'Ada', body2: 'Friday' },
			{ body1: 'Bob', body2: 'Monday' },
		]);
	});

	it('fails before any send when one item misses a variable of its template, naming item, template and what it takes', async () => {
		const run = await runOn(emulator, {
			parameters: perItem,
			items: [
			{ template: APPOINTMENT_REMINDER, first: 'Ada', second: 'Friday' },
			// recordatorio_pago takes body1..body3; this item gives two.
			{ template: RECORDATORIO_PAGO, first: 'Ana', second: '20 €' },
		],
		});
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toBe(
			'Variables (variables): template "recordatorio_pago" needs a value for "Body 3: …{2} vence el {3}."; it takes 3 (body1, body2, body3) [item 1]',
		);
		expectNothingSent();
	});

	it("an ID the account's list does not have goes to the template send, which refuses it in its words", async () => {
		const run = await runOn(emulator, {
			parameters: perItem,
			items: [{ template: '00000000-0000-4000-8000-000000000000', first: 'a', second: 'b' }],
		});
		expectSentAndRefused(run, /Template 00000000-0000-4000-8000-000000000000 not found/);
	});

	it("one row whose template the account's list does not have, beside rows whose templates it has: nothing is sent, the row is named", async () => {
		const items = Array.from({ length: 40 }, (_, n) => ({ template: APPOINTMENT_REMINDER, first: `P${n}`, second: 'Friday', phone: `+141555501${String(n).padStart(2, '0')}` }));
		items[20] = { ...items[20], template: '00000000-0000-4000-8000-000000000000' };
		const run = await runOn(emulator, { parameters: { ...perItem, phoneNumber: '={{ $json.phone }}' }, items });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(
			/^Template \(template\): "00000000-0000-4000-8000-000000000000" is not one of the \d+ templates your account lists \(the other items' templates are among them\); check the ID, or choose the template from the list \[item 20\]$/,
		);
		expectNothingSent();
	});

	it('one row with a REJECTED template among 40: nothing is sent; with Continue On Fail the 39 others go and that row fails on its own', async () => {
		const items = Array.from({ length: 40 }, (_, n) => ({ template: APPOINTMENT_REMINDER, first: `P${n}`, second: 'Friday', phone: `+141555501${String(n).padStart(2, '0')}` }));
		items[20] = { ...items[20], template: SPRING_SALE };
		const parameters = { ...perItem, phoneNumber: '={{ $json.phone }}' };
		const run = await runOn(emulator, { parameters, items });
		expect(run.error?.message).toBe('Template (template): template "spring_sale" is REJECTED, cannot be sent; choose an approved template [item 20]');
		expectNothingSent();

		emulator.reset();
		const continuing = await runOn(emulator, { parameters, items, continueOnFail: true });
		expect(continuing.error).toBeUndefined();
		expect(continuing.items.map((item, n) => (item.json.success === true ? 'sent' : `${n}: ${String(item.json.error)}`)).filter((x) => x !== 'sent')).toEqual([
			'20: Template (template): template "spring_sale" is REJECTED, cannot be sent; choose an approved template [item 20]',
		]);
		expect(requestsTo('templateSend')).toHaveLength(39);
		expect(emulator.deliveries).toHaveLength(39);
	});
});

describe('a Templates Base URL given but refused', () => {
	it('is named before anything is sent, for each item (passed over, it had skipped the checks in silence)', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: 'http://example.invalid/api:x' };
		const parameters = sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' }));
		const run = await runOn(emulator, { parameters, items: [{}, {}], credentialData });
		expect(run.error?.message).toBe(
			'The credential\'s Templates Base URL (templatesBaseUrl) "http://example.invalid/api:x" uses plain http://; the service requires https:// (plain http is only allowed for localhost) [item 0]',
		);
		expect(emulator.requests).toEqual([]);

		const continuing = await runOn(emulator, { parameters, items: [{}, {}], credentialData, continueOnFail: true });
		expect(continuing.items.map((item) => String(item.json.error).match(/\[item \d\]$/)?.[0])).toEqual(['[item 0]', '[item 1]']);
		expect(emulator.requests).toEqual([]);
	});

	it('left empty, the messages go as given (the list only helps)', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: '' };
		const run = await runOn(emulator, { parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' })), items: [{}], credentialData });
		expect(run.error).toBeUndefined();
		expect(emulator.requests.map((request) => request.api)).toEqual(['templateSend']);
	});
});

describe('a saved schema that no longer matches the template', () => {
	const savedWithTwo = () => sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' }));

	it('fails before sending when the template gained a variable in the dashboard after the workflow was saved', async () => {
		const before = await runOn(emulator, { parameters: savedWithTwo(), items: [{}] });
		expect(before.error).toBeUndefined();
		emulator.reset();

		changeTemplate(emulator, APPOINTMENT_REMINDER, 'Hello [b:1], your appointment on [b:2] is at [b:3].');
		const run = await runOn(emulator, { parameters: savedWithTwo(), items: [{}] });
		expect(run.error?.message).toBe('Variables (variables): template "appointment_reminder" needs a value for "Body 3: …on {2} is at {3}."; it takes 3 (body1, body2, body3) [item 0]');
		expectNothingSent();
	});

	it('fails before sending when the template lost a variable the mapping still fills', async () => {
		changeTemplate(emulator, APPOINTMENT_REMINDER, 'Hello [b:1], see you soon.');
		const run = await runOn(emulator, { parameters: savedWithTwo(), items: [{}] });
		expect(run.error?.message).toBe(
			'Variables (variables): template "appointment_reminder" does not take "body2"; it takes 1 (body1). Leave the others empty for this template [item 0]',
		);
		expectNothingSent();
	});

	it('the editor offers the live fields, not the saved ones', async () => {
		changeTemplate(emulator, APPOINTMENT_REMINDER, 'Hello [b:1], your appointment on [b:2] is at [b:3].');
		const fields = await callResourceMapper({
			nodeType: 'messaging',
			credentials: emulator.credentials,
			parameters: { resource: 'message', operation: 'sendTemplate', template: templateById(APPOINTMENT_REMINDER) },
			method: 'getTemplateVariables',
		});
		expect(fields.fields.map((field) => [field.id, field.displayName])).toEqual([
			['body1', 'Body 1: Hello {1}, your…'],
			['body2', 'Body 2: …on {2} is…'],
			['body3', 'Body 3: …on {2} is at {3}.'],
		]);
	});
});

describe('a template that is not approved', () => {
	it('fails before sending, saying the platform does not send it (rejected) or not yet (pending)', async () => {
		const rejected = await runOn(emulator, { parameters: sendTemplate(templateById(SPRING_SALE), mapperValue({ body1: '20%' })), items: [{}] });
		expect(rejected.error?.name).toBe('NodeOperationError');
		expect(rejected.error?.message).toBe('Template (template): template "spring_sale" is REJECTED, cannot be sent; choose an approved template [item 0]');
		expectNothingSent();

		emulator.reset();
		const pending = await runOn(emulator, {
			parameters: sendTemplate(templateById(FEATURE_ANNOUNCEMENT), mapperValue({ body1: 'Ada', visit_website: 'new' })),
			items: [{}],
		});
		expect(pending.error?.message).toBe('Template (template): template "feature_announcement" is PENDING, cannot be sent yet; choose an approved template [item 0]');
		expectNothingSent();
	});

	it('one that went back to review in the dashboard after it was picked: the same', async () => {
		emulator.setTemplate({ template_id: APPOINTMENT_REMINDER, status: 'PENDING' });
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' })),
			items: [{}],
		});
		expect(run.error?.message).toMatch(/template "appointment_reminder" is PENDING, cannot be sent yet/);
		expectNothingSent();
	});

	it('a status the node does not know goes, for the template send to judge', async () => {
		emulator.setTemplate({ template_id: APPOINTMENT_REMINDER, status: 'ACTIVE_QUALITY_PENDING' });
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' })),
			items: [{}],
		});
		expectSentAndRefused(run, /is ACTIVE_QUALITY_PENDING, not APPROVED/);
	});
});

describe('variables the template does not take', () => {
	it('a body variable the template\'s text does not show fails before sending (spec 2.3: keys must match the template\'s variables)', async () => {
		const value = { body1: 'Ada', body2: 'Friday', body3: 'extra' };
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), { ...mapperValue({ body1: 'Ada', body2: 'Friday' }), value }),
			items: [{}],
		});
		expect(run.error?.message).toBe(
			'Variables (variables): template "appointment_reminder" does not take "body3"; it takes 2 (body1, body2). Leave the others empty for this template [item 0]',
		);
		expectNothingSent();
	});

	it('an empty one is no value: a mapping shared by templates chosen per item may leave it blank', async () => {
		const value = { body1: 'Ada', body2: 'Friday', body3: ' ' };
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), { ...mapperValue({ body1: 'Ada', body2: 'Friday' }), value }),
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		expect((requestsTo('templateSend')[0].body as IDataObject).variables).toEqual({ body1: 'Ada', body2: 'Friday' });
	});

	it('one of only invisible characters is no value either: the template needs its value, and nothing is sent', async () => {
		const value = { body1: 'Ada', body2: '\u200b' };
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), { ...mapperValue({ body1: 'Ada', body2: 'Friday' }), value }),
			items: [{}],
		});
		expect(run.error?.message).toMatch(/^Variables \(variables\): template "appointment_reminder" needs a value for "Body 2: /);
		expectNothingSent();
	});

	it('__proto__ and constructor never reach the service, and nothing is polluted', async () => {
		// JSON.parse makes "__proto__" an own key, as a workflow imported from JSON has it; n8n
		// drops such keys when it resolves the parameter, so the node gets body1 and body2.
		const value = JSON.parse('{"body1": "Ada", "body2": "Friday", "__proto__": {"polluted": "yes"}, "constructor": "x"}') as IDataObject;
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), { ...mapperValue({ body1: 'Ada', body2: 'Friday' }), value }),
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		expect(JSON.stringify((requestsTo('templateSend')[0].body as IDataObject).variables)).toBe('{"body1":"Ada","body2":"Friday"}');
		expect(({} as IDataObject).polluted).toBeUndefined();
	});
});

describe('the live templates are read once per execution', () => {
	it('one templates request for 20 items over three templates, then 20 sends', async () => {
		const items = Array.from({ length: 20 }, (_, index) => ({
			template: [APPOINTMENT_REMINDER, WELCOME_MESSAGE, RECORDATORIO_PAGO][index % 3],
			first: `name ${index}`,
			second: `day ${index}`,
			third: `amount ${index}`,
		}));
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById('={{ $json.template }}'), {
				mappingMode: 'defineBelow',
				value: {
					body1: "={{ $json.template === 'c0ffee00-1234-4abc-8def-0123456789a3' ? '' : $json.first }}",
					body2: "={{ $json.template === 'c0ffee00-1234-4abc-8def-0123456789a3' ? '' : $json.second }}",
					body3: "={{ $json.template === 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c05' ? $json.third : '' }}",
				},
				schema: [],
				matchingColumns: [],
			}),
			items: items,
		});
		expect(run.error).toBeUndefined();
		expect(requestsTo('templates')).toHaveLength(1);
		expect(requestsTo('templateSend')).toHaveLength(20);
		// The read comes first: every check is done before the first send.
		expect(emulator.requests[0].api).toBe('templates');
		expect(run.items).toHaveLength(20);
	});

	it('a second execution reads them again (a change in the dashboard is seen by the next run)', async () => {
		const parameters = sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'Ada', body2: 'Friday' }));
		expect((await runOn(emulator, { parameters: parameters, items: [{}, {}] })).error).toBeUndefined();
		changeTemplate(emulator, APPOINTMENT_REMINDER, 'Hello [b:1], on [b:2] at [b:3].');
		expect((await runOn(emulator, { parameters: parameters, items: [{}, {}] })).error?.message).toMatch(/needs a value for "Body 3/);
		expect(requestsTo('templates')).toHaveLength(2);
		expect(requestsTo('templateSend')).toHaveLength(2);
	});
});

/** Changes a template's text as the dashboard would; the service then wants the new variables. */
function changeTemplate(target: Emulator, templateId: string, format: string): void {
	const record = target.setTemplate({ template_id: templateId, template_formate: format });
	expect(record.variable_counts).toBe(new Set(format.match(/\[b:\d+\]/g)).size);
}

describe('bad input is found before the templates are read', () => {
	const mapped = (values: IDataObject) => sendTemplate(templateById(APPOINTMENT_REMINDER), { ...mapperValue({ body1: 'x', body2: 'x' }), value: values });

	it.each([
		['an object', '={{ {a: 1} }}'],
		['a list', '={{ [1, 2] }}'],
		['NaN', '={{ 0 / 0 }}'],
	])('a mapped variable that is %s: the item and the variable are named, nothing is read or sent', async (_name, value) => {
		const run = await runOn(emulator, { parameters: mapped({ body1: value, body2: 'Friday' }), items: [{}] });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/^Variable "body1" \(variables\.body1\): must be text or a finite number.*\[item 0\]$/);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(0);
		expect(emulator.requests).toEqual([]);
	});

	it('a later item with a bad phone number stops the run before the templates are read for the earlier ones', async () => {
		const run = await runOn(emulator, {
			parameters: { ...mapped({ body1: 'Ada', body2: 'Friday' }), phoneNumber: '={{ $json.phone }}' },
			items: [{ phone: '+14155550123' }, { phone: 'nope' }],
		});
		expect(run.error?.message).toMatch(/^Phone Number \(phoneNumber\): "nope" is not a phone number.*\[item 1\]$/);
		expect(emulator.requests).toEqual([]);
	});

	it('with Continue On Fail the bad item becomes an error item and the others are checked against the templates and sent', async () => {
		const run = await runOn(emulator, {
			parameters: { ...mapped({ body1: 'Ada', body2: '={{ $json.second }}' }), phoneNumber: '={{ $json.phone }}' },
			items: [{ phone: '+14155550123', second: 'Friday' }, { phone: 'nope', second: 'Friday' }, { phone: '+14155550124', second: 'Monday' }, { phone: '+14155550125', second: '' }],
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.success ?? item.json.error)).toEqual([
			true,
			expect.stringMatching(/Phone Number \(phoneNumber\).*\[item 1\]/),
			true,
			expect.stringMatching(/needs a value for "Body 2.*\[item 3\]/),
		]);
		expect(requestsTo('templates')).toHaveLength(1);
		expect(requestsTo('templateSend')).toHaveLength(2);
	});

	it.each([
		['missing', ''],
		['plain http, not loopback', 'http://api.example.com/api:x'],
	])('a Template Send Base URL that is %s is named before the templates are read', async (_name, templateSendBaseUrl) => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, templateSendBaseUrl };
		const run = await runOn(emulator, { parameters: mapped({ body1: 'Ada', body2: 'Friday' }), items: [{}, {}], credentialData });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/^The credential's Template Send Base URL \(templateSendBaseUrl\) .*\[item 0\]$/);
		expect(emulator.requests).toEqual([]);
	});

	it('with Continue On Fail a missing Template Send Base URL makes every item an error item naming the field, and nothing is read', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, templateSendBaseUrl: '' };
		const run = await runOn(emulator, { parameters: mapped({ body1: 'Ada', body2: 'Friday' }), items: [{}, {}], credentialData, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.error)).toEqual([
			expect.stringMatching(/templateSendBaseUrl.*\[item 0\]/),
			expect.stringMatching(/templateSendBaseUrl.*\[item 1\]/),
		]);
		expect(emulator.requests).toEqual([]);
	});
});

describe('a template ID in upper case', () => {
	const upper = APPOINTMENT_REMINDER.toUpperCase();

	it('is the same UUID: the template is found and its ID is sent as the account has it', async () => {
		const run = await runOn(emulator, { parameters: sendTemplate(templateById(upper), mapperValue({ body1: 'Ada', body2: 'Friday' })), items: [{}] });
		expect(run.error).toBeUndefined();
		expect((requestsTo('templateSend')[0].body as IDataObject).template).toBe(APPOINTMENT_REMINDER);
		expect(run.items[0].json.template).toBe(APPOINTMENT_REMINDER);
	});

	it('the editor loads its variables, and the picker finds it by ID', async () => {
		const fields = await callResourceMapper({
			nodeType: 'messaging',
			credentials: emulator.credentials,
			parameters: { resource: 'message', operation: 'sendTemplate', template: templateById(upper) },
			method: 'getTemplateVariables',
		});
		expect(fields.fields.map((field) => field.id)).toEqual(['body1', 'body2']);
		const found = await callListSearch({ nodeType: 'messaging', credentials: emulator.credentials, method: 'searchTemplates', filter: upper });
		expect(found.results.map((result) => result.value)).toEqual([APPOINTMENT_REMINDER]);
	});
});

describe('what an outside review of the templates found', () => {
	it('one mapping for templates chosen per item: an item that leaves a variable of its template empty fails before any send, though it gives as many other values', async () => {
		// appointment_reminder takes body1 and body2; the item gives body1 and a media value (for
		// order_confirmation, which the same mapping serves) and leaves body2 empty.
		const shared = sendTemplate(templateById('={{ $json.template }}'), {
			mappingMode: 'defineBelow',
			value: { body1: '={{ $json.first }}', body2: '={{ $json.second }}', media: '={{ $json.photo }}' },
			schema: [],
			matchingColumns: [],
		});
		const run = await runOn(emulator, {
			parameters: shared,
			items: [{ template: APPOINTMENT_REMINDER, first: 'Bob', second: '', photo: 'https://example.com/photo.jpeg' }],
		});
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/template "appointment_reminder" needs a value for "Body 2: [^"]*"; it takes 2 \(body1, body2\) \[item 0\]$/);
		expectNothingSent();
	});

	it('a media value that is not an http(s) URL fails before any request, naming the item and the field, as Send\'s attachment does', async () => {
		for (const media of ['not a url', 'ftp://example.com/a.jpeg', 'file:///etc/passwd', 'javascript:alert(1)']) {
			emulator.reset();
			const run = await runOn(emulator, {
				parameters: sendTemplate(templateById(ORDER_CONFIRMATION), mapperValue({ media, body1: 'Ada', body2: 'A-1', body3: '9 €', visit_website: 'a1' })),
				items: [{}],
			});
			expect(run.error?.name, media).toBe('NodeOperationError');
			expect(run.error?.message, media).toMatch(/^Variable "media" \(Media URL\) \(variables\.media\): .* \[item 0\]$/);
			expect(emulator.requests, media).toEqual([]);
		}
	});

	it('a value kept for a field the user removed (or one of the template chosen before) is not sent', async () => {
		const mapping = mapperValue({ body1: 'Ada', body2: 'Friday', media: 'https://example.com/old.jpeg' });
		mapping.schema = mapping.schema.map((field) => (field.id === 'media' ? { ...field, removed: true } : field));
		const run = await runOn(emulator, { parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapping), items: [{}] });
		expect(run.error).toBeUndefined();
		expect(requestsTo('templateSend').map((request) => (request.body as IDataObject).variables)).toEqual([{ body1: 'Ada', body2: 'Friday' }]);
	});

	it('a template ID with spaces around it in the list is that ID: the picker offers it without them, and its variables load', async () => {
		const id = '0a0b0c0d-1111-4222-8333-444455556666';
		emulator.setTemplate({ template_id: ` ${id} `, name: 'spaced_id', status: 'APPROVED', template_formate: 'Hi [b:1].' });
		const found = await callListSearch({ nodeType: 'messaging', credentials: emulator.credentials, method: 'searchTemplates', filter: 'spaced_id' });
		expect(found.results.map((result) => result.value)).toEqual([id]);
		const fields = await callResourceMapper({
			nodeType: 'messaging',
			credentials: emulator.credentials,
			parameters: { resource: 'message', operation: 'sendTemplate', template: templateById(id) },
			method: 'getTemplateVariables',
		});
		expect(fields.fields.map((field) => field.id)).toEqual(['body1']);
	});

	it('a record whose ID is not a UUID is shown as one the node cannot use, as a run would refuse its ID', async () => {
		emulator.setTemplate({ template_id: 'tmpl_7', name: 'legacy_id', status: 'APPROVED', template_formate: 'Hi [b:1].' });
		const found = await callListSearch({ nodeType: 'messaging', credentials: emulator.credentials, method: 'searchTemplates', filter: 'legacy_id' });
		expect(found.results.map((result) => result.name)).toEqual(['legacy_id (en) — cannot be used: its ID "tmpl_7" is not a UUID, the form the template send takes']);
		const fields = await callResourceMapper({
			nodeType: 'messaging',
			credentials: emulator.credentials,
			parameters: { resource: 'message', operation: 'sendTemplate', template: templateById('tmpl_7') },
			method: 'getTemplateVariables',
		});
		expect(fields).toEqual({ fields: [], emptyFieldsNotice: 'Template "legacy_id" (tmpl_7) cannot be used: its ID "tmpl_7" is not a UUID, the form the template send takes' });
	});

	it('the picker orders by the names it shows (a nameless template by its ID), and tells apart templates that would read alike by their IDs', async () => {
		const nameless = 'ffffffff-0000-4000-8000-000000000001';
		emulator.setTemplate({ template_id: nameless, name: '', status: 'APPROVED', language: 'en', template_formate: 'Hi [b:1].' });
		const twins = ['0b000000-0000-4000-8000-000000000001', '0b000000-0000-4000-8000-000000000002'];
		for (const id of twins) emulator.setTemplate({ template_id: id, name: 'twin', status: 'APPROVED', language: 'en', template_formate: 'Same [b:1].' });
		const results = (await callListSearch({ nodeType: 'messaging', credentials: emulator.credentials, method: 'searchTemplates' })).results;
		// Approved first; the others are marked ("REJECTED, cannot be sent", "PENDING, cannot be sent yet").
		const firstMarked = results.findIndex((result) => /, cannot be sent/.test(result.name));
		const approved = results.slice(0, firstMarked).map((result) => result.name);
		expect(approved).toHaveLength(7);
		expect(approved).toEqual([...approved].sort((a, b) => a.localeCompare(b)));
		expect(approved.indexOf(`${nameless} (en) — Hi {1}.`)).toBeGreaterThan(0);
		expect(results.filter((result) => twins.includes(String(result.value))).map((result) => result.name)).toEqual(twins.map((id) => `twin (en) — Same {1}. [ID ${id}]`));
	});
});
