/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The package as n8n loads it from the Community Nodes folder: node types, credential
 * types, and the Tool variant n8n generates for `usableAsTool` nodes, used for real by an
 * MCP Server Trigger (an AI client calling the tool ends in a message at the service).
 */
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { MESSAGING, MESSAGING_TOOL, PKG, SANDBOX_PLANTS, useE2e } from './support/harness';
import { createMcpWorkflow, mcpCall, openMcpSession } from './support/mcp';

const e2e = useE2e();
const { ctx } = e2e;

interface NodeTypeDescription {
	name: string;
	displayName: string;
	version: number | number[];
	credentials?: Array<{ name: string; displayOptions?: unknown }>;
	properties: Array<{ name: string; type: string; options?: Array<{ value: unknown }> }>;
	outputs?: unknown;
	codex?: unknown;
}

const activated: string[] = [];
afterAll(async () => {
	for (const id of activated) await e2e.rest.deactivateWorkflow(id).catch(() => {});
});

beforeEach(async () => {
	await e2e.emulator.reset();
});

describe('n8n loaded the package', () => {
	test('node types n8n-nodes-messaging.messaging, .sandboxPlants and the tool variant', async () => {
		const types = await e2e.rest.request<NodeTypeDescription[]>('GET', '/types/nodes.json');
		const ours = types.filter((t) => t.name.startsWith(`${PKG}.`)).map((t) => t.name);
		expect(ours).toEqual(expect.arrayContaining([MESSAGING, SANDBOX_PLANTS, MESSAGING_TOOL]));

		const messaging = types.find((t) => t.name === MESSAGING)!;
		expect(messaging.displayName).toBe('Messaging');
		expect(messaging.credentials?.map((c) => c.name).sort()).toEqual(
			['messagingAuthorizationKeyApi', 'messagingBearerApi', 'messagingXApiKeyApi'].sort(),
		);
		const operations = messaging.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => p.options?.map((o) => o.value) ?? []);
		expect(operations).toEqual(expect.arrayContaining(['send', 'sendTemplate', 'sendDashboard', 'sendAlternative', 'getAll']));

		const plants = types.find((t) => t.name === SANDBOX_PLANTS)!;
		expect(plants.displayName).toBe('Sandbox Plants');
		// n8n adds its own "Custom API Call" entry (__CUSTOM_API_CALL__) to nodes with credentials.
		const plantOps = plants.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => p.options?.map((o) => o.value) ?? [])
			.filter((value) => value !== '__CUSTOM_API_CALL__');
		expect(plantOps.sort()).toEqual(['create', 'delete', 'getAll']);

		const tool = types.find((t) => t.name === MESSAGING_TOOL)!;
		expect(JSON.stringify(tool.outputs)).toContain('ai_tool');
	});

	test('credential types messagingBearerApi, messagingAuthorizationKeyApi, messagingXApiKeyApi', async () => {
		const types = await e2e.rest.request<Array<{ name: string; properties: Array<{ name: string; typeOptions?: { password?: boolean } }> }>>(
			'GET',
			'/types/credentials.json',
		);
		const byName = new Map(types.map((t) => [t.name, t]));
		const expected: Record<string, string[]> = {
			messagingBearerApi: ['accessToken', 'sendBaseUrl', 'templateSendBaseUrl', 'templatesBaseUrl', 'sandboxBaseUrl'],
			messagingAuthorizationKeyApi: ['apiKey', 'dashboardUrl'],
			messagingXApiKeyApi: ['apiKey', 'apiUrl'],
		};
		for (const [name, properties] of Object.entries(expected)) {
			const type = byName.get(name);
			expect(type, `credential type ${name}`).toBeDefined();
			expect(type!.properties.map((p) => p.name)).toEqual(expect.arrayContaining(properties));
			const secret = type!.properties.find((p) => p.name === properties[0])!;
			expect(secret.typeOptions?.password, `${name}.${properties[0]} is a password field`).toBe(true);
		}
		const saved = await e2e.rest.get<Array<{ id: string; type: string }>>('/rest/credentials');
		for (const [type, ref] of Object.entries(ctx.credentials)) {
			expect(saved).toContainEqual(expect.objectContaining({ id: ref.id, type }));
		}
	});

	test('the package loaded without errors or warnings in the n8n start-up log', async () => {
		const { readFileSync } = await import('node:fs');
		const log = readFileSync(ctx.n8nLog, 'utf8');
		const ready = log.indexOf('Editor is now accessible');
		expect(ready, 'n8n logged that the editor is accessible').toBeGreaterThan(0);
		const startup = log.slice(0, ready);
		const ours = startup.split('\n').filter((line) => line.includes(PKG) || /messaging/i.test(line));
		expect(ours, ours.join('\n')).toEqual([]);
	});
});

describe('Tool variant (n8n-nodes-messaging.messagingTool)', () => {
	test('is saved and published without an unknown-node error, and an MCP client can send a message with it', async () => {
		const path = `messaging-e2e-${Date.now()}`;
		const workflow = await createMcpWorkflow(e2e, path, 'Send Message', {
			descriptionType: 'manual',
			toolDescription: 'Send a text message to a phone number',
			resource: 'message',
			operation: 'send',
			phone: "={{ $fromAI('phone', 'Recipient number in E.164 format', 'string') }}",
			text: "={{ $fromAI('text', 'The message text', 'string') }}",
		});
		const saved = await e2e.rest.getWorkflow(workflow.id);
		expect(saved.nodes.map((n) => n.type)).toContain(MESSAGING_TOOL);

		activated.push(workflow.id);
		const mcp = await openMcpSession(e2e, workflow.id, path);

		const list = await mcpCall(mcp.url, { id: 2, method: 'tools/list', params: {} }, mcp.session);
		const tools = (list.body?.result?.tools ?? []) as Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }>;
		const tool = tools.find((t) => /send.?message/i.test(t.name));
		expect(tool, JSON.stringify(list.body)).toBeDefined();
		expect(Object.keys(tool!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['phone', 'text']));

		const call = await mcp.callTool(tool!.name, { phone: '+14155550123', text: 'Sent by an AI tool' }, 3);
		expect(call.body?.error, JSON.stringify(call.body)).toBeUndefined();
		const content = JSON.stringify(call.body?.result?.content ?? []);
		expect(content).toContain('Message sent successfully');
		expect(content).not.toContain(ctx.tokens.bearer);

		const requests = await e2e.emulator.apiRequests();
		expect(requests).toHaveLength(1);
		expect(requests[0].headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);
		expect(requests[0].body).toEqual({ phone: '+14155550123', text: 'Sent by an AI tool' });
	});
});
