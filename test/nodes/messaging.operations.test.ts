import { describe, expect, it } from 'vitest';

import { APPOINTMENT_REMINDER, mapperValue, ORDER_CONFIRMATION, runOn, sendTemplate, templateById, useEmulator } from './setup';

const emulator = useEmulator();

describe('Message → Send', () => {
	it('posts {phone, text} to {sendBaseUrl}/send with the Bearer token and JSON content type', async () => {
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}' },
			items: [
				{ phone: '+1 (415) 555-0123', text: 'Your order shipped' },
				{ phone: '0044 20 7946 0958', text: 'Second' },
			],
		});
		expect(run.error).toBeUndefined();
		const requests = emulator.requests;
		expect(requests).toHaveLength(2);
		expect(requests[0]).toMatchObject({
			api: 'send',
			method: 'POST',
			path: '/api:snd7f3a/send',
			body: { phone: '+14155550123', text: 'Your order shipped' },
			status: 200,
		});
		expect(requests[0].headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(requests[0].headers['content-type']).toMatch(/^application\/json/);
		expect(Object.keys(requests[0].body as object).sort()).toEqual(['phone', 'text']);
		expect(requests[1].body).toEqual({ phone: '+442079460958', text: 'Second' });
		expect(run.items.map((item) => item.json)).toEqual([
			{ success: true, to: '+14155550123', message: 'Message sent successfully' },
			{ success: true, to: '+442079460958', message: 'Message sent successfully' },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('sends the attachment URL as written, and a file name only when one is given (none made up from the URL)', async () => {
		const url = 'https://files.example.com/invoices/INV-42.pdf';
		const run = await runOn(emulator, {
			parameters: {
				resource: 'message',
				operation: 'send',
				phone: '+14155550123',
				text: 'Invoice attached',
				additionalFields: { attachment: '={{ $json.url }}', filename: '={{ $json.name }}' },
			},
			items: [{ url }, { url, name: 'Your invoice.pdf' }],
		});
		expect(run.error).toBeUndefined();
		expect(emulator.requests.map((request) => request.body)).toEqual([
			{ phone: '+14155550123', text: 'Invoice attached', attachment: url },
			{ phone: '+14155550123', text: 'Invoice attached', attachment: url, filename: 'Your invoice.pdf' },
		]);
		expect(run.items[0].json).toEqual({ success: true, to: '+14155550123', message: 'Message sent successfully', attachment: url });
		expect(run.items[1].json).toEqual({
			success: true,
			to: '+14155550123',
			message: 'Message sent successfully',
			attachment: url,
			filename: 'Your invoice.pdf',
		});
	});

	it('adds the raw answer only when asked', async () => {
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'send', phone: '+14155550123', text: 'x', options: { includeRawResponse: true } },
			items: [{}],
		});
		expect(run.items[0].json.rawResponse).toEqual({ message: 'Message sent successfully' });
	});
});

describe('Message → Send Template', () => {
	it('posts {template, variables, phone_number} with every variable as text', async () => {
		const run = await runOn(emulator, {
			parameters: {
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '={{ $json.phone }}',
				template: { __rl: true, mode: 'list', value: APPOINTMENT_REMINDER, cachedResultName: 'appointment_reminder' },
				variables: mapperValue({ body1: '={{ $json.name }}', body2: '={{ $json.day }}' }),
			},
			items: [{ phone: '+49 151 2345 6789', name: 'Ada', day: 20261124 }],
		});
		expect(run.error).toBeUndefined();
		// First the one read of the account's templates (the item is checked against the live template), then the send.
		const [read, request, ...more] = emulator.requests;
		expect(more).toEqual([]);
		expect(read).toMatchObject({ api: 'templates', method: 'GET', path: '/api:tpl2d4e/get_templates', status: 200 });
		expect(read.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(request).toMatchObject({ api: 'templateSend', method: 'POST', path: '/api:tsd91bc/send_template_message_by_api', status: 200 });
		expect(request.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			template: APPOINTMENT_REMINDER,
			variables: { body1: 'Ada', body2: '20261124' },
			phone_number: '+4915123456789',
		});
		expect(run.items[0].json).toMatchObject({
			success: true,
			to: '+4915123456789',
			template: APPOINTMENT_REMINDER,
			status: 'accepted',
			recipientId: '4915123456789',
		});
		expect(run.items[0].json.messageId).toMatch(/^wamid\./);
	});

	it('takes the template by ID too, with media and button variables', async () => {
		const values = { body1: 'Ann', body2: 'A-17', body3: '$20', media: 'https://example.com/p.png', visit_website: 'A-17' };
		const run = await runOn(emulator, {
			parameters: {
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '+14155550123',
				template: { __rl: true, mode: 'id', value: ORDER_CONFIRMATION },
				variables: mapperValue(values),
			},
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		const sends = emulator.requests.filter((request) => request.api === 'templateSend');
		expect(sends.map((request) => request.body)).toEqual([{ template: ORDER_CONFIRMATION, variables: values, phone_number: '+14155550123' }]);
	});

	it('refuses what it can tell before any send: a missing value, a value that is no text, an ID that is no UUID', async () => {
		const base = {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
		};
		const missing = await runOn(emulator, { parameters: { ...base, variables: mapperValue({ body1: 'a', body2: '' }) }, items: [{}] });
		expect(missing.error?.name).toBe('NodeOperationError');
		expect(missing.error?.message).toMatch(/needs a value for "Body 2: …on \{2\}\."; it takes 2 \(body1, body2\)/);
		const notText = await runOn(emulator, {
			parameters: { ...base, variables: mapperValue({ body1: '={{ $json.o }}', body2: 'b' }) },
			items: [
			{ o: { nested: true } },
		],
		});
		expect(notText.error?.message).toMatch(/Variable "body1" \(variables\.body1\): must be text/);
		const notUuid = await runOn(emulator, {
			parameters: { ...base, template: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, variables: mapperValue({ body1: 'a', body2: 'b' }) },
			items: [{ id: 'tpl-1' }],
		});
		expect(notUuid.error?.message).toMatch(/Template \(template\): "tpl-1" is not a template ID/);
		// Typed in by hand: the node's own check, the same as for an expression.
		const typed = await runOn(emulator, {
			parameters: { ...base, template: { __rl: true, mode: 'id', value: 'tpl-1' }, variables: mapperValue({ body1: 'a', body2: 'b' }) },
			items: [{}],
		});
		expect(typed.error?.message).toMatch(/Template \(template\): "tpl-1" is not a template ID/);
		// Nothing was sent: only the read of the account's templates for the missing value (a value
		// that is no text and an ID that is no UUID are refused before that read).
		expect(emulator.requests.map((request) => `${request.method} ${request.api}`)).toEqual(['GET templates']);
	});

	it('a body variable the template does not take fails before sending, naming it (spec 2.3: keys must match the template\'s variables)', async () => {
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: 'a', body2: 'b', body9: 'c' })),
			items: [{}],
		});
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/template "appointment_reminder" does not take "body9"; it takes 2 \(body1, body2\)/);
		expect(emulator.requests.filter((request) => request.api === 'templateSend')).toEqual([]);
	});
});

describe('Message → Send Template and the account\'s templates', () => {
	const SPRING_SALE = 'deadbeef-5678-4bcd-9ef0-123456789a04'; // REJECTED, takes body1
	const FEATURE_ANNOUNCEMENT = 'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06'; // PENDING
	const base = { resource: 'message', operation: 'sendTemplate', phoneNumber: '={{ $json.phone }}' };
	const sends = () => emulator.requests.filter((request) => request.api === 'templateSend');
	const reads = () => emulator.requests.filter((request) => request.api === 'templates');
	/** Each variable from the item's field of the same name; an absent field gives no value. */
	const variablesFromItem = mapperValue({ body1: '={{ $json.body1 }}', body2: '={{ $json.body2 }}', body3: '={{ $json.body3 }}', visit_website: '={{ $json.visit_website }}' });

	it('reads the templates once per execution, however many items, before the first send', async () => {
		const items = Array.from({ length: 5 }, (_, n) => ({ phone: `+1415555010${n}`, name: `P${n}`, day: 'Monday' }));
		const run = await runOn(emulator, {
			parameters: { ...base, template: templateById(APPOINTMENT_REMINDER), variables: mapperValue({ body1: '={{ $json.name }}', body2: '={{ $json.day }}' }) },
			items: items,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.success)).toEqual(Array(5).fill(true));
		expect(reads()).toHaveLength(1);
		expect(emulator.requests[0].api).toBe('templates');
		expect(sends()).toHaveLength(5);
		expect(run.items[0].json.templateName).toBe('appointment_reminder');
	});

	it('a missing value fails before any send: a NodeOperationError naming the item, the template and what it takes', async () => {
		// Item 0 is valid: without Continue On Fail the bad item 1 stops the run before item 0 is sent.
		const run = await runOn(emulator, {
			parameters: { ...base, template: '={{ $json.template }}', variables: variablesFromItem },
			items: [
			{ phone: '+14155550100', template: APPOINTMENT_REMINDER, body1: 'Ada', body2: 'Monday' },
			{ phone: '+14155550101', template: APPOINTMENT_REMINDER, body1: 'x' },
		],
		});
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/template "appointment_reminder" needs a value for "Body 2: …on \{2\}\."; it takes 2 \(body1, body2\) \[item 1\]/);
		expect((run.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(sends()).toEqual([]);
		expect(reads()).toHaveLength(1);
	});

	it.each([
		['an ID the list does not have (beside one it has)', '0f0e0d0c-0b0a-4909-8807-060504030201', {}, /^Template \(template\): "0f0e0d0c-0b0a-4909-8807-060504030201" is not one of the \d+ templates your account lists/],
		['a REJECTED template', SPRING_SALE, { body1: 'x' }, /^Template \(template\): template "spring_sale" is REJECTED, cannot be sent/],
		['a PENDING template', FEATURE_ANNOUNCEMENT, { body1: 'x', visit_website: 'y' }, /^Template \(template\): template "feature_announcement" is PENDING, cannot be sent yet/],
	] as const)('%s fails before any send; with Continue On Fail that item alone, and the other goes', async (_, id, values, message) => {
		const items = [
			{ phone: '+14155550100', template: APPOINTMENT_REMINDER, body1: 'Ada', body2: 'Monday' },
			{ phone: '+14155550101', template: id, ...values },
		];
		const stopped = await runOn(emulator, { parameters: { ...base, template: '={{ $json.template }}', variables: variablesFromItem }, items });
		expect(stopped.error?.name).toBe('NodeOperationError');
		expect(stopped.error?.message).toMatch(message);
		expect(stopped.error?.message).toMatch(/\[item 1\]$/);
		expect(sends()).toEqual([]);

		emulator.reset();
		const run = await runOn(emulator, { parameters: { ...base, template: '={{ $json.template }}', variables: variablesFromItem }, items, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.success).toBe(true);
		expect(run.items[1].json.error).toMatch(message);
		expect(sends().map((request) => (request.body as { template: string }).template)).toEqual([APPOINTMENT_REMINDER]);
		expect(emulator.deliveries).toHaveLength(1);
		expect(reads()).toHaveLength(1);
	});

	it('a variable named __proto__ or constructor never reaches the service', async () => {
		// n8n itself drops these keys when it copies parameters (n8n-workflow deepCopy's reserved
		// keys), so the node never sees them; where they do arrive, they stay names of their own
		// (test/unit/templates.test.ts). Through the engine: the send carries the values given.
		for (const name of ['__proto__', 'constructor']) {
			emulator.reset();
			// JSON.parse makes the name an own key, as a saved workflow's JSON does.
			const value = JSON.parse(`{"body1":"a","body2":"b","${name}":"x"}`) as Record<string, string>;
			const run = await runOn(emulator, {
				parameters: { ...base, template: templateById(APPOINTMENT_REMINDER), variables: { ...mapperValue({ body1: 'a', body2: 'b' }), value } },
				items: [
				{ phone: '+14155550100' },
			],
			});
			expect(run.error, name).toBeUndefined();
			expect(sends().map((request) => JSON.stringify(request.body)), name).toEqual([
				JSON.stringify({ template: APPOINTMENT_REMINDER, variables: { body1: 'a', body2: 'b' }, phone_number: '+14155550100' }),
			]);
		}
	});

	it('counts the live template, not the fields the editor saved', async () => {
		// The saved mapper lists only body1 (stale: the template takes body1 and body2 now).
		const stale = await runOn(emulator, {
			parameters: { ...base, template: templateById(APPOINTMENT_REMINDER), variables: mapperValue({ body1: 'a' }) },
			items: [
			{ phone: '+14155550100' },
		],
		});
		expect(stale.error?.message).toMatch(/needs a value for "Body 2: [^"]*"; it takes 2 \(body1, body2\)/);
		expect(sends()).toEqual([]);
	});

	it('without the list (no Templates Base URL, or it cannot be read), the message goes as given', async () => {
		emulator.setFaults({ script: ['5xx-before', '5xx-before'] });
		const run = await runOn(emulator, {
			parameters: { ...base, template: templateById(APPOINTMENT_REMINDER), variables: mapperValue({ body1: 'a', body2: 'b' }), options: { maxRetries: 1 } },
			items: [{ phone: '+14155550100' }],
		});
		expect(run.error).toBeUndefined();
		expect(reads().length).toBeGreaterThan(0);
		expect(sends()).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({ success: true, template: APPOINTMENT_REMINDER });
		expect(run.items[0].json).not.toHaveProperty('templateName');
	});
});

describe('Message → Send via Dashboard (V2)', () => {
	it('posts {to, text} with the raw key in Authorization, no Bearer prefix', async () => {
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'Hello' },
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		const [request] = emulator.requests;
		expect(request).toMatchObject({
			api: 'dashboard',
			method: 'POST',
			path: '/dashboard/api/messaging/messages/v2.0.0/send',
			body: { to: '+14155550123', text: 'Hello' },
			status: 200,
		});
		expect(request.headers.authorization).toBe(emulator.tokens.dashboardKey);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(run.items[0].json).toMatchObject({ success: true, to: '+14155550123', status: 'sent', message: 'Message sent' });
		expect(run.items[0].json.messageId).toMatch(/^dsh_/);
	});
});

describe('Message → Send via Alternative API', () => {
	it('posts {to, message} with X-API-Key and no Authorization header', async () => {
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'Hi there' },
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		const [request] = emulator.requests;
		expect(request).toMatchObject({ api: 'alternative', method: 'POST', path: '/alt/v1/messages', body: { to: '+14155550123', message: 'Hi there' } });
		expect(request.headers['x-api-key']).toBe(emulator.tokens.alternativeKey);
		expect(request.headers.authorization).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ success: true, to: '+14155550123', status: 'queued' });
		expect(run.items[0].json.messageId).toMatch(/^alt_/);
	});
});

describe('Template → Get Many', () => {
	it('GETs {templatesBaseUrl}/get_templates with no body and returns one item per template', async () => {
		const run = await runOn(emulator, { parameters: { resource: 'template', operation: 'getAll', returnAll: true }, items: [{}] });
		expect(run.error).toBeUndefined();
		const [request] = emulator.requests;
		expect(request).toMatchObject({ api: 'templates', method: 'GET', path: '/api:tpl2d4e/get_templates' });
		expect(request.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(run.items.map((item) => item.json)).toEqual(emulator.templates.map((template) => ({ ...template })));
		expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('applies Limit and the filters', async () => {
		const limited = await runOn(emulator, { parameters: { resource: 'template', operation: 'getAll', returnAll: false, limit: 2 }, items: [{}] });
		expect(limited.items).toHaveLength(2);
		const approved = await runOn(emulator, {
			parameters: { resource: 'template', operation: 'getAll', returnAll: true, filters: { status: 'APPROVED', language: 'en' } },
			items: [{}],
		});
		const expected = emulator.templates.filter((t) => t.status === 'APPROVED' && (t.language === 'en' || t.language.startsWith('en_')));
		expect(approved.items.map((item) => item.json.name)).toEqual(expected.map((t) => t.name));
		expect(expected.length).toBeGreaterThan(1);
		const byName = await runOn(emulator, {
			parameters: { resource: 'template', operation: 'getAll', returnAll: true, filters: { nameContains: 'ORDER' } },
			items: [{}],
		});
		expect(byName.items.map((item) => item.json.name)).toEqual(['order_confirmation']);
	});

	it('lists once per input item, each list paired to its item', async () => {
		const run = await runOn(emulator, { parameters: { resource: 'template', operation: 'getAll', returnAll: false, limit: 1 }, items: [{}, {}] });
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
