/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The example workflows in examples/*.json, imported as a user would (their credentials
 * re-pointed at the emulator's), run through the real server by their own triggers:
 * - the CRM webhook: published, then its production webhook URL is called;
 * - the booking form: published, then the form is submitted like the browser does;
 * - the daily schedule: run manually (the editor's "Execute workflow").
 * Each must end in the sends the example promises at the emulator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { RequestRecord } from '../emulator/types';
import { REPO_ROOT } from './support/n8n';
import { MESSAGING, runSaved, useE2e, type CredentialType } from './support/harness';
import { callProductionUrl, outputItems, type SavedWorkflow, type WorkflowInput, type WorkflowNode } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;
const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01';

function loadExample(file: string): WorkflowInput {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowInput;
}

/** Re-points every credential at the one of the same type imported for the emulator. */
function withEmulatorCredentials(workflow: WorkflowInput): WorkflowInput {
	const nodes = (workflow.nodes as WorkflowNode[]).map((node) => {
		if (!node.credentials) return node;
		const credentials = Object.fromEntries(
			Object.keys(node.credentials).map((type) => {
				const ref = ctx.credentials[type as CredentialType];
				if (!ref) throw new Error(`Example node "${node.name}" uses credential type ${type}, which the package does not define`);
				return [type, ref];
			}),
		);
		return { ...node, credentials };
	});
	return { ...workflow, nodes };
}

const published: string[] = [];

async function importExample(file: string, publish: boolean): Promise<SavedWorkflow> {
	const example = withEmulatorCredentials(loadExample(file));
	// id and active are taken out only so that `rest` lacks them (n8n assigns both).
	// eslint-disable-next-line @typescript-eslint/no-unused-vars
	const { id: _ignored, active: _active, ...rest } = example;
	const workflow = await e2e.rest.createWorkflow({ ...rest, name: `${example.name} (e2e)` });
	if (publish) {
		await e2e.rest.activateWorkflow(workflow.id);
		published.push(workflow.id);
	}
	return workflow;
}

async function waitForRequests(count: number, api: RequestRecord['api'], timeoutMs = 30_000): Promise<RequestRecord[]> {
	const deadline = Date.now() + timeoutMs;
	while (true) {
		const requests = (await e2e.emulator.apiRequests()).filter((r) => r.api === api && r.status !== 0);
		if (requests.length >= count || Date.now() > deadline) return requests;
		await new Promise((r) => setTimeout(r, 200));
	}
}

async function lastExecutionOf(workflowId: string) {
	const deadline = Date.now() + 30_000;
	while (true) {
		const [latest] = await e2e.rest.listExecutions(workflowId);
		if (latest && !['new', 'running', 'waiting'].includes(latest.status)) return await e2e.rest.getExecution(latest.id);
		if (Date.now() > deadline) throw new Error(`No finished execution of workflow ${workflowId}`);
		await new Promise((r) => setTimeout(r, 200));
	}
}

beforeEach(async () => {
	await e2e.emulator.reset();
});

afterAll(async () => {
	for (const id of published) await e2e.rest.deactivateWorkflow(id).catch(() => {});
});

/** Every example must have a scenario below; a new example without one fails here. */
const COVERED = [
	'crm-webhook-direct-message-attachment.json',
	'form-submission-template-confirmation.json',
	'daily-schedule-appointment-reminders.json',
];

test('every example uses only node types this server knows, and the package nodes by their contract names', async () => {
	const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json'));
	expect(files.sort(), 'examples/*.json without a run scenario in test/e2e/examples.test.ts').toEqual([...COVERED].sort());
	const known = new Set((await e2e.rest.request<Array<{ name: string }>>('GET', '/types/nodes.json')).map((t) => t.name));
	for (const file of files) {
		const example = loadExample(file);
		for (const node of example.nodes as WorkflowNode[]) expect(known.has(node.type), `${file}: ${node.type}`).toBe(true);
		expect((example.nodes as WorkflowNode[]).some((n) => n.type === MESSAGING), `${file} uses the Messaging node`).toBe(true);
	}
});

describe('examples/crm-webhook-direct-message-attachment.json', () => {
	test('a CRM "deal won" call on the production webhook sends the message with the invoice attached', async () => {
		const workflow = await importExample('crm-webhook-direct-message-attachment.json', true);
		const webhook = (workflow.nodes as WorkflowNode[]).find((n) => n.type === 'n8n-nodes-base.webhook')!;
		const response = await callProductionUrl(`${ctx.baseUrl}/webhook/${String(webhook.parameters.path)}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				contact: { firstName: 'Ada', phone: '+44 20 7946 0958' },
				deal: { id: 'D-1001', invoiceUrl: 'https://example.com/invoices/D-1001.pdf' },
			}),
		});
		expect(response.status, await response.text()).toBe(200);

		const [send] = await waitForRequests(1, 'send');
		expect(send, 'the emulator received the direct send').toBeDefined();
		expect(send.headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);
		expect(send.body).toEqual({
			phone: '+442079460958',
			text: 'Hi Ada, thank you for your order D-1001! Your invoice is attached.',
			attachment: 'https://example.com/invoices/D-1001.pdf',
			filename: 'invoice-D-1001.pdf',
		});
		expect(send.status).toBe(200);

		const execution = await lastExecutionOf(workflow.id);
		expect(execution.status).toBe('success');
		expect(execution.mode).toBe('webhook');
	});
});

describe('examples/form-submission-template-confirmation.json', () => {
	test('submitting the booking form sends the appointment template with name and time', async () => {
		const workflow = await importExample('form-submission-template-confirmation.json', true);
		const form = (workflow.nodes as WorkflowNode[]).find((n) => n.type === 'n8n-nodes-base.formTrigger')!;
		const url = `${ctx.baseUrl}/form/${String(form.parameters.path ?? form.webhookId)}`;

		const page = await callProductionUrl(url, { method: 'GET' });
		const html = await page.text();
		expect(page.status).toBe(200);
		expect(html).toContain('Book an appointment');

		// What the form page's script posts: multipart fields named field-<index>.
		const body = new FormData();
		body.append('field-0', 'Grace Hopper');
		body.append('field-1', '+1 (415) 555-0123');
		body.append('field-2', 'Friday 10:30');
		const submitted = await callProductionUrl(url, { method: 'POST', body });
		expect(submitted.status, await submitted.text()).toBe(200);

		const [send] = await waitForRequests(1, 'templateSend');
		expect(send, 'the emulator received the template send').toBeDefined();
		expect(send.headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);
		expect(send.body).toEqual({
			template: APPOINTMENT_REMINDER,
			variables: { body1: 'Grace Hopper', body2: 'Friday 10:30' },
			phone_number: '+14155550123',
		});
		expect(send.status).toBe(200);
		const execution = await lastExecutionOf(workflow.id);
		expect(execution.status).toBe('success');
	});
});

describe('examples/daily-schedule-appointment-reminders.json', () => {
	test("a run sends one reminder template per appointment, with each customer's name and time", async () => {
		const workflow = await importExample('daily-schedule-appointment-reminders.json', false);
		const trigger = (workflow.nodes as WorkflowNode[]).find((n) => n.type === 'n8n-nodes-base.scheduleTrigger')!;
		const execution = await runSaved(e2e, workflow.id, { triggerToStartFrom: { name: trigger.name } });
		expect(execution.status, JSON.stringify(execution.data.resultData.error ?? null)).toBe('success');

		const sends = await waitForRequests(3, 'templateSend');
		expect(sends).toHaveLength(3);
		const tomorrow = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
		const byPhone = Object.fromEntries(sends.map((s) => [(s.body as { phone_number: string }).phone_number, s.body]));
		expect(byPhone).toEqual({
			'+442079460958': { template: APPOINTMENT_REMINDER, phone_number: '+442079460958', variables: { body1: 'Ada Lovelace', body2: `${tomorrow} 09:00` } },
			'+14155550123': { template: APPOINTMENT_REMINDER, phone_number: '+14155550123', variables: { body1: 'Grace Hopper', body2: `${tomorrow} 11:30` } },
			'+442079460999': { template: APPOINTMENT_REMINDER, phone_number: '+442079460999', variables: { body1: 'Alan Turing', body2: `${tomorrow} 15:15` } },
		});
		for (const send of sends) expect(send.headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);

		const sendNode = (workflow.nodes as WorkflowNode[]).find((n) => n.type === MESSAGING)!;
		const items = outputItems(execution, sendNode.name, 0);
		expect(items).toHaveLength(3);
		expect(items.every((item) => item.success === true)).toBe(true);
	});
});
