/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error, @typescript-eslint/no-explicit-any -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The Messaging node's Tool variant behind an MCP Server Trigger, called by an MCP client:
 * how an AI agent uses the node, without an LLM in the test.
 */
import { randomUUID } from 'node:crypto';
import type { E2e } from './harness';
import { MESSAGING_TOOL } from './harness';
import type { RestError, SavedWorkflow } from './rest';

export interface McpAnswer {
	status: number;
	session?: string;
	body?: { result?: any; error?: any };
}

/** One JSON-RPC call over MCP's streamable HTTP transport (answers may come as SSE). */
export async function mcpCall(url: string, message: Record<string, unknown>, sessionId?: string): Promise<McpAnswer> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			...(sessionId ? { 'mcp-session-id': sessionId } : {}),
		},
		body: JSON.stringify({ jsonrpc: '2.0', ...message }),
		signal: AbortSignal.timeout(60_000),
	});
	const text = await response.text();
	const session = response.headers.get('mcp-session-id') ?? sessionId ?? undefined;
	if (!('id' in message)) return { status: response.status, session, body: undefined };
	const json = text.trim().startsWith('{')
		? JSON.parse(text)
		: JSON.parse(
				text
					.split('\n')
					.filter((line) => line.startsWith('data:'))
					.map((line) => line.slice(5).trim())
					.pop() ?? 'null',
			);
	return { status: response.status, session, body: json as McpAnswer['body'] };
}

/** A workflow with an MCP Server Trigger at `path` and one Messaging tool named `toolName`. */
export async function createMcpWorkflow(
	e2e: E2e,
	path: string,
	toolName: string,
	parameters: Record<string, unknown>,
): Promise<SavedWorkflow> {
	const trigger = {
		id: randomUUID(),
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		position: [0, 0] as [number, number],
		parameters: { path },
		webhookId: randomUUID(),
	};
	const tool = {
		id: randomUUID(),
		name: toolName,
		type: MESSAGING_TOOL,
		typeVersion: 1,
		position: [0, 200] as [number, number],
		parameters,
		credentials: { messagingBearerApi: e2e.ctx.credentials.messagingBearerApi },
	};
	return await e2e.rest.createWorkflow({
		name: `e2e messaging tool over MCP ${path}`,
		nodes: [trigger, tool],
		connections: { [toolName]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
}

export interface McpSession {
	url: string;
	session?: string;
	/** Calls a tool by name with the arguments an AI would give. */
	callTool(name: string, args: Record<string, unknown>, id: number): Promise<McpAnswer>;
}

/** Publishes the workflow and opens an MCP session on its trigger (the webhook answers a moment after publishing). */
export async function openMcpSession(e2e: E2e, workflowId: string, path: string): Promise<McpSession> {
	try {
		await e2e.rest.activateWorkflow(workflowId);
	} catch (error) {
		throw new Error(`Publishing a workflow with the Messaging tool failed: ${(error as RestError).message}`);
	}
	const url = `${e2e.ctx.baseUrl}/mcp/${path}`;
	const initialize = {
		id: 1,
		method: 'initialize',
		params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } },
	};
	let init = await mcpCall(url, initialize);
	for (let attempt = 0; init.status === 404 && attempt < 40; attempt++) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		init = await mcpCall(url, initialize);
	}
	if (init.status !== 200) throw new Error(`MCP initialize answered ${init.status}: ${JSON.stringify(init.body)}`);
	await mcpCall(url, { method: 'notifications/initialized' }, init.session);
	return {
		url,
		session: init.session,
		callTool: async (name, args, id) => await mcpCall(url, { id, method: 'tools/call', params: { name, arguments: args } }, init.session),
	};
}
