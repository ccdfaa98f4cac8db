/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';
import { call, clientFor, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator();
const api = clientFor(emulator);

describe('dashboard send (v2)', () => {
	it('200 {success, message, details.messages} and a delivery', async () => {
		const answer = await api.dashboard({ to: PHONE, text: 'Hi from the dashboard' });
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({
			success: true,
			message: 'Message sent',
			details: { messages: [{ id: expect.stringMatching(/^dsh_/), message_status: 'sent' }] },
		});
		expect(emulator.deliveries).toMatchObject([{ api: 'dashboard', recipient: PHONE, content: 'Hi from the dashboard' }]);
	});

	it.each([
		['missing', {}],
		['wrong', { authorization: 'nope' }],
		['sent with the Bearer prefix', { authorization: 'Bearer emu_dashkey_4c3b2a1f0e9d' }],
		['sent as X-API-Key', { 'x-api-key': 'emu_dashkey_4c3b2a1f0e9d' }],
	])('401 {success:false, message, details} when the key is %s', async (_case, headers) => {
		const answer = await api.dashboard({ to: PHONE, text: 'Hi' }, headers);
		expect(answer.status).toBe(401);
		expect(answer.body).toEqual({ success: false, message: 'Unauthorized', details: expect.any(String) });
	});

	it('says why a Bearer-prefixed key is refused', async () => {
		const answer = await api.dashboard({ to: PHONE, text: 'Hi' }, { authorization: 'Bearer emu_dashkey_4c3b2a1f0e9d' });
		expect(answer.body.details).toMatch(/without a prefix/);
	});

	it.each([
		[{ to: '14155550123', text: 'Hi' }, /'to'/],
		[{ text: 'Hi' }, /'to'/],
		[{ to: PHONE, text: '' }, /'text' is required/],
		[{ to: PHONE, message: 'Hi' }, /'text' is required/],
	])('400 Invalid request for %j', async (body, details) => {
		const answer = await api.dashboard(body);
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ success: false, message: 'Invalid request', details: expect.stringMatching(details) });
	});

	it('400 for a body that is not JSON', async () => {
		const url = `${emulator.credentials.messagingAuthorizationKeyApi.dashboardUrl}/api/messaging/messages/v2.0.0/send`;
		const answer = await call(url, { raw: 'to=+14155550123', headers: { authorization: emulator.tokens.dashboardKey, 'content-type': 'application/x-www-form-urlencoded' } });
		expect(answer.status).toBe(400);
		expect(answer.body).toMatchObject({ success: false, message: 'Invalid request' });
	});

	it('402 without credits, 403 when the subscription expired', async () => {
		emulator.account.credits = 0;
		const noCredits = await api.dashboard({ to: PHONE, text: 'Hi' });
		expect(noCredits.status).toBe(402);
		expect(noCredits.body).toEqual({ success: false, message: 'Insufficient credits', details: 'Insufficient credits, account balance too low' });
		emulator.resetAccount();
		emulator.account.subscriptionExpired = true;
		const expired = await api.dashboard({ to: PHONE, text: 'Hi' });
		expect(expired.status).toBe(403);
		expect(expired.body).toEqual({ success: false, message: 'Subscription expired', details: 'Subscription expired' });
	});
});

describe('alternative send', () => {
	it('202 {success, id: alt_<n>, status: queued, to} and a delivery', async () => {
		const answer = await api.alternative({ to: PHONE, message: 'Hi via alt' });
		expect(answer.status).toBe(202);
		expect(answer.body).toEqual({ success: true, id: expect.stringMatching(/^alt_\d+$/), status: 'queued', to: PHONE });
		expect(emulator.deliveries).toMatchObject([{ api: 'alternative', recipient: PHONE, content: 'Hi via alt' }]);
	});

	it.each([
		['missing', {}],
		['wrong', { 'x-api-key': 'nope' }],
		['sent only as Authorization', { authorization: 'emu_xkey_7a6b5c4d3e2f' }],
		['sent only as Authorization: Bearer', { authorization: 'Bearer emu_xkey_7a6b5c4d3e2f' }],
	])('401 {error:{code,message}} when the key is %s', async (_case, headers) => {
		const answer = await api.alternative({ to: PHONE, message: 'Hi' }, headers);
		expect(answer.status).toBe(401);
		expect(answer.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
	});

	it('names X-API-Key when only Authorization was sent', async () => {
		const answer = await api.alternative({ to: PHONE, message: 'Hi' }, { authorization: 'emu_xkey_7a6b5c4d3e2f' });
		expect(answer.body.error.message).toMatch(/X-API-Key/);
	});

	it.each([
		[{ to: 'nope', message: 'Hi' }, 'INVALID_PHONE_NUMBER'],
		[{ to: PHONE }, 'INVALID_REQUEST'],
		[{ to: PHONE, text: 'Hi' }, 'INVALID_REQUEST'],
	])('400 for %j', async (body, code) => {
		const answer = await api.alternative(body);
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ error: { code, message: expect.any(String) } });
	});

	it('402 without credits, 403 when the subscription expired', async () => {
		emulator.account.credits = 0;
		expect((await api.alternative({ to: PHONE, message: 'Hi' })).body.error.code).toBe('INSUFFICIENT_CREDITS');
		emulator.resetAccount();
		emulator.account.subscriptionExpired = true;
		const expired = await api.alternative({ to: PHONE, message: 'Hi' });
		expect(expired.status).toBe(403);
		expect(expired.body.error.code).toBe('SUBSCRIPTION_EXPIRED');
	});
});
