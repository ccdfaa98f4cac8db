/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, a test token (README: Lint) */
/**
 * How the node judges what the service says, end to end: the real engine (test/harness) against
 * plain `node:http` servers on 127.0.0.1 that answer the way each test says. Each case counts the
 * requests the server saw and reads the item's error: a failure the service reports carries its
 * words (the contract's "Outcomes every operation shares"), and stops the run only when no later
 * item can get past it.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { mapperValue } from '../nodes/setup';
import { credentialsAt, json, useServers } from './servers';

const TOKEN = 'Verdict-Token-0123456789';
const TEMPLATE_ID = '11111111-1111-4111-8111-111111111111';
const TEMPLATE_RECORD = {
	id: 1,
	user_id: '99999999-9999-4999-8999-999999999999',
	name: 'reminder',
	category: 'UTILITY',
	type: 'text',
	language: 'en',
	status: 'APPROVED',
	variable_counts: 1,
	template_formate: 'Hello [b:1]',
	template_id: TEMPLATE_ID,
};

const serve = useServers();

const credentialsFor = (url: string) => credentialsAt(url, TOKEN);

const OPERATIONS = {
	send: { parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'hello' } },
	sendTemplate: {
		parameters: {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '={{ $json.phone }}',
			template: { __rl: true, mode: 'id', value: TEMPLATE_ID },
			variables: mapperValue({ body1: 'x' }),
		},
	},
	sendDashboard: { parameters: { resource: 'message', operation: 'sendDashboard', to: '={{ $json.phone }}', text: 'hello' } },
	sendAlternative: { parameters: { resource: 'message', operation: 'sendAlternative', to: '={{ $json.phone }}', message: 'hello' } },
	templateGetAll: { parameters: { resource: 'template', operation: 'getAll', returnAll: true } },
	plantCreate: { type: 'sandboxPlants', parameters: { resource: 'plant', operation: 'create', name: 'Monstera', plantId: 7 } },
	plantDelete: { type: 'sandboxPlants', parameters: { resource: 'plant', operation: 'delete', plantId: 7 } },
} as const;

type Operation = keyof typeof OPERATIONS;

async function run(url: string, operation: Operation, { items = 1, options = {}, continueOnFail = true }: { items?: number; options?: IDataObject; continueOnFail?: boolean } = {}) {
	const spec: { type?: 'sandboxPlants'; parameters: IDataObject } = OPERATIONS[operation];
	return await runOn(
		{ credentials: credentialsFor(url) },
		{
			type: spec.type,
			credentialType: spec.type === 'sandboxPlants' ? 'messagingBearerApi' : undefined,
			parameters: { ...spec.parameters, options },
			items: Array.from({ length: items }, (_, index): IDataObject => ({ phone: `+1415555${String(100 + index).padStart(4, '0')}` })),
			continueOnFail,
		},
	);
}

/** Answers every request of `operation` with `body`; Send Template reads the account's templates first (to check the variables), and gets them. */
function answering(operation: Operation, status: number, body: unknown) {
	return serve((req, res) => {
		if (operation === 'sendTemplate' && req.method === 'GET') return json(res, 200, [TEMPLATE_RECORD]);
		json(res, status, body);
	});
}

const errorOf = (item: { json: IDataObject }) => String(item.json.error ?? '');
/** The requests of the operation itself: not Send Template's read of the templates. */
const own = (operation: Operation, seen: Array<{ method: string }>) => seen.filter((request) => operation !== 'sendTemplate' || request.method !== 'GET');

describe('a 2xx body that says it failed is a failure with the service\'s words, never "sent" or "deleted"', () => {
	it.each([
		['send', { success: false, message: 'Insufficient credits' }],
		['send', { success: 'false', message: 'Insufficient credits' }],
		['send', { error: 1, message: 'Insufficient credits' }],
		['send', { error: '1', message: 'Insufficient credits' }],
		['send', { error: true, message: 'Insufficient credits' }],
		['send', { message: 'Accepted', error: { code: 'NO_CREDITS', message: 'Insufficient credits' } }],
		['send', { message: 'Message sending failed. Reason: Insufficient credits' }],
		['send', { message: 'Message sending failed: Insufficient credits' }],
		['sendAlternative', { message: 'Message sending failed | Reason: Insufficient credits' }],
		['sendAlternative', { error: 1, message: 'Insufficient credits' }],
		// Its answer is not documented: a result text alone is weighed as the direct send's (outside review: reported sent).
		['sendAlternative', { message: 'Insufficient credits' }],
		['sendAlternative', { messages: [{ id: 'a1', status: 'failed', error: 'Insufficient credits' }] }],
		['sendAlternative', { data: { id: 'a1', status: 'undelivered', error: { message: 'Insufficient credits' } } }],
		['sendTemplate', { error: 1, message: 'Insufficient credits' }],
		['sendDashboard', { error: 1, message: 'Insufficient credits' }],
		['templateGetAll', { error: 1, message: 'Insufficient credits' }],
		['plantDelete', { success: false, message: 'Insufficient credits' }],
		['plantDelete', { error: { code: 'NOT_FOUND', message: 'Insufficient credits' } }],
		['plantDelete', { error: '404', message: 'Insufficient credits' }],
		['plantDelete', { error: true, message: 'Insufficient credits' }],
		['plantDelete', { message: 'Message sending failed | Reason: Insufficient credits' }],
		['plantDelete', { status: 'error', message: 'Insufficient credits' }],
		['plantCreate', { success: false, name: 'Monstera', message: 'Insufficient credits' }],
	] as Array<[Operation, IDataObject]>)('%s answered 200 %j: fails with "Insufficient credits", one request', async (operation, body) => {
		const { url, seen } = await answering(operation, 200, body);
		const result = await run(url, operation);
		expect(own(operation, seen)).toHaveLength(1);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).not.toHaveProperty('success');
		expect(result.items[0].json).not.toHaveProperty('deleted');
		expect(errorOf(result.items[0])).toMatch(/^Insufficient credits/);
		// Read as what it is, not as an answer of another shape that may have been delivered.
		expect(errorOf(result.items[0])).not.toMatch(/Unexpected answer|may have been delivered/);
	});

	it.each([
		[{ messages: [{ id: 'a1', status: 'failed' }] }, 'The service answered status "failed"'],
		[{ details: { messages: [{ message_status: 'rejected' }] } }, 'The service answered status "rejected"'],
		[{ message: 'Unauthorized' }, /^Unauthorized/],
		[{ message: 'Message could not be delivered' }, /^Message could not be delivered/],
	] as Array<[IDataObject, string | RegExp]>)('alternative send answered 200 %j: a failure in its words, one request (outside review: reported sent)', async (body, said) => {
		const { url, seen } = await answering('sendAlternative', 200, body);
		const result = await run(url, 'sendAlternative');
		expect(own('sendAlternative', seen)).toHaveLength(1);
		expect(result.items[0].json).not.toHaveProperty('success');
		expect(errorOf(result.items[0])).toMatch(said);
	});

	it.each([{ message: '' }, { message: '   ' }, { messages: [] }])('alternative send answered 200 %j: no result, so it may have been delivered; not sent again (outside review: reported sent)', async (body) => {
		const { url, seen } = await answering('sendAlternative', 200, body);
		const result = await run(url, 'sendAlternative');
		expect(own('sendAlternative', seen)).toHaveLength(1);
		expect(result.items[0].json).not.toHaveProperty('success');
		expect(errorOf(result.items[0])).toMatch(/may have been delivered/);
	});

	it('sandbox delete answered 200 {"status":"error"} without words: a failure naming the status', async () => {
		const { url } = await answering('plantDelete', 200, { status: 'error' });
		const result = await run(url, 'plantDelete');
		expect(errorOf(result.items[0])).toBe('The service answered status "error"');
	});

	it.each([
		['send', { message: 'Message sent successfully', error: 0 }],
		['send', { message: 'Message sent successfully', error: '0' }],
		['send', { message: 'Message sent successfully', error: null }],
		['send', { message: 'Message sent successfully', error: false }],
		['send', { message: 'Message sent successfully | Reason: scheduled' }],
		['sendAlternative', { message: 'Message sent. Credits left: 12', error: '' }],
		['plantDelete', { message: 'Deleted', error: 0 }],
		// An error object that says nothing, or a word for "none" (each failed, and Retry On Fail sent it again).
		['send', { message: 'Message sent successfully', error: {} }],
		['send', { message: 'Message sent successfully', error: { code: null, message: null } }],
		['send', { message: 'Message sent successfully', error: 'none' }],
		['send', { message: 'Message sent successfully', error: { code: '0', message: '' } }],
		['sendDashboard', { success: true, message: 'Message queued', details: { messages: [{ id: 'm1', message_status: 'sent' }] }, error: {} }],
		// A dashboard text that mentions credits or none failed, beside statuses that do not say failed.
		['sendDashboard', { success: true, message: 'Message sent. Credits remaining: 12', details: { messages: [{ id: 'm1', message_status: 'queued' }] } }],
		['sendDashboard', { success: true, message: '1 message accepted, 0 failed', details: { messages: [{ id: 'm1', message_status: 'pending' }] } }],
		['sendTemplate', { success: true, messaging_response_info: { messages: [{ id: 'w1', message_status: 'held_for_quality_assessment' }] } }],
	] as Array<[Operation, IDataObject]>)('%s answered 200 %j: still a success', async (operation, body) => {
		const { url, seen } = await answering(operation, 200, body);
		const result = await run(url, operation);
		expect(own(operation, seen)).toHaveLength(1);
		expect(result.items[0].json.error).toBeUndefined();
	});
});

describe('a 2xx that says success: true and has an error beside it says both: the message may have gone', () => {
	it.each([
		['sendTemplate', { success: true, messaging_response_info: { messages: [{ id: 'm1', message_status: 'sent' }] }, error: { code: 'E1', message: 'Insufficient credits' } }],
		['sendDashboard', { success: true, message: 'Message queued', details: { messages: [] }, error: { code: 'E1', message: 'Insufficient credits' } }],
		['send', { success: true, message: 'Message sent successfully', error: 1 }],
		// The message's own status says it failed (outside review: output as success: true, status: "failed").
		['sendDashboard', { success: true, message: 'Message queued', details: { messages: [{ id: 'm1', message_status: 'failed' }] } }],
		['sendTemplate', { success: true, messaging_response_info: { contacts: [], messages: [{ id: 'w1', message_status: 'rejected' }], messaging_product: 'whatsapp' } }],
		['sendTemplate', { success: true, messaging_response_info: { messages: [{ id: 'w1', message_status: 'Undelivered' }] } }],
		// The dashboard's text names a failure beside success: true (outside review: output as sent).
		['sendDashboard', { success: true, message: 'Insufficient credits', details: { messages: [{ id: 'm1', message_status: 'sent' }] } }],
	] as Array<[Operation, IDataObject]>)('%s answered 200 %j: fails once as may have been delivered; Retry On Fail does not send it again', async (operation, body) => {
		const { url, seen } = await answering(operation, 200, body);
		const result = await run(url, operation);
		expect(own(operation, seen)).toHaveLength(1);
		expect(errorOf(result.items[0])).toMatch(/may have been delivered/);
		const { runNode } = await import('../harness');
		const retried = await runNode({
			node: { type: 'messaging', parameters: { ...OPERATIONS[operation].parameters, options: {} }, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			items: [{ phone: '+14155550100' }],
			credentials: credentialsFor(url),
		});
		expect(retried.error?.message).toMatch(/may have been delivered/);
		expect(own(operation, seen)).toHaveLength(2);
	});
});

describe('a 401 or 403 that is not JSON (a gateway page, an empty body) is the key refused: the run stops as for the JSON one', () => {
	it.each([
		[401, '', 'application/json'],
		[401, '<html><body>401 Authorization Required</body></html>', 'text/html'],
		[403, '<html><body>403 Forbidden</body></html>', 'text/html'],
	] as const)('send, 3 items, Continue On Fail, HTTP %i %j: one request; each item names the host, the status and the key', async (status, body, contentType) => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(status, { 'content-type': contentType });
			res.end(body);
		});
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(1);
		const host = new URL(url).host;
		for (const item of result.items) {
			expect(errorOf(item)).toContain(`${host} refused the credential (HTTP ${status}`);
			expect(String(item.json.message)).toMatch(/The token or key was refused/);
		}
		// Not the service's own form: the page may be a firewall's that blocked n8n (outside review).
		expect(String(result.items[0].json.message)).toMatch(/if the key is right, a firewall, CDN or proxy in front of the service may have blocked the request/);
		expect(String(result.items[1].json.message)).toMatch(/Not sent: an earlier item/);
	});

	it('the same as the JSON 401: one request, the others halted', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 401, { message: 'Message sending failed | Reason: Authentication failed' }));
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(1);
		expect(result.items.map(errorOf)).toEqual(['Authentication failed', 'Authentication failed', 'Authentication failed']);
	});

	it('without Continue On Fail the run fails with it, after one request', async () => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(401, { 'content-type': 'text/html' });
			res.end('<html><body>401 Authorization Required</body></html>');
		});
		const result = await run(url, 'sendDashboard', { items: 3, options: { maxConcurrent: 1 }, continueOnFail: false });
		expect(seen).toHaveLength(1);
		expect(result.error?.message).toMatch(/refused the credential \(HTTP 401, text\/html instead of JSON\)/);
		expect((result.error as { httpCode?: string }).httpCode).toBe('401');
	});

	it('a 400 HTML page is still an unexpected answer, not the key refused', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(400, { 'content-type': 'text/html' });
			res.end('<html><body>400 Bad Request</body></html>');
		});
		const result = await run(url, 'send');
		expect(errorOf(result.items[0])).toMatch(/^Unexpected answer from .* \(HTTP 400, text\/html instead of JSON\)/);
	});
});

describe('spec part 7 conditions are judged by their words before their status', () => {
	it('400 "Message limit for this number reached (50 per hour)": that item fails after one request, not retried as the account\'s rate', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 400, { message: 'Message sending failed | Reason: Message limit for this number reached (50 per hour)' }));
		const result = await run(url, 'send', { options: { maxWaitSeconds: 2 } });
		expect(seen).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Message limit for this number reached (50 per hour)');
		expect(String(result.items[0].json.message)).toMatch(/limit for one number/);
		expect(result.elapsedMs).toBeLessThan(1_500);
	});

	it.each([undefined, '1'])('429 "Message limit for this number reached" (Retry-After %s): only that item fails, once; the others are sent', async (retryAfter) => {
		const limited = '+14155550100';
		const { url, seen } = await serve((_req, res, index) => {
			const phone = (JSON.parse(seen[index].body) as { phone: string }).phone;
			if (phone !== limited) return json(res, 200, { message: 'Message sent successfully' });
			res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) });
			res.end(JSON.stringify({ message: 'Message sending failed | Reason: Message limit for this number reached' }));
		});
		const result = await run(url, 'send', { items: 4, options: { maxWaitSeconds: 3 } });
		expect(result.items.map((item) => item.json.success ?? errorOf(item))).toEqual(['Message limit for this number reached', true, true, true]);
		expect(seen.filter((request) => request.body.includes(limited))).toHaveLength(1);
		expect(seen).toHaveLength(4);
	});

	it('429 "Insufficient credits": the credits failure, the run halted after one request', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 429, { message: 'Message sending failed | Reason: Insufficient credits' }));
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1, maxWaitSeconds: 2 } });
		expect(seen).toHaveLength(1);
		for (const item of result.items) {
			expect(errorOf(item)).toBe('Insufficient credits');
			expect(String(item.json.message)).toMatch(/Top up credits/);
		}
	});

	it('402 whose words name nothing ("Payment required"): the credits failure, the run halted after one request', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 402, { message: 'Payment required' }));
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Payment required');
		for (const item of result.items) expect(String(item.json.message)).toMatch(/Top up credits/);
	});

	it('429 whose words name nothing else stays a rate refusal: the account pauses and the item goes again', async () => {
		const { url, seen } = await serve((_req, res, index) => {
			if (index > 0) return json(res, 200, { message: 'Message sent successfully' });
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
			res.end(JSON.stringify({ message: 'Message sending failed | Reason: Internal delivery error' }));
		});
		const result = await run(url, 'send', { options: { maxWaitSeconds: 5 } });
		expect(result.items[0].json.success).toBe(true);
		expect(seen).toHaveLength(2);
	});

	it('429 that is not JSON (a proxy\'s page) stays a rate refusal: the item goes again', async () => {
		const { url, seen } = await serve((_req, res, index) => {
			if (index > 0) return json(res, 200, { message: 'Message sent successfully' });
			res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '1' });
			res.end('<html><body>429 Too Many Requests: message limit for this number</body></html>');
		});
		const result = await run(url, 'send', { options: { maxWaitSeconds: 5 } });
		expect(result.items[0].json.success).toBe(true);
		expect(seen).toHaveLength(2);
	});

	it('403 "Recipient does not have an active account on the messaging platform": that item only, the run goes on', async () => {
		const { url, seen } = await serve((_req, res) =>
			json(res, 403, { message: 'Message sending failed | Reason: Recipient does not have an active account on the messaging platform' }),
		);
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(3);
		for (const item of result.items) {
			expect(errorOf(item)).toBe('Recipient does not have an active account on the messaging platform');
			expect(String(item.json.message)).toMatch(/Use another channel/);
		}
	});
});

describe('the service\'s error code names the condition when its words do not (spec 7: its values are not shown)', () => {
	const TEMPLATE_SENT = { success: true, messaging_response_info: { contacts: [{ input: '+14155550100', wa_id: '14155550100' }], messages: [{ id: 'wamid.1', message_status: 'accepted' }], messaging_product: 'whatsapp' } };

	it.each([
		['sendTemplate', { error: { code: 'RATE_LIMITED', message: 'Request refused' } }, TEMPLATE_SENT],
		['sendTemplate', { error: { code: 'tooManyRequests' } }, TEMPLATE_SENT],
		// As Amazon SES refuses for rate: a 400, code Throttling.
		['sendTemplate', { error: { code: 'Throttling', message: 'Maximum sending rate exceeded.' } }, TEMPLATE_SENT],
		['templateGetAll', { error: { code: 'rate-limit-exceeded', message: 'Request refused' } }, [TEMPLATE_RECORD]],
		['plantCreate', { error: 'RATE_LIMITED', message: 'Request refused' }, { name: 'Monstera', tag: '' }],
	] as Array<[Operation, IDataObject, unknown]>)('%s answered 400 %j, then its success: the rate limit, waited out and sent again, once', async (operation, refusal, success) => {
		const { url, seen } = await serve((req, res) => {
			if (operation === 'sendTemplate' && req.method === 'GET') return json(res, 200, [TEMPLATE_RECORD]);
			json(res, own(operation, seen).length === 1 ? 400 : 200, own(operation, seen).length === 1 ? refusal : success);
		});
		const result = await run(url, operation, { options: { maxWaitSeconds: 10 } });
		expect(own(operation, seen)).toHaveLength(2);
		expect(result.items).not.toHaveLength(0);
		for (const item of result.items) expect(item.json).not.toHaveProperty('error');
	});

	it.each([
		{ errors: [{ code: 'rate_limit_exceeded', message: 'Slow down' }] },
		{ type: 'about:blank', title: 'Too Many Requests', status: 400, detail: 'Rate limit exceeded' },
		{ error: 'too_many_requests' },
	])('send answered 400 %j (a gateway\'s error body), then its success: the rate limit, waited out and sent again, once', async (refusal) => {
		const { url, seen } = await serve((_req, res) =>
			seen.length === 1 ? json(res, 400, refusal) : json(res, 200, { message: 'Message sent successfully' }),
		);
		const result = await run(url, 'send', { options: { maxWaitSeconds: 10 } });
		expect(seen).toHaveLength(2);
		expect(result.items[0].json.success).toBe(true);
	});

	it('400 problem details "Insufficient credits" from a gateway: the credits failure in its words, the run halted after one request', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 400, { title: 'Payment Required', detail: 'Insufficient credits' }));
		const result = await run(url, 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Payment Required: Insufficient credits');
		for (const item of result.items) expect(String(item.json.message)).toMatch(/Top up credits/);
	});

	it('400 {"error":{"code":"INSUFFICIENT_CREDITS","message":"Request refused"}}: the credits failure, the run halted after one request', async () => {
		const { url, seen } = await answering('sendTemplate', 400, { error: { code: 'INSUFFICIENT_CREDITS', message: 'Request refused' } });
		const result = await run(url, 'sendTemplate', { items: 3, options: { maxConcurrent: 1, maxWaitSeconds: 2 } });
		expect(own('sendTemplate', seen)).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Request refused (code INSUFFICIENT_CREDITS)');
		for (const item of result.items) expect(String(item.json.message)).toMatch(/Top up credits/);
	});

	it('the words win over the code: 400 "Invalid phone number" with code RATE_LIMITED fails that item after one request', async () => {
		const { url, seen } = await answering('sendTemplate', 400, { error: { code: 'RATE_LIMITED', message: 'Invalid phone number' } });
		const result = await run(url, 'sendTemplate', { options: { maxWaitSeconds: 2 } });
		expect(own('sendTemplate', seen)).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Invalid phone number (code RATE_LIMITED)');
	});

	it('a code that names nothing stays a failure of that item: 400 code E_REFUSED, one request', async () => {
		const { url, seen } = await answering('sendTemplate', 400, { error: { code: 'E_REFUSED', message: 'Request refused' } });
		const result = await run(url, 'sendTemplate', { options: { maxWaitSeconds: 2 } });
		expect(own('sendTemplate', seen)).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe('Request refused (code E_REFUSED)');
	});
});

describe('a failure whose reason names none of spec part 7\'s conditions gets a hint from its status a user can act on (outside review: "The service answered HTTP 200." said nothing)', () => {
	it.each([
		['sendDashboard', 200, { success: false, message: 'Request refused', details: 'Template category not allowed' }, /^The service answered HTTP 200 but reported a failure: its reason above says what it did not do\./],
		['send', 400, { message: 'Message sending failed | Reason: Text contains a blocked word' }, /^The service answered HTTP 400: it did not take the request as sent\. Check the item's values against its reason above\./],
		['sendTemplate', 422, { error: { code: 'E_FIELD', message: 'Unprocessable variable' } }, /^The service answered HTTP 422: it did not take the request as sent\./],
		['plantCreate', 409, { error: 409, message: 'A plant with id 7 already exists' }, /^The service answered HTTP 409, a conflict with what it already holds \(an ID already in use, for example\): use another ID, or check what exists\./],
	] as const)('%s answered %i', async (operation, status, body, hint) => {
		const { url } = await answering(operation, status, body);
		const result = await run(url, operation, { continueOnFail: false, options: { maxRetries: 0 } });
		expect((result.error as { description?: string }).description).toMatch(hint);
	});

	it('a 200 that says both, sent and failed, is not said to have done nothing', async () => {
		const { url } = await answering('sendDashboard', 200, { success: true, message: 'Message queued', details: { messages: [{ id: 'm1', message_status: 'failed' }] } });
		const result = await run(url, 'sendDashboard', { continueOnFail: false, options: { maxRetries: 0 } });
		const error = result.error as { message: string; description?: string };
		expect(error.message).toMatch(/may have been delivered/);
		expect(error.description).toMatch(/^The service answered HTTP 200 and reported a failure in the same answer\./);
		expect(error.description).not.toMatch(/did not do/);
	});
});

describe('a 5xx on a send, which may have been delivered: nothing in its error says to try again', () => {
	it.each([
		{
			name: 'send answered 500 {"success":false,"message":"Internal server error"}: "Check before resending", and no "Try again later" beside it (outside review: an AI agent read it and sent the message twice)',
			options: {},
			requests: 1,
			message: /may have been delivered.*Check before resending/,
			description: /^The service answered HTTP 500, an error on its side\. /,
		},
		{
			name: 'with Retry Sends After Server Errors, a send answered 500 each time: tried again, "perhaps more than once ... Check before resending", and no "Try again later" beside it',
			options: { retrySendsOnServerError: true, maxRetries: 1 },
			requests: 2,
			message: /perhaps more than once.*Check before resending/,
			description: /^The service answered HTTP 500, an error on its side\./,
		},
	])('$name', async ({ options, requests, message, description }) => {
		const { url, seen } = await answering('send', 500, { success: false, message: 'Internal server error' });
		const result = await run(url, 'send', { continueOnFail: false, options });
		expect(seen).toHaveLength(requests);
		const error = result.error as { message: string; description?: string };
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(description);
		expect(`${error.message} ${error.description}`).not.toMatch(/try again/i);
	});

	it('a read answered 500 each time: tried again, then "Try again later" (nothing was done)', async () => {
		const { url, seen } = await answering('templateGetAll', 500, { success: false, message: 'Internal server error' });
		const result = await run(url, 'templateGetAll', { continueOnFail: false });
		expect(seen.length).toBeGreaterThan(1);
		expect((result.error as { description?: string }).description).toMatch(/^The service answered HTTP 500, an error on its side\. Try again later\./);
	});
});

describe('a rate limit that does not reopen within Max Wait: the error keeps the service\'s reason', () => {
	it('400 "Rate limit exceeded (messages per minute or per hour)" every time, 2 items, Max Wait 2 s: both items carry the reason', async () => {
		const { url } = await serve((_req, res) => json(res, 400, { message: 'Message sending failed | Reason: Rate limit exceeded (messages per minute or per hour)' }));
		const result = await run(url, 'send', { items: 2, options: { maxWaitSeconds: 2, maxConcurrent: 1 } });
		for (const item of result.items) {
			expect(errorOf(item)).toMatch(/^The account's rate limit was reached and did not reopen within Max Wait \(2 s\)\. /);
			expect(errorOf(item)).toContain('The service said: Rate limit exceeded (messages per minute or per hour)');
			// Waited 2 s: nothing says it is not a per-minute limit. An AI agent reads only the message:
			// it says this one was not sent (outside review).
			expect(errorOf(item)).not.toMatch(/per-hour/);
			expect(errorOf(item)).toMatch(/\. The message was not sent$/);
		}
	});

	it('429 asking for longer than Max Wait: the wait asked, then the reason', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' });
			res.end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Too many requests' } }));
		});
		const result = await run(url, 'sendTemplate', { options: { maxWaitSeconds: 2 } });
		expect(errorOf(result.items[0])).toBe('Rate limited: the service asked to wait 120 s, more than Max Wait (2 s). The service said: Too many requests. The message was not sent');
	});

	it('a Retry-After of 1e20 seconds reads as more than a year, not as 99999999999999980000 s (outside review)', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '99999999999999999999' });
			res.end('<html>429</html>');
		});
		const result = await run(url, 'send', { options: { maxWaitSeconds: 2 } });
		expect(errorOf(result.items[0])).toBe('Rate limited: the service asked to wait more than a year, more than Max Wait (2 s). The message was not sent');
	});

	it('a 429 page with no words of the service: no reason is made up', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '120' });
			res.end('<html>429</html>');
		});
		const result = await run(url, 'send', { options: { maxWaitSeconds: 2 } });
		expect(errorOf(result.items[0])).toBe('Rate limited: the service asked to wait 120 s, more than Max Wait (2 s). The message was not sent');
	});
});

describe('an answer without the service\'s words names who answered and how', () => {
	it.each([
		['send', 400, []],
		['templateGetAll', 404, []],
		['sendDashboard', 422, {}],
	] as Array<[Operation, number, unknown]>)('%s answered HTTP %i %j: the host and the status are in the message', async (operation, status, body) => {
		const { url } = await answering(operation, status, body);
		const result = await run(url, operation);
		expect(errorOf(result.items[0])).toMatch(/^The service (answered with an error and no explanation|reported an error) \(127\.0\.0\.1:\d+, HTTP \d{3}\)$/);
		expect(errorOf(result.items[0])).toContain(`(${new URL(url).host}, HTTP ${status})`);
	});

	it('a 200 {"error":1} with no message: the node\'s words, the host, the status and the code', async () => {
		const { url } = await answering('send', 200, { error: 1 });
		const result = await run(url, 'send');
		expect(errorOf(result.items[0])).toBe(`The service reported an error (${new URL(url).host}, HTTP 200) (code 1)`);
	});

	it('a 304 is named for what it is, not "a redirect to no address"', async () => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(304);
			res.end();
		});
		const result = await run(url, 'templateGetAll');
		expect(seen).toHaveLength(1);
		expect(errorOf(result.items[0])).toBe(`${new URL(url).host} answered HTTP 304 (Not Modified), which the node never asks for: the answer carries no result`);
		expect(errorOf(result.items[0])).not.toMatch(/redirect/);
	});
});

describe('Sandbox Plants Get Many: an array that holds anything but plants is no plant list', () => {
	it.each(['[{"name":"a","tag":"b"},null]', '[1,"x",null]', '[[1],[2]]', '["<html>login</html>"]'])(
		'200 %s: fails naming the host, as an answer of another shape (a null crashed n8n\'s engine; the rest gave no items or items that are not objects)',
		async (body) => {
			const { url } = await serve((_req, res) => json(res, 200, body));
			const result = await runOn(
				{ credentials: credentialsFor(url) },
				{ type: 'sandboxPlants', credentialType: 'messagingBearerApi', parameters: { resource: 'plant', operation: 'getAll', returnAll: true, options: {} }, items: [{}], continueOnFail: true },
			);
			expect(result.items).toHaveLength(1);
			expect(errorOf(result.items[0])).toBe(`Unexpected answer from ${new URL(url).host} (HTTP 200, JSON of another shape)`);
		},
	);
});

describe('an answer labelled JSON that is no JSON object or list says so (it read "application/json instead of JSON")', () => {
	it.each(['"Message sent"', '<html>ok</html>'])('send answered 200 %s as application/json: may have been delivered, in those words', async (body) => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
			res.end(body);
		});
		const result = await run(url, 'send');
		expect(seen).toHaveLength(1);
		expect(errorOf(result.items[0])).toMatch(/^Unexpected answer from .* \(HTTP 200, no JSON object or list, though labelled application\/json\)\. The message may have been delivered/);
	});
});

describe('an https base URL at a port that speaks plain http (outside review: "may have been delivered", though nothing was sent)', () => {
	it('send, 3 items, Continue On Fail: the handshake fails, nothing is sent, the run stops at the first item and says what to check', async () => {
		const { url, seen } = await serve((_req, res) => json(res, 200, { message: 'Message sent successfully' }));
		const result = await run(url.replace(/^http:/, 'https:'), 'send', { items: 3, options: { maxConcurrent: 1 } });
		expect(seen).toHaveLength(0);
		expect(result.items).toHaveLength(3);
		for (const item of result.items) expect(errorOf(item)).not.toMatch(/may have been delivered/);
		expect(errorOf(result.items[0])).toMatch(/^The secure connection to 127\.0\.0\.1:\d+ could not be set up \(wrong version number\); nothing was sent/);
		expect(String(result.items[0].json.message)).toMatch(/often a plain-http port/);
		expect(String(result.items[1].json.message)).toMatch(/Not sent: an earlier item/);
	});
});


describe("a gateway's page that says the request was not processed, or was too large, says so (outside review: an \"unexpected answer\" with the base-URL hint)", () => {
	const page = (status: number, name: string) => `<html>\r\n<head><title>${status} ${name}</title></head>\r\n<body>\r\n<center><h1>${status} ${name}</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n`;
	const html = (status: number, name: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
		res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' });
		res.end(page(status, name));
	};

	it.each([
		['send', 408, 'Request Time-out'],
		['send', 421, 'Misdirected Request'],
		['sendDashboard', 425, 'Too Early'],
		['templateGetAll', 408, 'Request Time-out'],
		['plantCreate', 421, 'Misdirected Request'],
	] as Array<[Operation, number, string]>)('%s answered %i once, then its success: sent on the second try (nothing was processed the first time)', async (operation, status, name) => {
		const { url, seen } = await serve((req, res, index) => {
			if (index === 0) return html(status, name)(req, res);
			if (req.method === 'GET') return json(res, 200, [TEMPLATE_RECORD]);
			if (operation === 'plantCreate') return json(res, 200, { name: 'Monstera', tag: null });
			if (operation === 'sendDashboard') return json(res, 200, { success: true, message: 'Message sent', details: { messages: [{ id: 'm1', message_status: 'sent' }] } });
			json(res, 200, { message: 'Message sent successfully' });
		});
		const result = await run(url, operation);
		expect(seen).toHaveLength(2);
		expect(result.items[0].json.error).toBeUndefined();
	});

	it('a send answered 408 every time: fails after Max Retries as not sent, never as may have been delivered', async () => {
		const { url, seen } = await serve(html(408, 'Request Time-out'));
		const result = await run(url, 'send', { options: { maxRetries: 1 } });
		expect(seen).toHaveLength(2);
		expect(errorOf(result.items[0])).toMatch(/answered HTTP 408 \(Request Timeout\): the request was not processed, so nothing was sent \(2 tries\)/);
		expect(errorOf(result.items[0])).not.toMatch(/may have been delivered|Unexpected answer/);
	});

	it.each([
		[413, 'Request Entity Too Large', /shorten this item's text/],
		[431, 'Request Header Fields Too Large', /credential's key/],
		[414, 'Request-URI Too Large', /base URL/],
	] as const)('a send answered %i by a gateway page: one request, the item fails as too large, with what to change', async (status, name, hint) => {
		const { url, seen } = await serve(html(status, name));
		const result = await run(url, 'send', { items: 2 });
		expect(seen).toHaveLength(2);
		for (const item of result.items) {
			expect(errorOf(item)).toMatch(new RegExp(`refused the request as too large \\(HTTP ${status}, `));
			expect(errorOf(item)).not.toMatch(/may have been delivered|Unexpected answer/);
			expect(String(item.json.message ?? '')).toMatch(hint);
		}
	});
});

describe('an answer in the charset it declares is read in that charset (outside review: accents came out as U+FFFD)', () => {
	it.each([
		['iso-8859-1', '{"message":"Message sending failed | Reason: Num\u00e9ro de t\u00e9l\u00e9phone invalide"}', /^Num\u00e9ro de t\u00e9l\u00e9phone invalide/],
		['windows-1252', '{"message":"Message sending failed | Reason: \u201cCr\u00e9dits\u201d insuffisants"}', /^\u201cCr\u00e9dits\u201d insuffisants/],
	] as const)('a send answered 400 as %s: the reason keeps its letters', async (charset, body, reason) => {
		const { url } = await serve((_req, res) => {
			res.writeHead(400, { 'content-type': `application/json; charset=${charset}` });
			// windows-1252 has the curly quotes at 0x93/0x94, which latin1 lacks.
			res.end(Buffer.from(body.replace(/\u201c/g, '\x93').replace(/\u201d/g, '\x94'), 'latin1'));
		});
		const result = await run(url, 'send');
		expect(errorOf(result.items[0])).toMatch(reason);
	});

	it('a charset no decoder knows is read as UTF-8', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(400, { 'content-type': 'application/json; charset=x-unknown-9' });
			res.end(Buffer.from('{"message":"Message sending failed | Reason: Num\u00e9ro invalide"}', 'utf8'));
		});
		const result = await run(url, 'send');
		expect(errorOf(result.items[0])).toMatch(/^Num\u00e9ro invalide/);
	});
});

describe("a delete answered with a status's own words in place of no body", () => {
	it.each(['OK', 'No Content', 'deleted', 'Deleted successfully', 'Plant 7 removed.'])('200 text/plain %j: deleted (Express answers res.sendStatus(200) with "OK"; outside review: a failure)', async (words) => {
		const { url, seen } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
			res.end(words);
		});
		const result = await run(url, 'plantDelete');
		expect(seen).toHaveLength(1);
		expect(result.items[0].json).toEqual({ deleted: true, id: 7 });
	});

	it.each(['Plant not found', 'Plant not deleted', 'Deletion failed', "Couldn't delete: plant is locked", 'Delete refused'])('200 text/plain %j: not taken as deleted', async (words) => {
		const { url } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/plain' });
			res.end(words);
		});
		const result = await run(url, 'plantDelete');
		expect(result.items[0].json).not.toHaveProperty('deleted');
		expect(errorOf(result.items[0])).toMatch(/Unexpected answer/);
	});
});

describe("a 503's Retry-After holds the retry of a read (outside review: tried again at 150 ms and 600 ms)", () => {
	it.each(['templateGetAll', 'plantDelete'] as const)('%s answered 503 with Retry-After: 1, then its success: the second try goes a second later', async (operation) => {
		const arrivals: number[] = [];
		const { url, seen } = await serve((_req, res, index) => {
			arrivals.push(Date.now());
			if (index > 0) return json(res, 200, operation === 'templateGetAll' ? [TEMPLATE_RECORD] : {});
			res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '1' });
			res.end('<html>maintenance</html>');
		});
		const result = await run(url, operation);
		expect(seen).toHaveLength(2);
		expect(result.items[0].json.error).toBeUndefined();
		expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(950);
	});
});
