/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Answers a real network gives that the service never designed: resets and closes after the
 * request was processed, redirects to a second origin, 200s that are not the service, a 5xx
 * whose text reads like a rate limit, a service that echoes the key, one that never answers,
 * and hostile Retry-After values. Through n8n-core, for every send operation and the reads
 * where it matters, each shows:
 *   - no secret and no body at the second origin (emulator.trapRequests stays empty);
 *   - at most one delivery (emulator.duplicates() stays empty): a send that may have reached
 *     the service is never sent again, and says "may have been delivered";
 *   - no `success: true` on an answer that is not the operation's success answer;
 *   - the error names what happened (the status and the host a redirect pointed at, the
 *     host that answered something else, the wait that was too long).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import type { ApiName, Emulator, ScriptStep } from '../emulator';
import { n8nWorkflow } from '../harness';
import { APPOINTMENT_REMINDER, mapperValue, runOn, useEmulator, visibleText } from './setup';

const emulator = useEmulator();

const PHONES = ['+14155550170', '+14155550171'];
const ITEMS = PHONES.map((phone, index) => ({ phone, text: `network fault test #${index}` }));

interface SendOperation {
	operation: string;
	api: ApiName;
	/** Script steps for the requests before the item's send (Send Template reads the templates first). */
	before: ScriptStep[];
	secret: (emu: Emulator) => string;
	parameters: INodeParameters;
}

const SEND_OPERATIONS: SendOperation[] = [
	{
		operation: 'send',
		api: 'send',
		before: [],
		secret: (emu) => emu.tokens.bearer,
		parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}' },
	},
	{
		operation: 'sendTemplate',
		api: 'templateSend',
		before: ['ok'],
		secret: (emu) => emu.tokens.bearer,
		parameters: {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '={{ $json.phone }}',
			template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
			variables: mapperValue({ body1: '={{ $json.text }}', body2: 'Monday' }),
		},
	},
	{
		operation: 'sendDashboard',
		api: 'dashboard',
		before: [],
		secret: (emu) => emu.tokens.dashboardKey,
		parameters: { resource: 'message', operation: 'sendDashboard', to: '={{ $json.phone }}', text: '={{ $json.text }}' },
	},
	{
		operation: 'sendAlternative',
		api: 'alternative',
		before: [],
		secret: (emu) => emu.tokens.alternativeKey,
		parameters: { resource: 'message', operation: 'sendAlternative', to: '={{ $json.phone }}', message: '={{ $json.text }}' },
	},
];

const withOptions = (parameters: INodeParameters, options: INodeParameters): INodeParameters => ({ ...parameters, options });
const hostOf = (url: string) => new URL(url).host;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MAY_HAVE_BEEN_DELIVERED = /\. The message may have been delivered/;

interface SendFault {
	step: ScriptStep;
	/** The emulator's outcome for the faulted request. */
	outcome: string;
	/** The service acted on it (a delivery was counted) before the fault. */
	processed: boolean;
	/** The failed item's error message. */
	message: (emu: Emulator) => RegExp;
	mayHaveBeenDelivered: boolean;
	/** A refused key: no later item can get past it, so they fail with it, unsent. */
	haltsRun?: boolean;
}

const redirect = (status: 301 | 302 | 303 | 307 | 308): SendFault => ({
	step: `redirect-${status}`,
	outcome: 'redirected',
	processed: false,
	message: (emu) =>
		new RegExp(`^${escape(hostOf(emu.url))} answered HTTP ${status}, a redirect to ${escape(hostOf(emu.trapUrl))}; redirects are not followed, so nothing was sent there`),
	// 303 "See Other" is how a server says it processed a POST, and 302 how most frameworks do.
	mayHaveBeenDelivered: status === 302 || status === 303,
});

const nonService = (step: ScriptStep, what: string): SendFault => ({
	step,
	outcome: step,
	processed: false,
	message: (emu) => new RegExp(`^Unexpected answer from ${escape(hostOf(emu.url))} \\(HTTP 200, ${escape(what)}\\)`),
	// A 200 from we-do-not-know-what: whatever was behind it may have acted.
	mayHaveBeenDelivered: true,
});

const SEND_FAULTS: SendFault[] = [
	// To a client a reset before processing looks exactly like one after it: the request was
	// written, and only the service knows whether it acted. So none of them is sent again.
	...(['reset', 'reset-after', 'close-after'] as const).map((step) => ({
		step,
		outcome: step,
		processed: step !== 'reset',
		message: (emu: Emulator) => new RegExp(`^The connection to ${escape(hostOf(emu.url))} was dropped before an answer came`),
		mayHaveBeenDelivered: true,
	})),
	...([301, 302, 303, 307, 308] as const).map(redirect),
	nonService('html-200', 'text/html instead of JSON'),
	nonService('empty-200', 'an empty body'),
	nonService('wrong-shape-200', 'JSON of another shape'),
	{
		step: '5xx-ratelimit-text',
		outcome: '5xx-ratelimit-text',
		processed: true,
		// Judged by its status (503), not by its text: not a rate limit, so not retried.
		message: () => /^Rate limit exceeded( \(code RATE_LIMITED\))?/,
		mayHaveBeenDelivered: true,
	},
	{
		step: 'echo-key',
		outcome: 'echo-key',
		processed: false,
		message: () => /\[redacted\]/,
		mayHaveBeenDelivered: false,
		haltsRun: true,
	},
];

/** The one paired output per input item, in order. */
function expectPaired(items: INodeExecutionData[], count: number) {
	expect(items.map((item) => item.pairedItem)).toEqual(Array.from({ length: count }, (_, index) => ({ item: index })));
}

const requestsTo = (emu: Emulator, api: ApiName) => emu.requests.filter((request) => request.api === api);
const deliveriesTo = (emu: Emulator, phone: string) => emu.deliveries.filter((delivery) => delivery.recipient === phone);

describe.each(SEND_OPERATIONS)('$operation: a fault hits item 0, Continue On Fail', (op) => {
	it.each(SEND_FAULTS)('$step', async (fault) => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, fault.step] });
		const run = await runOn(emu, { parameters: withOptions(op.parameters, { includeRawResponse: true }), items: ITEMS, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expectPaired(run.items, 2);
		const [failed, next] = run.items;

		// No success on an answer that was not the success answer; the error says what happened.
		expect(failed.json.success).toBeUndefined();
		expect(failed.json.error).toMatch(fault.message(emu));
		if (fault.mayHaveBeenDelivered) expect(failed.json.error).toMatch(MAY_HAVE_BEEN_DELIVERED);
		else expect(failed.json.error).not.toMatch(/may have been delivered/);
		expect(failed.json.message).toBeDefined();
		if (fault.haltsRun) {
			expect(next.json.error).toBe(failed.json.error);
			expect(next.json.message).toMatch(/^Not sent: an earlier item of this run failed for this reason/);
		} else {
			expect(next.json.success).toBe(true);
		}

		// Never sent again: one request for item 0, one for item 1, and at most one delivery each.
		expect(requestsTo(emu, op.api).map((request) => request.outcome)).toEqual(fault.haltsRun ? [fault.outcome] : [fault.outcome, 'delivered']);
		expect(deliveriesTo(emu, PHONES[0])).toHaveLength(fault.processed ? 1 : 0);
		expect(deliveriesTo(emu, PHONES[1])).toHaveLength(fault.haltsRun ? 0 : 1);
		expect(emu.duplicates()).toEqual([]);

		// Nothing reached the second origin; no secret anywhere a user or a log can see.
		expect(emu.trapRequests).toEqual([]);
		expect(visibleText(run)).not.toContain(op.secret(emu));
	});

	it.each(['reset-after', 'redirect-307', 'html-200'] as const)('%s without Continue On Fail: the run fails with that error, item 1 is never sent', async (step) => {
		const emu = emulator;
		const fault = SEND_FAULTS.find((candidate) => candidate.step === step)!;
		emu.setFaults({ script: [...op.before, step] });
		const run = await runOn(emu, { parameters: op.parameters, items: ITEMS });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(run.error?.message).toMatch(fault.message(emu));
		expect((run.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(requestsTo(emu, op.api)).toHaveLength(1);
		expect(deliveriesTo(emu, PHONES[1])).toEqual([]);
		expect(emu.trapRequests).toEqual([]);
		expect(visibleText(run)).not.toContain(op.secret(emu));
	});

	it('a service that never answers: the item fails after Timeout, "may have been delivered", not sent again', async () => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, 'hang-forever'] });
		const started = performance.now();
		const run = await runOn(emu, { parameters: withOptions(op.parameters, { timeoutSeconds: 1 }), items: ITEMS, continueOnFail: true });
		const elapsed = performance.now() - started;
		expectPaired(run.items, 2);
		expect(run.items[0].json.success).toBeUndefined();
		expect(run.items[0].json.error).toMatch(new RegExp(`^No answer from ${escape(hostOf(emu.url))} within 1 s`));
		expect(run.items[0].json.error).toMatch(MAY_HAVE_BEEN_DELIVERED);
		expect(run.items[1].json.success).toBe(true);
		expect(requestsTo(emu, op.api).map((request) => request.outcome)).toEqual(['hang', 'delivered']);
		expect(elapsed).toBeGreaterThanOrEqual(950);
		expect(elapsed).toBeLessThan(5_000);
	});

	it.each(['-5', 'soon', '0', '<date:-3600>'])('Retry-After %s is ignored: the 429 is retried after the backoff, and delivered once', async (retryAfter) => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, '429'], retryAfter });
		const started = performance.now();
		const run = await runOn(emu, { parameters: op.parameters, items: ITEMS.slice(0, 1) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.success).toBe(true);
		expect(requestsTo(emu, op.api).map((request) => request.outcome)).toEqual(['rate-limited', 'delivered']);
		expect(emu.duplicates()).toEqual([]);
		// The first backoff is at most 250 ms: neither hammered (0 s) nor stalled.
		expect(performance.now() - started).toBeLessThan(2_000);
	});

	it.each(['259200', '<date:+259200>'])('Retry-After %s (days) is above Max Wait: the item fails at once with the rate-limit reason', async (retryAfter) => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, '429'], retryAfter });
		const started = performance.now();
		const run = await runOn(emu, { parameters: op.parameters, items: ITEMS.slice(0, 1), continueOnFail: true });
		expect(run.items[0].json.success).toBeUndefined();
		expect(run.items[0].json.error).toMatch(/^Rate limited: the service asked to wait 259\d{3} s, more than Max Wait \(60 s\)/);
		expect(run.items[0].json.error).not.toMatch(/may have been delivered/);
		expect(requestsTo(emu, op.api)).toHaveLength(1);
		expect(emu.deliveries).toEqual([]);
		expect(performance.now() - started).toBeLessThan(2_000);
	});

	it('Retry-After as a date Max Wait ahead (a whole second, rounded up, reads a little over it): waited out, delivered once (outside review: failed at once)', async () => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, '429'], retryAfter: '<date:+2>' });
		const started = performance.now();
		const run = await runOn(emu, { parameters: withOptions(op.parameters, { maxWaitSeconds: 2 }), items: ITEMS.slice(0, 1) });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.success).toBe(true);
		expect(requestsTo(emu, op.api).map((request) => request.outcome)).toEqual(['rate-limited', 'delivered']);
		expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
	});

	it('"Retry Sends After Server Errors" on: a send dropped after processing IS sent again (a duplicate, by choice)', async () => {
		const emu = emulator;
		emu.setFaults({ script: [...op.before, 'reset-after'] });
		const run = await runOn(emu, { parameters: withOptions(op.parameters, { retrySendsOnServerError: true }), items: ITEMS.slice(0, 1) });
		expect(run.error).toBeUndefined();
		expect(requestsTo(emu, op.api).map((request) => request.outcome)).toEqual(['reset-after', 'delivered']);
		expect(emu.duplicates()).toHaveLength(1);
	});
});

describe('a stopped run says which items were sent and which were not', () => {
	/** "0-6, 8" -> [0, 1, 2, 3, 4, 5, 6, 8] */
	const indexes = (list: string | undefined) =>
		(list ?? '')
			.split(',')
			.map((part) => part.trim())
			.filter((part) => part !== '')
			.flatMap((part) => {
				const [from, to = from] = part.split('-').map(Number);
				return Array.from({ length: to - from + 1 }, (_, n) => from + n);
			});
	const listed = (description: string, label: string) => indexes(new RegExp(`${label}: items? ([\\d, -]+)\\.`).exec(description)?.[1]);
	const phoneOf = (index: number) => `+1415555${String(1000 + index)}`;
	const items = (count: number) => Array.from({ length: count }, (_, index) => ({ phone: phoneOf(index), text: `item ${index}` }));
	const send = SEND_OPERATIONS[0].parameters;

	it('concurrency 1: a reset after processing at item 7 of 12: items after it are never sent', async () => {
		const emu = emulator;
		emu.setFaults({ script: [...Array(7).fill('ok'), 'reset-after'] });
		const run = await runOn(emu, { parameters: { ...send, options: { maxConcurrent: 1 } }, items: items(12) });
		expect(run.error?.message).toMatch(MAY_HAVE_BEEN_DELIVERED);
		const description = (run.error as { description?: string }).description ?? '';
		expect(description).toContain('Sent before the run stopped: items 0-6. Not sent: items 8-11.');
		expect(emu.requests.map((request) => (request.body as { phone: string }).phone)).toEqual(items(8).map((item) => item.phone));
		expect(emu.duplicates()).toEqual([]);
	});

	it.each(['reset-after', 'html-200', 'redirect-307'] as const)('concurrency 4, 40 items, %s at the 10th request: the summary matches what the service saw', async (step) => {
		const emu = emulator;
		emu.setFaults({ latencyMs: 15, script: [...Array(9).fill('ok'), step] });
		const run = await runOn(emu, { parameters: withOptions(send, { maxConcurrent: 4 }), items: items(40) });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		const failedItem = (run.error as { context?: { itemIndex?: number } }).context?.itemIndex;
		const description = (run.error as { description?: string }).description ?? '';
		const sent = listed(description, 'Sent before the run stopped');
		const notSent = listed(description, 'Not sent');
		// Every item is accounted for exactly once: sent, not sent, or the one that failed.
		expect([...sent, ...notSent, failedItem].sort((a, b) => a! - b!)).toEqual([...Array(40).keys()]);
		expect(notSent.length).toBeGreaterThan(0);
		// "Sent" means delivered once; "Not sent" means the service never saw it.
		for (const index of sent) expect(deliveriesTo(emu, phoneOf(index)), `item ${index}`).toHaveLength(1);
		const seen = new Set(emu.requests.map((request) => (request.body as { phone: string }).phone));
		for (const index of notSent) expect(seen.has(phoneOf(index)), `item ${index}`).toBe(false);
		expect(emu.duplicates()).toEqual([]);
		expect(emu.trapRequests).toEqual([]);
	});
});

describe('reads: a reset or timeout is retried, anything else that is not the answer fails', () => {
	const listTemplates = { resource: 'template', operation: 'getAll', returnAll: true };

	it.each(['reset-after', 'close-after', 'reset'] as const)('Template → Get Many after %s: retried, and the list comes back', async (step) => {
		const emu = emulator;
		emu.setFaults({ script: [step] });
		const run = await runOn(emu, { parameters: listTemplates, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.template_id)).toEqual(emu.templates.map((template) => template.template_id));
		expect(requestsTo(emu, 'templates').map((request) => request.outcome)).toEqual([step, 'ok']);
	});

	it('Template → Get Many when the service never answers: retried after Timeout', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['hang-forever'] });
		const run = await runOn(emu, { parameters: { ...listTemplates, options: { timeoutSeconds: 1 } }, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(emu.templates.length);
		expect(requestsTo(emu, 'templates').map((request) => request.outcome)).toEqual(['hang', 'ok']);
	});

	it.each([301, 302, 303, 307, 308] as const)('Template → Get Many answered %i: fails naming the redirect, nothing reaches the trap', async (status) => {
		const emu = emulator;
		emu.setFaults({ script: [`redirect-${status}`] });
		const run = await runOn(emu, { parameters: listTemplates, items: [{}] });
		expect(run.error?.message).toMatch(redirect(status).message(emu));
		expect(run.error?.message).not.toMatch(/may have been delivered/);
		expect((run.error as { description?: string }).description).toMatch(/base URL/);
		expect(run.items).toEqual([]);
		expect(requestsTo(emu, 'templates')).toHaveLength(1);
		expect(emu.trapRequests).toEqual([]);
	});

	it.each([
		['html-200', 'text/html instead of JSON'],
		['empty-200', 'an empty body'],
		['wrong-shape-200', 'JSON of another shape'],
	] as const)('Template → Get Many answered %s: "Unexpected answer", no items', async (step, what) => {
		const emu = emulator;
		emu.setFaults({ script: [step] });
		const run = await runOn(emu, { parameters: listTemplates, items: [{}], continueOnFail: true });
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json.template_id).toBeUndefined();
		expect(run.items[0].json.error).toBe(`Unexpected answer from ${hostOf(emu.url)} (HTTP 200, ${what})`);
		expect(run.items[0].json.message).toMatch(/Check the credential's base URL/);
	});

	it('Template → Get Many answered with the token echoed: the token is scrubbed', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['echo-key'] });
		const run = await runOn(emu, { parameters: listTemplates, items: [{}], continueOnFail: true });
		expect(run.items[0].json.error).toMatch(/\[redacted\]/);
		expect(visibleText(run)).not.toContain(emu.tokens.bearer);
	});

	it('Send Template: a reset after the templates read was processed is retried, then each item is sent once', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['reset-after'] });
		const run = await runOn(emu, { parameters: SEND_OPERATIONS[1].parameters, items: ITEMS });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.success)).toEqual([true, true]);
		expect(requestsTo(emu, 'templates').map((request) => request.outcome)).toEqual(['reset-after', 'ok']);
		expect(requestsTo(emu, 'templateSend').map((request) => request.outcome)).toEqual(['delivered', 'delivered']);
	});

	it('Send Template: a redirect on the templates read is not followed, and the messages go without the list', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['redirect-307'] });
		const run = await runOn(emu, { parameters: SEND_OPERATIONS[1].parameters, items: ITEMS, continueOnFail: true });
		expectPaired(run.items, 2);
		expect(run.items.map((item) => item.json.success)).toEqual([true, true]);
		expect(requestsTo(emu, 'templates')).toHaveLength(1);
		expect(requestsTo(emu, 'templateSend').map((request) => request.outcome)).toEqual(['delivered', 'delivered']);
		expect(emu.trapRequests).toEqual([]);
	});

	it('a 429 with a garbage Retry-After on a read: retried after the backoff', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['429'], retryAfter: 'soon' });
		const run = await runOn(emu, { parameters: listTemplates, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(requestsTo(emu, 'templates').map((request) => request.outcome)).toEqual(['rate-limited', 'ok']);
	});
});

describe('Sandbox Plants under the same faults', () => {
	it('Delete after a reset after processing: retried; the 404 of the retry means it is gone', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['reset-after'] });
		const run = await runOn(emu, { type: 'sandboxPlants', parameters: { operation: 'delete', plantId: 2 }, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ deleted: true, id: 2 }]);
		expect(requestsTo(emu, 'plantsDelete').map((request) => request.status)).toEqual([0, 404]);
		expect(emu.plants().map((plant) => plant.id)).toEqual([1, 3]);
	});

	it('Create (a POST) dropped after processing: not sent again, says it may have been carried out', async () => {
		const emu = emulator;
		emu.setFaults({ script: ['close-after'] });
		const run = await runOn(emu, {
			type: 'sandboxPlants',
			parameters: { operation: 'create', name: 'Fern', plantId: 40 },
			items: [{}],
			continueOnFail: true,
		});
		expect(run.items[0].json.error).toMatch(/dropped before an answer came.*The plant may have been created/);
		expect(run.items[0].json.error).not.toMatch(/message/);
		expect(requestsTo(emu, 'plantsCreate')).toHaveLength(1);
		expect(emu.plants().filter((plant) => plant.id === 40)).toHaveLength(1);
	});

	it.each(['redirect-302', 'redirect-308'] as const)('Create answered %s: fails, nothing created, nothing at the trap', async (step) => {
		const emu = emulator;
		emu.setFaults({ script: [step] });
		const run = await runOn(emu, {
			type: 'sandboxPlants',
			parameters: { operation: 'create', name: 'Fern', plantId: 41 },
			items: [{}],
			continueOnFail: true,
		});
		expect(run.items[0].json.error).toMatch(/answered HTTP 30[28], a redirect to/);
		expect(run.items[0].json.name).toBeUndefined();
		expect(emu.trapRequests).toEqual([]);
		expect(emu.plants().filter((plant) => plant.id === 41)).toEqual([]);
	});

	it.each(['html-200', 'wrong-shape-200'] as const)('Get Many answered %s (not a list): fails instead of returning no plants', async (step) => {
		const emu = emulator;
		emu.setFaults({ script: [step] });
		const run = await runOn(emu, { type: 'sandboxPlants', parameters: { operation: 'getAll', returnAll: true }, items: [{}] });
		expect(run.error?.message).toMatch(/^Unexpected answer from .* \(HTTP 200, /);
	});
});

/** A loopback server standing in for a sandbox that behaves differently from the emulator. */
async function withServer(handle: (req: IncomingMessage, res: ServerResponse) => void, test: (baseUrl: string) => Promise<void>) {
	const server = createServer(handle);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	try {
		await test(`http://127.0.0.1:${port}/sandbox`);
	} finally {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
}

const json = (res: ServerResponse, status: number, body: unknown) => {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
};

describe('a sandbox that behaves differently from the emulator', () => {
	it('Get Many: a service that ignores `limit` still gives no more than Limit', async () => {
		const plants = ['A', 'B', 'C', 'D', 'E'].map((name) => ({ name }));
		await withServer(
			(_, res) => json(res, 200, plants),
			async (sandboxBaseUrl) => {
				const emu = emulator;
				const credentialData = { ...emu.credentials.messagingBearerApi, sandboxBaseUrl };
				const run = await runOn(emu, {
					type: 'sandboxPlants',
					parameters: { operation: 'getAll', returnAll: false, limit: 2 },
					items: [{}],
					credentialData,
				});
				expect(run.error).toBeUndefined();
				expect(run.items.map((item) => item.json.name)).toEqual(['A', 'B']);
			},
		);
	});

	it('a success answer that echoes the token: scrubbed from the output item and from rawResponse', async () => {
		await withServer(
			(req, res) => {
				let body = '';
				req.on('data', (chunk) => (body += chunk));
				req.on('end', () => {
					const { name } = JSON.parse(body) as { name: string };
					json(res, 200, { name, tag: `seen ${req.headers.authorization}` });
				});
			},
			async (sandboxBaseUrl) => {
				const emu = emulator;
				const credentialData = { ...emu.credentials.messagingBearerApi, sandboxBaseUrl };
				const run = await runOn(emu, {
					type: 'sandboxPlants',
					parameters: { operation: 'create', name: 'Fern', plantId: 7, options: { includeRawResponse: true } },
					items: [{}],
					credentialData,
				});
				expect(run.error).toBeUndefined();
				expect(run.items[0].json.tag).toBe('seen Bearer [redacted]');
				expect(run.items[0].json.rawResponse).toEqual({ name: 'Fern', tag: 'seen Bearer [redacted]' });
				expect(visibleText(run)).not.toContain(emu.tokens.bearer);
			},
		);
	});
});
