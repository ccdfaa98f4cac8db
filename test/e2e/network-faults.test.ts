/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The safety promise through the real n8n server, against answers real networks give: for
 * every send operation and every fault, no secret and no body at the second origin a redirect
 * names, at most one delivery, and never `success: true` on an answer that is not the
 * service's success. Then: a paced run stopped from n8n's Stop ends within a second (a run that
 * stops at its own failure is test/bulk/stop-and-share.test.ts's).
 */
import { beforeEach, describe, expect, test } from 'vitest';
import type { ApiName, ScriptStep } from '../emulator/types';
import { expectNoSecrets, n8nLogText, packageNode, runNode, useE2e, type CredentialType } from './support/harness';
import { outputItems } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;

beforeEach(async () => {
	await e2e.emulator.reset();
});

// appointment_reminder: body1, body2.
const TEMPLATE_ID = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01';

/** Each send operation (and the API it sends to), one item, Continue On Fail so the item shows what happened. */
const sends: Array<[string, ApiName, CredentialType, Record<string, unknown>]> = [
	['send', 'send', 'messagingBearerApi', { resource: 'message', operation: 'send', phone: '+14155550123', text: 'Hello' }],
	[
		'sendTemplate',
		'templateSend',
		'messagingBearerApi',
		{
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'id', value: TEMPLATE_ID },
			variables: { mappingMode: 'defineBelow', value: { body1: 'Ann', body2: 'Friday' } },
		},
	],
	['sendDashboard', 'dashboard', 'messagingAuthorizationKeyApi', { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'Hello' }],
	['sendAlternative', 'alternative', 'messagingXApiKeyApi', { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'Hello' }],
];

// One fault of each kind the node tells apart (test/nodes/network-faults.test.ts runs the whole
// table in the engine): what the real server adds is its stored execution, with n8n's own error
// classes (1.x and 2.x), and no secret in it.
const faults: Array<[ScriptStep, RegExp]> = [
	['reset-after', /may have been delivered/i],
	['redirect-307', /HTTP 307, a redirect to 127\.0\.0\.1:\d+; redirects are not followed/],
	['html-200', /Unexpected answer from 127\.0\.0\.1:\d+ \(HTTP 200, text\/html/],
	['echo-key', /./],
];

describe.each(sends)('%s against answers we did not design for', (operation, api, credential, parameters) => {
	test.each(faults)('%s: no second origin, at most one delivery, no false success', async (step, message) => {
		// Send Template reads the templates first: the fault hits the send itself.
		await e2e.emulator.setFaults({ script: operation === 'sendTemplate' ? ['ok', step] : [step] });
		const { execution } = await runNode(e2e, packageNode(ctx, { name: 'Send', credential, continueOnFail: true, parameters }));
		expect(execution.status).toBe('success');
		const [item] = outputItems(execution, 'Send');
		expect(item.success).toBeUndefined();
		expect(String(item.error)).toMatch(message);
		const trap = await e2e.emulator.trap();
		expect(trap.requests).toEqual([]);
		const state = await e2e.emulator.state();
		expect(state.deliveries).toBeLessThanOrEqual(1);
		expect(state.duplicates).toEqual([]);
		// A send is never tried twice after any of these.
		expect(state.requests.filter((request) => request.api === api)).toHaveLength(1);
		expect(expectNoSecrets(ctx, execution.raw)).toEqual([]);
	});
});

// n8n's Retry On Fail runs the whole node again. On n8n 1.x the helper's error keeps the network
// code only in its own fields: read as an unknown error, this send went out twice and the
// execution ended as a success.
test("n8n's Retry On Fail after a reset once the send was written: sent once, the execution fails saying it may have been delivered", async () => {
	await e2e.emulator.setFaults({ script: ['reset-after', 'ok', 'ok'] });
	const send = packageNode(ctx, { name: 'Send', parameters: { resource: 'message', operation: 'send', phone: '+14155550123', text: 'Hello' } });
	const { execution } = await runNode(e2e, { ...send, retryOnFail: true, maxTries: 3, waitBetweenTries: 100 });
	expect(execution.status).toBe('error');
	expect(JSON.stringify(execution.raw)).toMatch(/may have been delivered/);
	const state = await e2e.emulator.state();
	expect(state.requests.filter((request) => request.api === 'send')).toHaveLength(1);
	expect(state.deliveries).toBe(1);
});

test("n8n's Retry button of a failed execution: what the failed run delivered is not sent again", async () => {
	// Item 2 is refused for good: items 0 and 1 went, item 3 was not sent.
	await e2e.emulator.setFaults({ script: ['ok', 'ok', 'success-false'] });
	const send = packageNode(ctx, {
		name: 'Send',
		parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}', options: { maxConcurrent: 1 } },
	});
	const items = Array.from({ length: 4 }, (_, index) => ({ phone: `+1415555${String(2000 + index)}`, text: `retried ${index}` }));
	const { execution } = await runNode(e2e, send, { items });
	expect(execution.status).toBe('error');
	const retried = await e2e.rest.waitForExecution(await e2e.rest.retryExecution(execution.id));
	expect(retried.mode).toBe('retry');
	expect(retried.status, JSON.stringify(retried.data.resultData.error)).toBe('success');
	expect(outputItems(retried, 'Send').map((item) => item.success)).toEqual([true, true, true, true]);
	// Before: items 0 and 1 went again.
	const state = await e2e.emulator.state();
	expect(state.duplicates).toEqual([]);
	expect(state.deliveries).toBe(4);
});

test("a second Retry of the failed execution, after the first failed too: what that one delivered is not sent again", async () => {
	// The run: items 0 and 1 delivered, 2 refused. Its first Retry: 2 delivered, 3 refused. n8n
	// still offers Retry on the first execution (no retry of it succeeded).
	await e2e.emulator.setFaults({ script: ['ok', 'ok', 'success-false', 'ok', 'success-false'] });
	const send = packageNode(ctx, {
		name: 'Send',
		parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}', options: { maxConcurrent: 1 } },
	});
	const items = Array.from({ length: 4 }, (_, index) => ({ phone: `+1415555${String(2100 + index)}`, text: `retried twice ${index}` }));
	const { execution } = await runNode(e2e, send, { items });
	expect(execution.status).toBe('error');
	const firstRetry = await e2e.rest.waitForExecution(await e2e.rest.retryExecution(execution.id));
	expect(firstRetry.status).toBe('error');
	const secondRetry = await e2e.rest.waitForExecution(await e2e.rest.retryExecution(execution.id));
	expect(secondRetry.status, JSON.stringify(secondRetry.data.resultData.error)).toBe('success');
	// Before: item 2 went again (an outside review, n8n 2.41.1).
	const state = await e2e.emulator.state();
	expect(state.duplicates).toEqual([]);
	expect(state.deliveries).toBe(4);
});

describe('stopping is prompt through the real server', () => {
	const sendNode = (options: Record<string, unknown>) =>
		packageNode(ctx, {
			name: 'Send',
			parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: '={{ $json.text }}', options },
		});

	/**
	 * Runs Start -> Send over `items` from the editor's button, waits for the first request to reach
	 * the service (at most `firstSendMs`) and `sendingMs` more, then stops the execution as the
	 * editor's Stop does; it must end within `endMs`.
	 */
	async function runAndStop(
		name: string,
		send: ReturnType<typeof sendNode>,
		items: Array<Record<string, unknown>>,
		{ sendingMs, firstSendMs, endMs }: { sendingMs: number; firstSendMs: number; endMs: number },
	) {
		const workflow = await e2e.rest.createWorkflow({
			name,
			nodes: [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, send],
			connections: { Start: { main: [[{ node: 'Send', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
			pinData: { Start: items.map((json) => ({ json })) },
		});
		const started = await e2e.rest.runManually(workflow.id, { triggerToStartFrom: { name: 'Start' } });
		const executionId = started.executionId!;
		const deadline = Date.now() + firstSendMs;
		while ((await e2e.emulator.apiRequests()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
		if (sendingMs > 0) await new Promise((resolve) => setTimeout(resolve, sendingMs));
		const stopAt = Date.now();
		await e2e.rest.post(`/rest/executions/${executionId}/stop`, {});
		const execution = await e2e.rest.waitForExecution(executionId, endMs);
		expect(execution.status).toBe('canceled');
		return { stopAt, stoppedAt: Date.parse(String(execution.raw.stoppedAt)) };
	}

	test('the same run stopped from n8n ends within 1 s', async () => {
		// Not shared: the sends of the tests before would otherwise still count in this minute.
		const paced = sendNode({ maxPerMinute: 6, maxConcurrent: 4, shareLimitsAcrossExecutions: false });
		const items = Array.from({ length: 40 }, (_, index) => ({ phone: `+1415555${String(1000 + index)}`, text: `paced ${index}` }));
		// Stopped at the first send: the run is then sitting in its 10 s pacing waits.
		const { stopAt, stoppedAt } = await runAndStop('e2e paced run to stop', paced, items, { sendingMs: 0, firstSendMs: 20_000, endMs: 10_000 });
		expect(stoppedAt - stopAt).toBeLessThan(1_000);
		expect(await e2e.emulator.apiRequests()).toHaveLength(1);
		// n8n saves the execution at the cancel, without the node's list of what went: n8n's log has it.
		// Item 0's answer may still be on its way at the Stop: then it may have been delivered.
		const listed = /Send: the execution was cancelled\. (Sent before the run stopped|May have been delivered \(not sent again; check before resending\)): item 0\. Not sent: items 1-39\./;
		const logDeadline = Date.now() + 5_000;
		while (!listed.test(n8nLogText(e2e.ctx)) && Date.now() < logDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
		expect(n8nLogText(e2e.ctx)).toMatch(listed);
	});

	test('2,000 sends with the defaults (Auto) against a fast service: stopped from n8n within 1 s, nothing sent after', async () => {
		await e2e.emulator.setFaults({ latencyMs: 50 });
		const many = Array.from({ length: 2_000 }, (_, index) => ({ phone: `+1415${String(6_000_000 + index)}`, text: `auto ${index}` }));
		// A second of sending: Auto has grown past its opening round by then.
		const { stopAt, stoppedAt } = await runAndStop('e2e Auto run to stop', sendNode({ shareLimitsAcrossExecutions: false }), many, {
			sendingMs: 1_000,
			firstSendMs: 60_000,
			endMs: 20_000,
		});
		// Before: 1.2-2.7 s, n8n's event loop held by 200 answers in flight at a time.
		expect(stoppedAt - stopAt).toBeLessThan(1_000);
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		const requests = await e2e.emulator.apiRequests();
		expect(requests.filter((request) => request.at > stoppedAt + 5)).toEqual([]);
		expect(requests.length).toBeLessThan(many.length);
		expect((await e2e.emulator.state()).duplicates).toEqual([]);
	}, 120_000);
});
