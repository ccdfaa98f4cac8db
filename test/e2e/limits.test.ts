/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- not shipped: test code; prints the refusals it counted, and polls the emulator with a timer (README: Lint) */
/**
 * Limits nobody set, through the real server (n8n 2.x and 1.x alike): the account allows 10
 * sends per 5 s (a sliding window the node is not told of; a minute in real life, shrunk so the
 * suite stays fast), and the node runs with its defaults, as users leave it. The engine suites
 * (test/bulk/limit-seeking.test.ts) hold the timing against the ideal; here the server's own
 * execution, webhook and storage paths must keep the promise: every message delivered exactly
 * once, no execution failed, and a limit once found costs no refusal later.
 *
 * Each test sends with a credential of its own, saved through the REST API as the editor does:
 * the limit the node learns belongs to the credential in this n8n process, and the other e2e
 * files send through the shared one at full speed.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, test } from 'vitest';
import type { RequestRecord } from '../emulator/types';
import { packageNode, runNode, useE2e } from './support/harness';
import { outputItems, postToWebhook, webhookTrigger } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;

const LIMIT = 10;
const WINDOW_MS = 5_000;

beforeEach(async () => {
	await e2e.emulator.reset();
});

/** A Bearer credential of its own, with the same secret and URLs as the shared one. */
async function ownCredential(name: string): Promise<{ id: string; name: string }> {
	return await e2e.rest.createCredential(`${name} ${randomUUID().slice(0, 8)}`, 'messagingBearerApi', { ...ctx.credentialData.messagingBearerApi });
}

/** An active workflow of its own, Webhook -> Send with a credential of its own: `path` takes {phone, text}. */
async function activeWebhookSend(name: string) {
	const credential = await ownCredential(name);
	const path = `e2e-${name.replace(/ /g, '-')}-${randomUUID()}`;
	const send = {
		...packageNode(ctx, { name: 'Send', parameters: { resource: 'message', operation: 'send', phone: '={{ $json.body.phone }}', text: '={{ $json.body.text }}' } }),
		credentials: { messagingBearerApi: credential },
	};
	const workflow = await e2e.rest.createWorkflow({
		name: `e2e ${name}: webhook -> message`,
		nodes: [webhookTrigger(path), send],
		connections: { Webhook: { main: [[{ node: 'Send', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	await e2e.rest.activateWorkflow(workflow.id);
	return { workflow, path };
}

const sendsIn = (requests: RequestRecord[]) => requests.filter((request) => request.api === 'send');
const refusalsIn = (requests: RequestRecord[]) => requests.filter((request) => request.outcome === 'rate-limited').length;
/** `count` recipients, numbered from `first`. */
const people = (count: number, tag: string, first = 0) =>
	Array.from({ length: count }, (_, index) => ({ phone: `+1415${String(7_000_000 + first + index)}`, text: `${tag} ${index}` }));

describe.each([
	['the spec\'s 400 "Rate limit exceeded" reason, no Retry-After', 'reason'],
	['429 with Retry-After', '429'],
] as const)('an account limit of 10 per 5 s, refused with %s; the node left at its defaults', (_label, answer) => {
	test('25 reminders in one run: every one delivered once, the run succeeds; the next run meets no refusal', async () => {
		await e2e.emulator.setFaults({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer } });
		const credential = await ownCredential(`limit ${answer}`);
		const send = {
			...packageNode(ctx, { name: 'Send', parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}' } }),
			credentials: { messagingBearerApi: credential },
		};

		const first = people(25, `reminder ${answer}`);
		const { execution } = await runNode(e2e, send, { items: first, name: `e2e limit ${answer}: first run` });
		expect(execution.status, JSON.stringify(execution.data.resultData.error)).toBe('success');
		expect(outputItems(execution, 'Send').map((item) => item.to)).toEqual(first.map((person) => person.phone));
		expect(outputItems(execution, 'Send').every((item) => item.success === true)).toBe(true);
		const state = await e2e.emulator.state();
		const firstRun = sendsIn(state.requests);
		expect(state.deliveries).toBe(25);
		expect(state.duplicates).toEqual([]);
		// The limit had to be met to be found; every refused send was tried again (25 delivered). At
		// most the 24 that went together after the first answer were refused, then the pause's probes
		// (at most 8, the round window lengths up to 5 s; one at the time a Retry-After named): a
		// retry storm would be many more.
		expect(refusalsIn(firstRun)).toBeGreaterThan(0);
		expect(refusalsIn(firstRun)).toBeLessThanOrEqual(24 + (answer === '429' ? 1 : 8));

		// A later execution of the same credential starts at the pace learned: the window the first
		// run's last sends still fill is waited out, not run into.
		const second = people(12, `second ${answer}`, 100_000);
		const again = await runNode(e2e, send, { items: second, name: `e2e limit ${answer}: later run` });
		expect(again.execution.status, JSON.stringify(again.execution.data.resultData.error)).toBe('success');
		const after = await e2e.emulator.state();
		const later = sendsIn(after.requests).slice(firstRun.length);
		expect(later).toHaveLength(12);
		expect(refusalsIn(later)).toBe(0);
		expect(after.deliveries).toBe(37);
		console.log(`[e2e limits] ${answer}: first run ${firstRun.length} send requests, ${refusalsIn(firstRun)} refused; later run 12 sent, 0 refused`);
	}, 120_000);
});

test('a burst of 20 webhook executions at once against 10 per 5 s: all delivered once, none failed', async () => {
	await e2e.emulator.setFaults({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, answer: 'reason' } });
	const { workflow, path } = await activeWebhookSend('burst');
	try {
		const messages = people(20, 'burst');
		await Promise.all(messages.map(async (message) => await postToWebhook(`${ctx.baseUrl}/webhook/${path}`, message)));

		const executions = await e2e.rest.waitForExecutionsOf(workflow.id, 20, Date.now() + 90_000, 500);
		expect(executions.map((execution) => execution.status)).toEqual(Array.from({ length: 20 }, () => 'success'));
		const state = await e2e.emulator.state();
		expect(state.deliveries).toBe(20);
		expect(state.duplicates).toEqual([]);
		const sends = sendsIn(state.requests);
		const delivered = sends.filter((request) => request.outcome === 'delivered');
		expect(delivered.map((request) => (request.body as { phone: string }).phone).sort()).toEqual(messages.map((message) => message.phone).sort());
		// The first execution's request alone, then at most the 19 others together, then the probes.
		expect(refusalsIn(sends)).toBeLessThanOrEqual(19 + 8);
		console.log(`[e2e limits] burst: ${sends.length} send requests, ${refusalsIn(sends)} refused`);
	} finally {
		await e2e.rest.deactivateWorkflow(workflow.id).catch(() => undefined);
	}
}, 120_000);

test("a burst of 20 webhook executions behind a first send that hangs: delivered within seconds, not after its Timeout (30 s)", async () => {
	await e2e.emulator.setFaults({ script: ['hang-forever'], latencyMs: 20 });
	const { workflow, path } = await activeWebhookSend('hang burst');
	try {
		// The credential's first send, Auto's one request first, hangs; then 20 executions arrive.
		await postToWebhook(`${ctx.baseUrl}/webhook/${path}`, people(1, 'first')[0]);
		const deadline = Date.now() + 20_000;
		while (!(await e2e.emulator.requests()).some((request) => request.outcome === 'hang') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
		const started = Date.now();
		await Promise.all(people(20, 'behind', 100).map(async (message) => await postToWebhook(`${ctx.baseUrl}/webhook/${path}`, message)));
		while ((await e2e.emulator.state()).deliveries < 20 && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 50));
		const tookMs = Date.now() - started;
		console.log(`[e2e limits] hang burst: 20 delivered ${tookMs} ms after the first send began to hang`);
		const state = await e2e.emulator.state();
		expect(state.deliveries).toBe(20);
		expect(state.duplicates).toEqual([]);
		// Before: none went until the hanging one's Timeout (30.1-30.4 s in an outside review); one
		// more goes a second after it, and its answer opens Auto.
		expect(tookMs).toBeLessThan(15_000);
	} finally {
		await e2e.rest.deactivateWorkflow(workflow.id).catch(() => undefined);
	}
}, 120_000);
