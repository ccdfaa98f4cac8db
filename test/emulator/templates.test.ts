import { describe, expect, it } from 'vitest';
import type { TemplateRecord } from './index';
import { call, clientFor, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator();
const api = clientFor(emulator);

const byName = (name: string): TemplateRecord => {
	const found = emulator.templates.find((t) => t.name === name);
	if (!found) throw new Error(`no template ${name}`);
	return found;
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('list templates', () => {
	it('200 with every seeded record, in the fields of spec part 2.5', async () => {
		const answer = await api.listTemplates();
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual(emulator.templates);
		expect(answer.body.length).toBeGreaterThanOrEqual(5);
		for (const t of answer.body as TemplateRecord[]) {
			expect(Object.keys(t).sort()).toEqual(
				['category', 'id', 'language', 'name', 'status', 'template_formate', 'template_id', 'type', 'user_id', 'variable_counts'],
			);
			expect(Number.isInteger(t.id)).toBe(true);
			expect(t.user_id).toMatch(UUID);
			expect(t.template_id).toMatch(UUID);
			expect(['MARKETING', 'UTILITY']).toContain(t.category);
			expect(t.type).toBe('text');
			expect(t.variable_counts).toBe(emulator.templateVariables[t.template_id].length);
		}
	});

	it('seeds the cases the node needs', () => {
		expect(emulator.templateVariables[byName('appointment_reminder').template_id]).toEqual(['body1', 'body2']);
		expect(emulator.templateVariables[byName('order_confirmation').template_id]).toEqual(['media', 'body1', 'body2', 'body3', 'visit_website']);
		expect(byName('order_confirmation').variable_counts).toBe(5);
		expect(byName('welcome_message').variable_counts).toBe(0);
		const statuses = emulator.templates.map((t) => t.status);
		expect(statuses.filter((s) => s === 'REJECTED')).toHaveLength(1);
		expect(statuses.filter((s) => s === 'PENDING')).toHaveLength(1);
		expect(emulator.templates.map((t) => t.language)).toEqual(expect.arrayContaining(['en', 'en_US', 'es']));
	});

	it('accepts the read-only token; 401 {error:{code,message}} for missing or wrong tokens', async () => {
		expect((await api.listTemplates({ authorization: `Bearer ${emulator.tokens.forbiddenBearer}` })).status).toBe(200);
		for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: emulator.tokens.bearer }] as Record<string, string>[]) {
			const answer = await api.listTemplates(headers);
			expect(answer.status).toBe(401);
			expect(answer.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/^Authentication failed/) } });
		}
	});
});

describe('template send', () => {
	const reminder = () => byName('appointment_reminder').template_id;

	it('200 with the part 2.4 body, a delivery and a credit charged', async () => {
		const credits = emulator.account.credits;
		const answer = await api.sendTemplate({ template: reminder(), phone_number: PHONE, variables: { body1: 'Ann', body2: 'Monday' } });
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({
			success: true,
			messaging_response_info: {
				contacts: [{ input: PHONE, wa_id: '14155550123' }],
				messages: [{ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' }],
				messaging_product: 'whatsapp',
			},
		});
		expect(emulator.account.credits).toBe(credits - 1);
		expect(emulator.deliveries).toMatchObject([{ api: 'templateSend', recipient: PHONE, content: `${reminder()} {"body1":"Ann","body2":"Monday"}` }]);
	});

	it('message ids are unique; the same variables in another key order are the same content', async () => {
		const a = await api.sendTemplate({ template: reminder(), phone_number: PHONE, variables: { body1: 'A', body2: 'B' } });
		const b = await api.sendTemplate({ template: reminder(), phone_number: PHONE, variables: { body2: 'B', body1: 'A' } });
		expect(a.body.messaging_response_info.messages[0].id).not.toBe(b.body.messaging_response_info.messages[0].id);
		expect(emulator.duplicates()).toMatchObject([{ api: 'templateSend', count: 2 }]);
	});

	it('sends the media + three bodies + button template, the variable-less one, and the Spanish one', async () => {
		const order = byName('order_confirmation').template_id;
		const variables = { media: 'https://cdn.example.com/receipt.png', body1: 'Ann', body2: 'A-17', body3: '$12', visit_website: 'A-17' };
		expect((await api.sendTemplate({ template: order, phone_number: PHONE, variables })).status).toBe(200);
		const welcome = byName('welcome_message').template_id;
		expect((await api.sendTemplate({ template: welcome, phone_number: PHONE, variables: {} })).status).toBe(200);
		expect((await api.sendTemplate({ template: welcome, phone_number: PHONE })).status).toBe(200);
		const spanish = emulator.templates.find((t) => t.language === 'es')!;
		const answer = await api.sendTemplate({ template: spanish.template_id, phone_number: PHONE, variables: { body1: 'Ana', body2: '10 €', body3: 'lunes' } });
		expect(answer.status).toBe(200);
	});

	it.each([
		['unknown id', { template: '00000000-0000-4000-8000-000000000000' }, 'TEMPLATE_NOT_FOUND'],
		['missing template', { template: undefined }, 'TEMPLATE_NOT_FOUND'],
		['the numeric id instead of template_id', { template: 101 }, 'TEMPLATE_NOT_FOUND'],
		['REJECTED template', { template: 'deadbeef-5678-4bcd-9ef0-123456789a04', variables: { body1: '20%' } }, 'TEMPLATE_NOT_APPROVED'],
		['PENDING template', { template: 'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06', variables: { body1: 'x', visit_website: 'y' } }, 'TEMPLATE_NOT_APPROVED'],
		['phone without +', { phone_number: '14155550123' }, 'INVALID_PHONE_NUMBER'],
		['missing phone', { phone_number: undefined }, 'INVALID_PHONE_NUMBER'],
		['a missing variable', { variables: { body1: 'Ann' } }, 'INVALID_VARIABLES'],
		['an extra variable', { variables: { body1: 'Ann', body2: 'Mon', body3: 'x' } }, 'INVALID_VARIABLES'],
		['a number value', { variables: { body1: 'Ann', body2: 3 } }, 'INVALID_VARIABLES'],
		['variables as an array', { variables: ['Ann', 'Mon'] }, 'INVALID_VARIABLES'],
		['no variables', { variables: undefined }, 'INVALID_VARIABLES'],
	])('400 for %s', async (_case, patch, code) => {
		const body = { template: reminder(), phone_number: PHONE, variables: { body1: 'Ann', body2: 'Mon' }, ...patch };
		const answer = await api.sendTemplate(body);
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ error: { code, message: expect.any(String) } });
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('INVALID_VARIABLES names the problem', async () => {
		const answer = await api.sendTemplate({ template: reminder(), phone_number: PHONE, variables: { body1: 1, body9: 'x' } });
		expect(answer.body.error.message).toBe('Invalid variables: missing variables: body2; unknown variables: body9; values must be strings: body1');
	});

	it('auth: 401 for missing/wrong token, 403 for the read-only token, 400 for a non-JSON body', async () => {
		const body = { template: reminder(), phone_number: PHONE, variables: { body1: 'A', body2: 'B' } };
		for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
			const answer = await api.sendTemplate(body, headers);
			expect(answer.status).toBe(401);
			expect(answer.body.error.code).toBe('UNAUTHORIZED');
		}
		const forbidden = await api.sendTemplate(body, { authorization: `Bearer ${emulator.tokens.forbiddenBearer}` });
		expect(forbidden.status).toBe(403);
		expect(forbidden.body).toEqual({ error: { code: 'FORBIDDEN', message: 'Forbidden: token is not allowed to send' } });
		const url = `${emulator.credentials.messagingBearerApi.templateSendBaseUrl}/send_template_message_by_api`;
		const notJson = await call(url, { raw: 'template=x', headers: { ...api.bearer, 'content-type': 'application/json' } });
		expect(notJson.status).toBe(400);
		expect(notJson.body.error.code).toBe('INVALID_REQUEST');
	});

	it('account checks: 402 without credits, 403 when the subscription expired', async () => {
		const body = { template: reminder(), phone_number: PHONE, variables: { body1: 'A', body2: 'B' } };
		emulator.account.credits = 0;
		const noCredits = await api.sendTemplate(body);
		expect(noCredits.status).toBe(402);
		expect(noCredits.body.error.code).toBe('INSUFFICIENT_CREDITS');
		emulator.resetAccount();
		emulator.account.subscriptionExpired = true;
		const expired = await api.sendTemplate(body);
		expect(expired.status).toBe(403);
		expect(expired.body).toEqual({ error: { code: 'SUBSCRIPTION_EXPIRED', message: 'Subscription expired' } });
	});
});
