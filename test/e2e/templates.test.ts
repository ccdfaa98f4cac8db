/**
 * Send Template through the real server counts each item's values against the template as the
 * service has it when the run starts: a template chosen by an expression (or by an AI through
 * the Tool variant) or a workflow saved before the template changed cannot send a message that
 * lacks a value. Nothing is sent when any item fails that count. Whether a template may be sent
 * (its status) is the template send's to say: such a message goes, and its refusal comes back.
 */
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { RequestRecord } from '../emulator/types';
import { packageNode, runNode, useE2e } from './support/harness';
import { createMcpWorkflow, mcpCall, openMcpSession } from './support/mcp';
import { outputItems, type ExecutionResult } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;

const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01';
const RECORDATORIO_PAGO = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c05';
const SPRING_SALE = 'deadbeef-5678-4bcd-9ef0-123456789a04';
const FEATURE_ANNOUNCEMENT = 'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06';

/** The resource mapper value as the editor saves it: values, and the fields it showed. */
function savedVariables(values: Record<string, string>, fields = Object.keys(values)) {
	return {
		mappingMode: 'defineBelow',
		value: values,
		matchingColumns: [],
		schema: fields.map((id) => ({ id, displayName: id, required: true, defaultMatch: false, display: true, type: 'string', canBeUsedToMatch: false })),
		attemptToConvertTypes: false,
		convertFieldsToString: true,
	};
}

const templateNode = (template: string, variables: unknown) =>
	packageNode(ctx, {
		name: 'Send Template',
		parameters: {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'id', value: template },
			variables,
		},
	});

async function requestsTo(api: string): Promise<RequestRecord[]> {
	return (await e2e.emulator.apiRequests()).filter((request) => request.api === api);
}

/** The run failed in the Send Template node with `message`, after one templates read and no send. */
async function expectFailedBeforeSending(execution: ExecutionResult, message: string | RegExp): Promise<void> {
	expect(execution.status).toBe('error');
	const error = execution.data.resultData.error;
	expect(error?.node?.name).toBe('Send Template');
	if (typeof message === 'string') expect(error?.message).toBe(message);
	else expect(error?.message).toMatch(message);
	expect(await requestsTo('templates')).toHaveLength(1);
	expect(await requestsTo('templateSend')).toEqual([]);
	expect((await e2e.emulator.state()).deliveries).toBe(0);
}

const activated: string[] = [];
afterAll(async () => {
	for (const id of activated) await e2e.rest.deactivateWorkflow(id).catch(() => {});
});

beforeEach(async () => {
	await e2e.emulator.reset();
});

describe('Send Template against the live template', () => {
	test('a template chosen by an expression: an item missing a variable of its template stops the run before any send', async () => {
		// The editor loads no fields for an expression: the saved schema is empty.
		const node = templateNode('={{ $json.template }}', {
			mappingMode: 'defineBelow',
			value: { body1: '={{ $json.first }}', body2: '={{ $json.second }}' },
			matchingColumns: [],
			schema: [],
		});
		const { execution } = await runNode(e2e, node, {
			items: [
				{ template: APPOINTMENT_REMINDER, first: 'Ada', second: 'Friday' },
				{ template: RECORDATORIO_PAGO, first: 'Ana', second: '20 €' },
			],
		});
		await expectFailedBeforeSending(
			execution,
			'Variables (variables): template "recordatorio_pago" needs a value for "Body 3: …{2} vence el {3}."; it takes 3 (body1, body2, body3) [item 1]',
		);
	});

	test('a saved schema gone stale (the template gained a variable in the dashboard) fails before sending', async () => {
		const node = templateNode(APPOINTMENT_REMINDER, savedVariables({ body1: 'Ada', body2: 'Friday' }));
		await e2e.emulator.setTemplate({ template_id: APPOINTMENT_REMINDER, template_formate: 'Hello [b:1], your appointment on [b:2] is at [b:3].' });
		const { execution, workflow } = await runNode(e2e, node);
		await expectFailedBeforeSending(
			execution,
			'Variables (variables): template "appointment_reminder" needs a value for "Body 3: …on {2} is at {3}."; it takes 3 (body1, body2, body3) [item 0]',
		);
		// The saved workflow keeps what the editor saved; the live template is what is enforced.
		const saved = await e2e.rest.getWorkflow(workflow.id);
		const variables = saved.nodes.find((n) => n.name === 'Send Template')!.parameters.variables as { schema: Array<{ id: string }> };
		expect(variables.schema.map((field) => field.id)).toEqual(['body1', 'body2']);
	});

	test('a rejected or a pending template fails before sending: the platform does not send it (rejected) or not yet (pending)', async () => {
		for (const [template, values, said] of [
			[SPRING_SALE, { body1: '20%' }, 'Template (template): template "spring_sale" is REJECTED, cannot be sent; choose an approved template [item 0]'],
			[FEATURE_ANNOUNCEMENT, { body1: 'Ada', visit_website: 'new' }, 'Template (template): template "feature_announcement" is PENDING, cannot be sent yet; choose an approved template [item 0]'],
		] as const) {
			await e2e.emulator.reset();
			const { execution } = await runNode(e2e, templateNode(template, savedVariables(values)));
			await expectFailedBeforeSending(execution, said);
		}
	});

	test('one templates request per execution, however many items: 20 items, 1 read, 20 sends', async () => {
		const node = templateNode(APPOINTMENT_REMINDER, savedVariables({ body1: '={{ $json.name }}', body2: 'Friday' }));
		const items = Array.from({ length: 20 }, (_, index) => ({ name: `Customer ${index}` }));
		const { execution } = await runNode(e2e, node, { items });
		expect(execution.status, JSON.stringify(execution.data.resultData.error)).toBe('success');
		expect(outputItems(execution, 'Send Template')).toHaveLength(20);
		const requests = await e2e.emulator.apiRequests();
		expect(requests.filter((request) => request.api === 'templates')).toHaveLength(1);
		expect(requests.filter((request) => request.api === 'templateSend')).toHaveLength(20);
		expect(requests[0].api).toBe('templates');
	});
});

describe('Send Template as an AI tool ($fromAI), over MCP', () => {
	test('the template and its variables from the AI get the same checks: a missing variable or an unapproved template sends nothing', async () => {
		const path = `messaging-e2e-template-${Date.now()}`;
		const workflow = await createMcpWorkflow(e2e, path, 'Send Template Message', {
			descriptionType: 'manual',
			toolDescription: 'Send a template message to a phone number',
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: "={{ $fromAI('phone', 'Recipient number in E.164 format', 'string') }}",
			template: { __rl: true, mode: 'id', value: "={{ $fromAI('template', 'The template ID', 'string') }}" },
			variables: {
				mappingMode: 'defineBelow',
				value: {
					body1: "={{ $fromAI('body1', 'First variable of the template', 'string') }}",
					body2: "={{ $fromAI('body2', 'Second variable of the template', 'string') }}",
				},
				matchingColumns: [],
				schema: [],
			},
		});
		activated.push(workflow.id);
		const mcp = await openMcpSession(e2e, workflow.id, path);
		const list = await mcpCall(mcp.url, { id: 2, method: 'tools/list', params: {} }, mcp.session);
		const tool = ((list.body?.result?.tools ?? []) as Array<{ name: string }>).find((t) => /template/i.test(t.name));
		expect(tool, JSON.stringify(list.body)).toBeDefined();

		// recordatorio_pago takes three variables; the AI gives two.
		const missing = await mcp.callTool(tool!.name, { phone: '+14155550123', template: RECORDATORIO_PAGO, body1: 'Ana', body2: '20 €' }, 3);
		expect(JSON.stringify(missing.body)).toContain('template \\"recordatorio_pago\\" needs a value for \\"Body 3: …{2} vence el {3}.\\"; it takes 3 (body1, body2, body3)');
		expect(await requestsTo('templateSend')).toEqual([]);

		const rejected = await mcp.callTool(tool!.name, { phone: '+14155550123', template: SPRING_SALE, body1: '20%', body2: '' }, 4);
		expect(JSON.stringify(rejected.body)).toContain('template \\"spring_sale\\" is REJECTED, cannot be sent');
		expect(await requestsTo('templateSend')).toEqual([]);
		await e2e.emulator.reset();

		const sent = await mcp.callTool(tool!.name, { phone: '+14155550123', template: APPOINTMENT_REMINDER, body1: 'Ada', body2: 'Friday' }, 5);
		expect(sent.body?.error, JSON.stringify(sent.body)).toBeUndefined();
		expect(JSON.stringify(sent.body?.result?.content ?? [])).toContain('wamid.');
		const sends = await requestsTo('templateSend');
		expect(sends.map((request) => request.body)).toEqual([
			{ template: APPOINTMENT_REMINDER, variables: { body1: 'Ada', body2: 'Friday' }, phone_number: '+14155550123' },
		]);
		// Each tool call is an execution of its own: one templates read each (the emulator was reset before this one).
		expect(await requestsTo('templates')).toHaveLength(1);
	});
});
