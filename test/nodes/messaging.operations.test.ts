import type { ResourceMapperValue } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { APPOINTMENT_REMINDER, mapperValue, ORDER_CONFIRMATION, runMessaging, useEmulator } from './setup';

const emulator = useEmulator();

describe('Message → Send', () => {
	it('posts {phone, text} to {sendBaseUrl}/send with the Bearer token and JSON content type', async () => {
		const run = await runMessaging(
			emulator(),
			{ resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}' },
			[
				{ phone: '+1 (415) 555-0123', text: 'Your order shipped' },
				{ phone: '0044 20 7946 0958', text: 'Second' },
			],
		);
		expect(run.error).toBeUndefined();
		const requests = emulator().requests;
		expect(requests).toHaveLength(2);
		expect(requests[0]).toMatchObject({
			api: 'send',
			method: 'POST',
			path: '/api:snd7f3a/send',
			body: { phone: '+14155550123', text: 'Your order shipped' },
			status: 200,
		});
		expect(requests[0].headers.authorization).toBe(`Bearer ${emulator().tokens.bearer}`);
		expect(requests[0].headers['content-type']).toMatch(/^application\/json/);
		expect(Object.keys(requests[0].body as object).sort()).toEqual(['phone', 'text']);
		expect(requests[1].body).toEqual({ phone: '+442079460958', text: 'Second' });
		expect(run.items.map((item) => item.json)).toEqual([
			{ success: true, to: '+14155550123', message: 'Message sent successfully' },
			{ success: true, to: '+442079460958', message: 'Message sent successfully' },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('sends the attachment URL as written, with the file name from the URL unless one is given', async () => {
		const url = 'https://files.example.com/invoices/INV-42.pdf';
		const run = await runMessaging(
			emulator(),
			{
				resource: 'message',
				operation: 'send',
				phone: '+14155550123',
				text: 'Invoice attached',
				additionalFields: { attachment: '={{ $json.url }}', filename: '={{ $json.name }}' },
			},
			[{ url }, { url, name: 'Your invoice.pdf' }],
		);
		expect(run.error).toBeUndefined();
		expect(emulator().requests.map((request) => request.body)).toEqual([
			{ phone: '+14155550123', text: 'Invoice attached', attachment: url, filename: 'INV-42.pdf' },
			{ phone: '+14155550123', text: 'Invoice attached', attachment: url, filename: 'Your invoice.pdf' },
		]);
		expect(run.items[1].json).toEqual({
			success: true,
			to: '+14155550123',
			message: 'Message sent successfully',
			attachment: url,
			filename: 'Your invoice.pdf',
		});
	});

	it('adds the raw answer only when asked', async () => {
		const run = await runMessaging(
			emulator(),
			{ resource: 'message', operation: 'send', phone: '+14155550123', text: 'x', options: { includeRawResponse: true } },
			[{}],
		);
		expect(run.items[0].json.rawResponse).toEqual({ message: 'Message sent successfully' });
	});
});

describe('Message → Send Template', () => {
	it('posts {template, variables, phone_number} with every variable as text', async () => {
		const run = await runMessaging(
			emulator(),
			{
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '={{ $json.phone }}',
				template: { __rl: true, mode: 'list', value: APPOINTMENT_REMINDER, cachedResultName: 'appointment_reminder' },
				variables: mapperValue({ body1: '={{ $json.name }}', body2: '={{ $json.day }}' }),
			},
			[{ phone: '+49 151 2345 6789', name: 'Ada', day: 20261124 }],
		);
		expect(run.error).toBeUndefined();
		const [request] = emulator().requests;
		expect(request).toMatchObject({ api: 'templateSend', method: 'POST', path: '/api:tsd91bc/send_template_message_by_api', status: 200 });
		expect(request.headers.authorization).toBe(`Bearer ${emulator().tokens.bearer}`);
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
		const run = await runMessaging(
			emulator(),
			{
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '+14155550123',
				template: { __rl: true, mode: 'id', value: ORDER_CONFIRMATION },
				variables: mapperValue(values),
			},
			[{}],
		);
		expect(run.error).toBeUndefined();
		expect(emulator().requests[0].body).toEqual({ template: ORDER_CONFIRMATION, variables: values, phone_number: '+14155550123' });
	});

	it('refuses variables that do not fit the template, before any request', async () => {
		const base = {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
		};
		const unknown = await runMessaging(
			emulator(),
			{ ...base, variables: { ...mapperValue({ body1: 'a', body2: 'b' }), value: { body1: 'a', body2: 'b', body9: 'c' } } as ResourceMapperValue },
			[{}],
		);
		expect(unknown.error?.name).toBe('NodeOperationError');
		expect(unknown.error?.message).toMatch(/no variable "body9"; it takes body1, body2/);
		const missing = await runMessaging(emulator(), { ...base, variables: mapperValue({ body1: 'a', body2: '' }) }, [{}]);
		expect(missing.error?.message).toMatch(/needs "body2"/);
		const notText = await runMessaging(emulator(), { ...base, variables: mapperValue({ body1: '={{ $json.o }}', body2: 'b' }) }, [
			{ o: { nested: true } },
		]);
		expect(notText.error?.message).toMatch(/Variable "body1" \(variables\.body1\): must be text/);
		const notUuid = await runMessaging(
			emulator(),
			{ ...base, template: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, variables: mapperValue({ body1: 'a', body2: 'b' }) },
			[{ id: 'tpl-1' }],
		);
		expect(notUuid.error?.message).toMatch(/Template \(template\): "tpl-1" is not a template ID/);
		// Typed in by hand, n8n itself flags the node before the run (the By ID mode's pattern).
		const typed = await runMessaging(
			emulator(),
			{ ...base, template: { __rl: true, mode: 'id', value: 'tpl-1' }, variables: mapperValue({ body1: 'a', body2: 'b' }) },
			[{}],
		);
		expect(typed.run.error?.message).toMatch(/has issues/);
		expect(emulator().requests).toHaveLength(0);
	});
});

describe('Message → Send via Dashboard (V2)', () => {
	it('posts {to, text} with the raw key in Authorization, no Bearer prefix', async () => {
		const run = await runMessaging(emulator(), { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'Hello' }, [{}]);
		expect(run.error).toBeUndefined();
		const [request] = emulator().requests;
		expect(request).toMatchObject({
			api: 'dashboard',
			method: 'POST',
			path: '/dashboard/api/messaging/messages/v2.0.0/send',
			body: { to: '+14155550123', text: 'Hello' },
			status: 200,
		});
		expect(request.headers.authorization).toBe(emulator().tokens.dashboardKey);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(run.items[0].json).toMatchObject({ success: true, to: '+14155550123', status: 'sent', message: 'Message sent' });
		expect(run.items[0].json.messageId).toMatch(/^dsh_/);
	});
});

describe('Message → Send via Alternative API', () => {
	it('posts {to, message} with X-API-Key and no Authorization header', async () => {
		const run = await runMessaging(
			emulator(),
			{ resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'Hi there' },
			[{}],
		);
		expect(run.error).toBeUndefined();
		const [request] = emulator().requests;
		expect(request).toMatchObject({ api: 'alternative', method: 'POST', path: '/alt/v1/messages', body: { to: '+14155550123', message: 'Hi there' } });
		expect(request.headers['x-api-key']).toBe(emulator().tokens.alternativeKey);
		expect(request.headers.authorization).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ success: true, to: '+14155550123', status: 'queued' });
		expect(run.items[0].json.messageId).toMatch(/^alt_/);
	});
});

describe('Template → Get Many', () => {
	it('GETs {templatesBaseUrl}/get_templates with no body and returns one item per template', async () => {
		const run = await runMessaging(emulator(), { resource: 'template', operation: 'getAll', returnAll: true }, [{}]);
		expect(run.error).toBeUndefined();
		const [request] = emulator().requests;
		expect(request).toMatchObject({ api: 'templates', method: 'GET', path: '/api:tpl2d4e/get_templates' });
		expect(request.headers.authorization).toBe(`Bearer ${emulator().tokens.bearer}`);
		expect(run.items.map((item) => item.json)).toEqual(emulator().templates.map((template) => ({ ...template })));
		expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('applies Limit and the filters', async () => {
		const limited = await runMessaging(emulator(), { resource: 'template', operation: 'getAll', returnAll: false, limit: 2 }, [{}]);
		expect(limited.items).toHaveLength(2);
		const approved = await runMessaging(
			emulator(),
			{ resource: 'template', operation: 'getAll', returnAll: true, filters: { status: 'APPROVED', language: 'en' } },
			[{}],
		);
		const expected = emulator().templates.filter((t) => t.status === 'APPROVED' && (t.language === 'en' || t.language.startsWith('en_')));
		expect(approved.items.map((item) => item.json.name)).toEqual(expected.map((t) => t.name));
		expect(expected.length).toBeGreaterThan(1);
		const byName = await runMessaging(
			emulator(),
			{ resource: 'template', operation: 'getAll', returnAll: true, filters: { nameContains: 'ORDER' } },
			[{}],
		);
		expect(byName.items.map((item) => item.json.name)).toEqual(['order_confirmation']);
	});

	it('lists once per input item, each list paired to its item', async () => {
		const run = await runMessaging(emulator(), { resource: 'template', operation: 'getAll', returnAll: false, limit: 1 }, [{}, {}]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
