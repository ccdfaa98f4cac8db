/**
 * Failures the service reports, through the real server: with "Continue On Fail" the item
 * carries `error` with the service's reason and the run goes on; without it the execution
 * fails and its error message carries the reason. One case per error body of spec part 7.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { expectNoSecrets, noOp, packageNode, runNode, SANDBOX_PLANTS, useE2e } from './support/harness';
import { outputItems, type ExecutionResult } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;

const sendNode = (continueOnFail: boolean) =>
	packageNode(ctx, {
		name: 'Send',
		continueOnFail,
		parameters: { resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'Hello' },
	});

function failure(execution: ExecutionResult) {
	const error = execution.data.resultData.error;
	expect(error, 'the execution has an error').toBeDefined();
	return error!;
}

beforeEach(async () => {
	await e2e.emulator.reset();
});

describe('no credits (direct send: {message: "Message sending failed | Reason: ..."})', () => {
	test('with Continue On Fail: every item gets `error` with the reason, the next node still runs', async () => {
		await e2e.emulator.setAccount({ credits: 0 });
		const { execution } = await runNode(e2e, sendNode(true), {
			items: [{ phone: '+14155550123' }, { phone: '+14155550124' }],
			after: [noOp('After')],
		});
		expect(execution.status).toBe('success');
		const items = outputItems(execution, 'Send');
		expect(items).toHaveLength(2);
		for (const item of items) expect(String(item.error)).toMatch(/Insufficient credits/i);
		expect(outputItems(execution, 'After')).toHaveLength(2);
		expect(expectNoSecrets(ctx, execution.raw)).toEqual([]);

		const requests = await e2e.emulator.apiRequests();
		expect(requests.length).toBeGreaterThanOrEqual(1);
		expect(requests[0]).toMatchObject({ api: 'send', status: 403 });
		expect((await e2e.emulator.state()).deliveries).toBe(0);
	});

	test('without Continue On Fail: the execution fails with the reason in its message', async () => {
		await e2e.emulator.setAccount({ credits: 0 });
		const { execution } = await runNode(e2e, sendNode(false), { items: [{ phone: '+14155550123' }], after: [noOp('After')] });
		expect(execution.status).toBe('error');
		const error = failure(execution);
		expect(error.message).toMatch(/Insufficient credits/i);
		expect(error.node?.name).toBe('Send');
		expect(execution.data.resultData.runData.After).toBeUndefined();
		expect(expectNoSecrets(ctx, execution.raw)).toEqual([]);
	});
});

test('"Continue (using error output)": the failed item goes to the error output, the sent one to the success output (on n8n 1.x too, which routes only `error` with at most `message`)', async () => {
	const node = { ...sendNode(false), onError: 'continueErrorOutput' as const };
	const { execution } = await runNode(e2e, node, { items: [{ phone: '+14155550123' }, { phone: 'not a number' }] });
	expect(execution.status).toBe('success');
	expect(outputItems(execution, 'Send', 0)).toEqual([expect.objectContaining({ success: true, to: '+14155550123' })]);
	// n8n adds the input item's fields to an item on the error output.
	expect(outputItems(execution, 'Send', 1)).toEqual([{ phone: 'not a number', error: expect.stringMatching(/Phone \(phone\)/), message: expect.stringMatching(/international format/) }]);
	expect((await e2e.emulator.state()).deliveries).toBe(1);
});

// A rejected template never reaches the service (the node checks the live template first,
// see templates.test.ts); an account without credits is what the template send itself refuses.
test('template send ({error: {code, message}}): no credits fails with the service reason', async () => {
	await e2e.emulator.setAccount({ credits: 0 });
	const node = packageNode(ctx, {
		name: 'Send Template',
		parameters: {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'id', value: '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01' }, // appointment_reminder
			variables: { mappingMode: 'defineBelow', value: { body1: 'Ada', body2: 'Friday' }, matchingColumns: [], schema: [] },
		},
	});
	const { execution } = await runNode(e2e, node);
	expect(execution.status).toBe('error');
	expect(failure(execution).message).toMatch(/Insufficient credits, account balance too low/);
	expect((await e2e.emulator.apiRequests()).find((r) => r.api === 'templateSend')).toMatchObject({ status: 402 });
});

test('dashboard send ({success: false, message, details}): an expired subscription fails with the service reason', async () => {
	await e2e.emulator.setAccount({ subscriptionExpired: true });
	const node = packageNode(ctx, {
		name: 'Dashboard',
		credential: 'messagingAuthorizationKeyApi',
		parameters: { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'Hi' },
	});
	const { execution } = await runNode(e2e, node);
	expect(execution.status).toBe('error');
	const error = failure(execution);
	expect(`${error.message} ${error.description ?? ''}`).toMatch(/Subscription expired/i);
});

test('sandbox ({error: <int>, message}): creating a plant with a taken id fails with the service reason', async () => {
	const node = packageNode(ctx, {
		type: SANDBOX_PLANTS,
		name: 'Create',
		parameters: { resource: 'plant', operation: 'create', name: 'Clone', plantId: 1 },
	});
	const { execution } = await runNode(e2e, node);
	expect(execution.status).toBe('error');
	expect(failure(execution).message).toMatch(/A plant with id 1 already exists/);
});
