import type { INodeParameters } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import type { Emulator } from '../emulator';
import { n8nWorkflow } from '../harness';
import { APPOINTMENT_REMINDER, mapperValue, runOn, sendTemplate, templateById, useEmulator } from './setup';

const emulator = useEmulator();

const send = (extra: Record<string, unknown> = {}) => ({
	resource: 'message',
	operation: 'send',
	phone: '={{ $json.phone }}',
	text: '={{ $json.text }}',
	...extra,
});

describe('direct send: the service reasons of spec part 7 become NodeApiErrors with a hint', () => {
	const cases: Array<{
		name: string;
		arrange: (emu: Emulator) => void;
		item?: Record<string, unknown>;
		parameters?: Record<string, unknown>;
		reason: RegExp;
		hint: RegExp;
		status: string;
	}> = [
		{ name: 'message limit for the number', arrange: (emu) => emu.setAccount({ perNumberLimit: 0 }), reason: /Message limit for this number reached/, hint: /limit for one number/, status: '400' },
		{
			name: 'attachment not public',
			arrange: () => {},
			parameters: { additionalFields: { attachment: 'https://files.invalid/a.pdf' } },
			reason: /not public or not accessible/,
			hint: /public and reachable/,
			status: '400',
		},
		{ name: 'insufficient credits', arrange: (emu) => emu.setAccount({ credits: 0 }), reason: /Insufficient credits/, hint: /Top up credits/, status: '403' },
		{ name: 'subscription expired', arrange: (emu) => emu.setAccount({ subscriptionExpired: true }), reason: /Subscription expired/, hint: /Renew it/, status: '403' },
		{ name: 'unique number limit', arrange: (emu) => emu.setAccount({ uniqueNumberLimit: 0 }), reason: /Unique number limit reached/, hint: /distinct recipients/, status: '403' },
		{
			name: 'file too large',
			arrange: (emu) => emu.setAttachment('https://files.example.com/big.png', { bytes: 6 * 1024 * 1024 }),
			parameters: { additionalFields: { attachment: 'https://files.example.com/big.png' } },
			reason: /File size or type not accepted/,
			hint: /too large or of a type/,
			status: '400',
		},
		{ name: 'recipient not on the platform', arrange: () => {}, item: { phone: '+15550000000' }, reason: /no active account/, hint: /another channel/, status: '400' },
		{
			name: 'rate limit beyond Max Wait',
			arrange: (emu) => emu.setFaults({ rateLimit: { limit: 0, windowMs: 60_000, retryAfterSeconds: 120 } }),
			parameters: { options: { maxWaitSeconds: 5 } },
			reason: /Rate limited: the service asked to wait 120 s, more than Max Wait \(5 s\)/,
			hint: /Max Wait to 3600/,
			status: '429',
		},
	];

	it.each(cases)('$name', async ({ arrange, item, parameters, reason, hint, status }) => {
		arrange(emulator);
		const run = await runOn(emulator, { parameters: send(parameters), items: [{ phone: '+14155550123', text: 'hello', ...item }] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		const error = run.error as InstanceType<typeof n8nWorkflow.NodeApiError>;
		expect(error.message).toMatch(reason);
		expect(error.message).not.toMatch(/Message sending failed/);
		expect(error.description).toMatch(hint);
		expect(error.httpCode).toBe(status);
		expect(error.context.itemIndex).toBe(0);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it.each(['wrong-token-123', 'bad'])('a wrong token (%s: the spec sets no length, a short one goes too)', async (accessToken) => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, accessToken };
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: '+14155550123', text: 'x' }], credentialData });
		expect(run.error?.message).toMatch(/Authentication failed: invalid API token/);
		expect((run.error as { description?: string }).description).toMatch(/Create a new one/);
		expect((run.error as { httpCode?: string }).httpCode).toBe('401');
		// Sent once: n8n's own helper would have sent it a second time after the 401.
		expect(emulator.requests).toHaveLength(1);
	});
});

describe('the other error bodies', () => {
	it('template send {error: {code, message}}', async () => {
		// A refusal only the service can make.
		emulator.setAccount({ credits: 0 });
		const run = await runOn(emulator, {
			parameters: sendTemplate(templateById(APPOINTMENT_REMINDER), mapperValue({ body1: '10%', body2: 'x' })),
			items: [{}],
		});
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(run.error?.message).toMatch(/^Insufficient credits.*\(code INSUFFICIENT_CREDITS\) \[item 0\]$/);
		expect((run.error as { httpCode?: string }).httpCode).toBe('402');
		expect((run.error as { description?: string }).description).toMatch(/Top up credits/);
		expect(emulator.requests.filter((request) => request.api === 'templateSend').map((request) => request.status)).toEqual([402]);
	});

	it('dashboard {success: false, message, details}', async () => {
		emulator.setAccount({ credits: 0 });
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'x' },
			items: [{}],
		});
		const error = run.error as InstanceType<typeof n8nWorkflow.NodeApiError>;
		expect(error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(error.httpCode).toBe('402');
		expect(error.description).toMatch(/Top up credits/);
		// The title and the details of the dashboard's body, together.
		expect(error.message).toMatch(/^[^:]+: .+/);
	});

	it('alternative send with a wrong key', async () => {
		const credentialData = { ...emulator.credentials.messagingXApiKeyApi, apiKey: 'wrong-key-0000' };
		const run = await runOn(emulator, {
			parameters: { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'x' },
			items: [{}],
			credentialData,
		});
		expect((run.error as { httpCode?: string }).httpCode).toBe('401');
	});

	it.each([
		['send', send(), 'Internal delivery error'],
		[
			'sendTemplate',
			{
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '+14155550123',
				template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
				variables: mapperValue({ body1: 'a', body2: 'b' }),
			},
			'',
		],
		['sendDashboard', { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'x' }, 'Delivery failed'],
	])('a 200 that reports failure (%s) is a failure', async (operation, parameters, reason) => {
		// Send Template reads the account's templates first; the fault is for the send.
		emulator.setFaults({ script: operation === 'sendTemplate' ? ['ok', 'success-false'] : ['success-false'] });
		const run = await runOn(emulator, { parameters: parameters as INodeParameters, items: [{ phone: '+14155550123', text: 'x' }] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(run.error?.message).toContain(reason);
		expect((run.error as { httpCode?: string }).httpCode).toBe('200');
		expect(emulator.requests.filter((request) => request.api !== 'templates').map((request) => request.outcome)).toEqual(['success-false']);
		expect(emulator.deliveries).toHaveLength(0);
	});
});

describe('bad input fails before any request, naming the item and the field', () => {
	it.each([
		[{ phone: '4155550123', text: 'x' }, /Phone \(phone\): "4155550123" is not a phone number in E.164 format \[item 0\]/],
		[{ phone: '+14155550123', text: '   ' }, /Text \(text\): must not be empty \[item 0\]/],
		// NaN / Infinity: what a broken expression yields, never sent as "NaN".
		[{ phone: '+14155550123', text: Number.NaN }, /Text \(text\): must be text or a finite number.*\[item 0\]/],
		[{ phone: '+14155550123', text: Number.POSITIVE_INFINITY }, /Text \(text\): must be text or a finite number.*\[item 0\]/],
		[{ phone: '+14155550123', text: 'x', url: 'ftp://files.example.com/a.pdf' }, /Attachment URL \(additionalFields\.attachment\): .* must start with https:\/\/ or http:\/\//],
		// Invisible only (pasted from a rich-text field): it would arrive as a blank message.
		[{ phone: '+14155550123', text: '\u200b\u200b' }, /^Text \(text\): must not be empty \[item 0\]$/],
		[{ phone: '+14155550123', text: '\u200d \u2060\ufeff' }, /^Text \(text\): must not be empty \[item 0\]$/],
		// A column of numbers cannot hold the leading +: said so.
		[{ phone: 4915112345678, text: 'x' }, /^Phone \(phone\): "4915112345678" is not a phone number in E\.164 format; it came as a number, which cannot hold the leading \+ \[item 0\]$/],
	])('%j', async (item, message) => {
		const run = await runOn(emulator, { parameters: send({ additionalFields: { attachment: '={{ $json.url }}' } }), items: [item] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(message);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(0);
		expect(emulator.requests).toHaveLength(0);
	});

	it('an expression that fails names the field and the item (a node renamed since the expression was written)', async () => {
		const run = await runOn(emulator, {
			parameters: send({ text: "={{ $json.first ? 'Hello' : $('Renamed Node').item.json.text }}" }),
			items: [
				{ phone: '+14155550123', first: true },
				{ phone: '+14155550124', first: false },
			],
		});
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toBe("Text (text): its expression failed: Referenced node doesn't exist [item 1]");
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(1);
		expect(emulator.requests).toHaveLength(0);
	});

	it.each([
		[{ maxPerSecond: '={{ "two" }}' }, /^Max Requests Per Second \(options\.maxPerSecond\): must be a number, 0 or more, not "two" \[item 0\]$/],
		[{ maxPerMinute: '={{ -2 }}' }, /^Max Requests Per Minute \(options\.maxPerMinute\): must be a number, 0 or more, not -2 \[item 0\]$/],
		[{ maxConcurrent: '={{ "Auto" }}' }, /^Max Concurrent Requests \(options\.maxConcurrent\): must be a number, 0 or more, not "Auto" \[item 0\]$/],
		[{ timeoutSeconds: '={{ 1 / 0 }}' }, /^Timeout \(Seconds\) \(options\.timeoutSeconds\): must be a number, 0 or more, not Infinity \[item 0\]$/],
		[{ retrySendsOnServerError: '={{ "yes" }}' }, /^Retry Sends After Server Errors \(options\.retrySendsOnServerError\): must be true or false, not "yes" \[item 0\]$/],
	])('option %j that is no number (or switch): an error naming it, before any request (outside review: ignored in silence)', async (options, message) => {
		const run = await runOn(emulator, { parameters: send({ options }), items: [{ phone: '+14155550123', text: 'x' }] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(message);
		expect(emulator.requests).toHaveLength(0);
	});

	it('options given as numeric text (an expression, $env) hold as the numbers they spell', async () => {
		const items = Array.from({ length: 4 }, (_, index) => ({ phone: `+1415555010${index}`, text: `m${index}` }));
		const run = await runOn(emulator, { parameters: send({ options: { maxConcurrent: '={{ "1" }}', maxPerSecond: '={{ " 2 " }}', shareLimitsAcrossExecutions: '={{ "false" }}' } }), items });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(4);
		// 2 a second, one at a time: the 4th starts at least a second after the 2nd (a window) and none overlap.
		const arrivals = emulator.requests.map((request) => request.at);
		expect(arrivals[3] - arrivals[1]).toBeGreaterThanOrEqual(900);
		expect(emulator.deliveries).toHaveLength(4);
	});

	it('a phone number given as a number says how to write it as text', async () => {
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: 4915112345678, text: 'x' }] });
		expect((run.error as { description?: string }).description).toMatch(/\{\{ "\+" \+ \$json\.phone \}\}/);
	});

	it("an attachment's file type is the service's to judge: a .gif goes, and its refusal (spec 7, condition 9) comes back in its words", async () => {
		const run = await runOn(emulator, {
			parameters: send({ additionalFields: { attachment: '={{ $json.url }}' } }),
			items: [{ phone: '+14155550123', text: 'x', url: 'https://files.example.com/a.gif' }],
		});
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(run.error?.message).toContain('File size or type not accepted');
		expect(emulator.requests.map((request) => (request.body as { attachment?: string }).attachment)).toEqual(['https://files.example.com/a.gif']);
		expect(emulator.deliveries).toHaveLength(0);
	});

	it('one bad item stops the batch before any message of it is sent', async () => {
		const items = [
			{ phone: '+14155550101', text: 'a' },
			{ phone: '+14155550102', text: 'b' },
			{ phone: 'call me', text: 'c' },
			{ phone: '+14155550104', text: 'd' },
		];
		const run = await runOn(emulator, { parameters: send({ options: { maxConcurrent: 4 } }), items: items });
		expect(run.error?.message).toMatch(/\[item 2\]/);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(2);
		expect(emulator.requests).toHaveLength(0);
	});

	it('Custom API Call (which n8n adds to Resource and Operation) points to the HTTP Request node', async () => {
		for (const parameters of [send({ operation: '__CUSTOM_API_CALL__' }), { resource: '__CUSTOM_API_CALL__' }]) {
			const run = await runOn(emulator, { parameters: parameters, items: [{ phone: '+14155550123', text: 'x' }] });
			expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
			expect(run.error?.message).toBe("Custom API Call is made with n8n's HTTP Request node");
			expect((run.error as { description?: string }).description).toMatch(/Predefined Credential Type/);
		}
		expect(emulator.requests).toHaveLength(0);
	});

	it('a base URL the operation needs but the credential lacks', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, sendBaseUrl: '' };
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: '+14155550123', text: 'x' }], credentialData });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(/Send Base URL \(sendBaseUrl\) is empty/);
		expect(emulator.requests).toHaveLength(0);
	});

	it('a plain http base URL that is not loopback', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, sendBaseUrl: 'http://api.example.com/api:x' };
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: '+14155550123', text: 'x' }], credentialData });
		expect(run.error?.message).toMatch(/Send Base URL \(sendBaseUrl\) "http:\/\/api\.example\.com\/api:x" uses plain http:\/\/; the service requires https:\/\//);
	});

	it('a base URL with a user name and password: refused before any request, the password not quoted (n8n would sign in with them, Basic, in place of the token)', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi };
		credentialData.sendBaseUrl = credentialData.sendBaseUrl.replace('http://', 'http://user:pa55word@');
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: '+14155550123', text: 'x' }], credentialData });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(/Send Base URL \(sendBaseUrl\) ".*" must not hold a user name or password/);
		expect(JSON.stringify({ message: run.error?.message, description: (run.error as { description?: string }).description })).not.toContain('pa55word');
		expect(emulator.requests).toHaveLength(0);
	});

	it('a base URL pasted with a trailing slash works', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi };
		credentialData.sendBaseUrl += '/';
		const run = await runOn(emulator, { parameters: send(), items: [{ phone: '+14155550123', text: 'x' }], credentialData });
		expect(run.error).toBeUndefined();
		expect(emulator.requests[0].path).toBe('/api:snd7f3a/send');
	});
});

describe('an empty field the node needs is its own error, naming the item and the field, before any request', () => {
	const template = (value: string) => ({ __rl: true, mode: 'id', value });
	const cases: Array<[string, string, 'messaging' | 'sandboxPlants', Record<string, unknown>, RegExp]> = [
		['send', 'phone', 'messaging', send(), /^Phone \(phone\): must not be empty \[item 0\]$/],
		['send', 'text', 'messaging', send(), /^Text \(text\): must not be empty \[item 0\]$/],
		['sendDashboard', 'to', 'messaging', { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'x' }, /^To \(to\): must not be empty \[item 0\]$/],
		['sendDashboard', 'text', 'messaging', { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'x' }, /^Text \(text\): must not be empty \[item 0\]$/],
		['sendAlternative', 'to', 'messaging', { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'x' }, /^To \(to\): must not be empty \[item 0\]$/],
		['sendAlternative', 'message', 'messaging', { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'x' }, /^Message \(message\): must not be empty \[item 0\]$/],
		[
			'sendTemplate',
			'phoneNumber',
			'messaging',
			{ resource: 'message', operation: 'sendTemplate', phoneNumber: '+14155550123', template: template(APPOINTMENT_REMINDER), variables: mapperValue({ body1: 'a', body2: 'b' }) },
			/^Phone Number \(phoneNumber\): must not be empty \[item 0\]$/,
		],
		[
			'sendTemplate',
			'template',
			'messaging',
			{ resource: 'message', operation: 'sendTemplate', phoneNumber: '+14155550123', template: template(APPOINTMENT_REMINDER), variables: mapperValue({ body1: 'a', body2: 'b' }) },
			/^Template \(template\): choose a template from the list or enter its ID \[item 0\]$/,
		],
		['plant create', 'name', 'sandboxPlants', { operation: 'create', name: 'Fern', plantId: 1 }, /^Name \(name\): must not be empty \[item 0\]$/],
	];

	const emptied = (parameters: Record<string, unknown>, field: string, empty: string) =>
		({ ...parameters, [field]: field === 'template' ? template(empty) : empty }) as INodeParameters;

	it.each(cases)('%s: %s left empty', async (_operation, field, type, parameters, message) => {
		// Marked required, n8n refused to run with its own "workflow has issues", naming neither.
		const run = await runOn(emulator, { type, parameters: emptied(parameters, field, ''), items: [{ phone: '+14155550123', text: 'x' }] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(message);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(0);
		expect(emulator.requests).toHaveLength(0);
	});

	it.each(cases)('%s: %s empty from an expression', async (_operation, field, type, parameters, message) => {
		const run = await runOn(emulator, { type, parameters: emptied(parameters, field, '={{ $json.nothing }}'), items: [{ phone: '+14155550123', text: 'x', nothing: '' }] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(message);
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(0);
		expect(emulator.requests).toHaveLength(0);
	});
});

describe('Continue On Fail', () => {
	const items = [
		{ phone: '+14155550101', text: 'a' },
		{ phone: '+15550000000', text: 'not on the platform' },
		{ phone: 'nonsense', text: 'bad input' },
		{ phone: '+14155550104', text: 'd' },
	];

	it('turns each failure into an error item paired to its input, with its hint and HTTP code, and goes on', async () => {
		const run = await runOn(emulator, { parameters: send(), items: items, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		// Only error, message and details: the keys n8n accepts for routing an item to the error output.
		expect(run.items[1].json).toEqual({
			error: 'Recipient has no active account on the messaging platform',
			message: expect.stringMatching(/no active account on the messaging platform. Use another channel/),
		});
		expect(run.items[2].json).toEqual({
			error: expect.stringMatching(/Phone \(phone\)/),
			message: expect.stringMatching(/international format/),
		});
		expect(run.items[0].json.success).toBe(true);
		expect(run.items[3].json.success).toBe(true);
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual(['+14155550101', '+14155550104']);
	});

	it('with "Continue (using error output)" the failed items go to the error output', async () => {
		const run = await runOn(emulator, { parameters: send(), items: items, onError: 'continueErrorOutput' });
		expect(run.error).toBeUndefined();
		expect(run.outputs[0].map((item) => item.json.to)).toEqual(['+14155550101', '+14155550104']);
		expect(run.outputs[1].map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
	});

	it('without it, the run fails with the service reason of the failing item', async () => {
		const run = await runOn(emulator, { parameters: send({ options: { maxConcurrent: 1 } }), items: [items[0], items[1], items[3]] });
		// The service's words, and the item the run stopped at.
		expect(run.error?.message).toBe('Recipient has no active account on the messaging platform [item 1]');
		expect((run.error as { context: { itemIndex?: number } }).context.itemIndex).toBe(1);
		// Item 2 came after the failure and was never sent.
		expect(emulator.deliveries.map((delivery) => delivery.recipient)).toEqual(['+14155550101']);
	});
});
