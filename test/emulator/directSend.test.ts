/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';
import { call, clientFor, MB, PHONE } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator();
const api = clientFor(emulator);

const failure = (reason: string) => ({ message: `Message sending failed | Reason: ${reason}` });

describe('direct send: success', () => {
	it('answers 200 {message}, charges one credit and records the delivery', async () => {
		const credits = emulator.account.credits;
		const answer = await api.send({ phone: PHONE, text: 'Hello' });
		expect(answer.status).toBe(200);
		expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
		expect(answer.body).toEqual({ message: 'Message sent successfully' });
		expect(emulator.account.credits).toBe(credits - 1);
		expect(emulator.deliveries).toMatchObject([{ api: 'send', recipient: PHONE, content: 'Hello', seq: 1 }]);
		expect(emulator.requests[0]).toMatchObject({ api: 'send', outcome: 'delivered', status: 200 });
	});

	it('accepts a public attachment of each media type, .jpg as well as .jpeg', async () => {
		for (const file of ['a.jpeg', 'a.jpg', 'a.PNG', 'v.mp4', 'v.3gp', 'd.pdf', 'd.doc', 'd.xls', 'd.ppt', 'd.txt', 's.mp3', 's.aac', 's.m4a', 's.ogg']) {
			const answer = await api.send({ phone: PHONE, text: 'file', attachment: `https://cdn.example.com/media/${file}` });
			expect(answer.status, file).toBe(200);
		}
	});

	it('takes the type from filename when the URL path has no extension', async () => {
		const attachment = 'https://cdn.example.com/download?id=7';
		expect((await api.send({ phone: PHONE, text: 'x', attachment, filename: 'report.pdf' })).status).toBe(200);
		expect((await api.send({ phone: PHONE, text: 'x', attachment })).body).toEqual(failure('File size or type not accepted'));
	});
});

describe('direct send: authentication', () => {
	it.each([
		['missing', {}],
		['wrong token', { authorization: 'Bearer nope' }],
		['token without the Bearer scheme', { authorization: 'emu_bearer_9f8e7d6c5b4a' }],
		['another scheme', { authorization: 'Basic emu_bearer_9f8e7d6c5b4a' }],
	])('401 when the token is %s', async (_case, headers) => {
		const answer = await api.send({ phone: PHONE, text: 'Hi' }, headers);
		expect(answer.status).toBe(401);
		expect(answer.body.message).toMatch(/^Message sending failed \| Reason: Authentication failed/);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('condition 4: a wrong token gives the invalid-token reason', async () => {
		const answer = await api.send({ phone: PHONE, text: 'Hi' }, { authorization: 'Bearer nope' });
		expect(answer.body).toEqual(failure('Authentication failed: invalid API token'));
	});

	it('403 for the valid but forbidden token', async () => {
		const answer = await api.send({ phone: PHONE, text: 'Hi' }, { authorization: `Bearer ${emulator.tokens.forbiddenBearer}` });
		expect(answer.status).toBe(403);
		expect(answer.body).toEqual(failure('Forbidden: token is not allowed to send'));
	});

	it('accepts the scheme word in any case', async () => {
		expect((await api.send({ phone: PHONE, text: 'Hi' }, { authorization: `bearer ${emulator.tokens.bearer}` })).status).toBe(200);
	});
});

describe('direct send: request body', () => {
	it('400 for a body that is not JSON, in the direct-send shape', async () => {
		const url = `${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`;
		const notJson = await call(url, { raw: '{phone:', headers: { ...api.bearer, 'content-type': 'application/json' } });
		expect(notJson.status).toBe(400);
		expect(notJson.body.message).toMatch(/^Message sending failed \| Reason: .*JSON/);
		const wrongType = await call(url, { raw: JSON.stringify({ phone: PHONE, text: 'x' }), headers: { ...api.bearer, 'content-type': 'text/plain' } });
		expect(wrongType.status).toBe(400);
		expect(wrongType.body.message).toMatch(/Content-Type: application\/json/);
	});

	it.each([[undefined], [''], ['   '], [42]])('400 Text is required for text %j', async (text) => {
		const answer = await api.send({ phone: PHONE, text });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual(failure('Text is required'));
	});
});

describe('direct send: the ten error conditions of spec part 7', () => {
	it.each(['14155550123', '+0123456789', '+1415', '+1 415 555 0123', '+1234567890123456', undefined])(
		'1. invalid phone %j -> 400',
		async (phone) => {
			const answer = await api.send({ phone, text: 'Hi' });
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual(failure('Invalid phone number, it must be in E.164 format'));
		},
	);

	it('2. per-number message limit -> 400 once the number has had perNumberLimit deliveries', async () => {
		emulator.account.perNumberLimit = 2;
		expect((await api.send({ phone: PHONE, text: 'a' })).status).toBe(200);
		expect((await api.dashboard({ to: PHONE, text: 'b' })).status).toBe(200); // counts across APIs
		const answer = await api.send({ phone: PHONE, text: 'c' });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual(failure('Message limit for this number reached'));
		expect((await api.send({ phone: '+14155550999', text: 'c' })).status).toBe(200);
	});

	it.each([
		'ftp://files.example.com/a.png',
		'not a url',
		'',
		'https://files.example.invalid/a.png',
		'http://localhost/a.png',
		'http://127.0.0.1:8080/a.png',
		'https://cdn.example.com/private/a.png',
	])('3. attachment %j not public -> 400', async (attachment) => {
		const answer = await api.send({ phone: PHONE, text: 'Hi', attachment });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual(failure('Attachment URL is not public or not accessible'));
	});

	it('3. an attachment declared unreachable -> 400', async () => {
		emulator.setAttachment('https://cdn.example.com/gone.png', { reachable: false });
		const answer = await api.send({ phone: PHONE, text: 'Hi', attachment: 'https://cdn.example.com/gone.png' });
		expect(answer.body).toEqual(failure('Attachment URL is not public or not accessible'));
	});

	it('5. no credits -> 403', async () => {
		emulator.account.credits = 0;
		const answer = await api.send({ phone: PHONE, text: 'Hi' });
		expect(answer.status).toBe(403);
		expect(answer.body).toEqual(failure('Insufficient credits, account balance too low'));
	});

	it('5. credits run out after the last one is spent', async () => {
		emulator.account.credits = 1;
		expect((await api.send({ phone: PHONE, text: 'a' })).status).toBe(200);
		expect((await api.send({ phone: PHONE, text: 'b' })).status).toBe(403);
		expect(emulator.account.credits).toBe(0);
	});

	it('6. expired subscription -> 403', async () => {
		emulator.account.subscriptionExpired = true;
		const answer = await api.send({ phone: PHONE, text: 'Hi' });
		expect(answer.status).toBe(403);
		expect(answer.body).toEqual(failure('Subscription expired'));
	});

	it('7. rate limit -> 429 with Retry-After (the fault switch)', async () => {
		emulator.setFaults({ rateLimit: { limit: 1, windowMs: 60_000 } });
		expect((await api.send({ phone: PHONE, text: 'a' })).status).toBe(200);
		const answer = await api.send({ phone: PHONE, text: 'b' });
		expect(answer.status).toBe(429);
		expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
		expect(answer.body).toEqual(failure('Rate limit exceeded (messages per minute)'));
		expect(emulator.deliveries).toHaveLength(1);
	});

	it('8. unique number limit -> 403 for a new number, a known number still works', async () => {
		emulator.account.uniqueNumberLimit = 2;
		expect((await api.send({ phone: '+14155550001', text: 'a' })).status).toBe(200);
		expect((await api.send({ phone: '+14155550002', text: 'a' })).status).toBe(200);
		const answer = await api.send({ phone: '+14155550003', text: 'a' });
		expect(answer.status).toBe(403);
		expect(answer.body).toEqual(failure('Unique number limit reached'));
		expect((await api.send({ phone: '+14155550001', text: 'b' })).status).toBe(200);
	});

	it.each(['https://cdn.example.com/a.gif', 'https://cdn.example.com/a.webp', 'https://cdn.example.com/a.docx', 'https://cdn.example.com/a'])(
		'9. type not in part 2.8 (%s) -> 400',
		async (attachment) => {
			const answer = await api.send({ phone: PHONE, text: 'Hi', attachment });
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual(failure('File size or type not accepted'));
		},
	);

	it.each([
		['image.png', 5],
		['video.mp4', 16],
		['doc.pdf', 100],
		['sound.mp3', 16],
	])('9. %s: %i MB is accepted, one byte more is not', async (file, maxMb) => {
		const atMax = `https://cdn.example.com/max/${file}`;
		const over = `https://cdn.example.com/over/${file}`;
		emulator.setAttachment(atMax, { bytes: maxMb * MB });
		emulator.setAttachment(over, { bytes: maxMb * MB + 1 });
		expect((await api.send({ phone: PHONE, text: 'Hi', attachment: atMax })).status).toBe(200);
		const answer = await api.send({ phone: PHONE, text: 'Hi', attachment: over });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual(failure('File size or type not accepted'));
	});

	it('10. recipient not on the platform -> 400 (default +15550000000, switchable)', async () => {
		const answer = await api.send({ phone: '+15550000000', text: 'Hi' });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual(failure('Recipient has no active account on the messaging platform'));
		emulator.account.notOnPlatform.add(PHONE);
		expect((await api.send({ phone: PHONE, text: 'Hi' })).status).toBe(400);
		emulator.resetAccount();
		expect((await api.send({ phone: PHONE, text: 'Hi' })).status).toBe(200);
	});

	it('rejections deliver nothing and charge nothing', async () => {
		const credits = emulator.account.credits;
		await api.send({ phone: 'bad', text: 'Hi' });
		await api.send({ phone: '+15550000000', text: 'Hi' });
		expect(emulator.deliveries).toHaveLength(0);
		expect(emulator.account.credits).toBe(credits);
		expect(emulator.requests.map((r) => r.outcome)).toEqual(['rejected', 'rejected']);
	});
});
