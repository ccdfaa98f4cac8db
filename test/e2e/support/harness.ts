/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * What the e2e test files share: the server and emulator the global setup started, and
 * builders that turn "this node with these parameters" into a saved workflow that is run
 * through n8n's REST API the way the editor runs it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { E2eContext } from '../globalSetup';
import { EmulatorClient } from './emulatorClient';
import { N8nRest, type ExecutionResult, type SavedWorkflow, type WorkflowNode } from './rest';

export const PKG = 'n8n-nodes-messaging';

/** What n8n has written to its log so far (the global setup's n8n.log). */
export const n8nLogText = (ctx: E2eContext): string => readFileSync(ctx.n8nLog, 'utf8');
export const MESSAGING = `${PKG}.messaging`;
export const MESSAGING_TOOL = `${PKG}.messagingTool`;
export const SANDBOX_PLANTS = `${PKG}.sandboxPlants`;

export type CredentialType = 'messagingBearerApi' | 'messagingAuthorizationKeyApi' | 'messagingXApiKeyApi';

export interface E2e {
	ctx: E2eContext;
	rest: N8nRest;
	emulator: EmulatorClient;
}

export function useE2e(): E2e {
	const ctx = inject('e2e');
	const rest = new N8nRest(ctx.baseUrl, ctx.installDir);
	rest.useCookie(ctx.cookie);
	return { ctx, rest, emulator: new EmulatorClient(ctx.emulatorUrl) };
}

export const TRIGGER_NAME = 'Start';

export function manualTrigger(): WorkflowNode {
	return {
		id: randomUUID(),
		name: TRIGGER_NAME,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

export function noOp(name = 'After'): WorkflowNode {
	return { id: randomUUID(), name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [600, 0], parameters: {} };
}

export function packageNode(
	ctx: E2eContext,
	options: {
		type?: string;
		name?: string;
		parameters: Record<string, unknown>;
		credential?: CredentialType;
		continueOnFail?: boolean;
	},
): WorkflowNode {
	const credential = options.credential ?? 'messagingBearerApi';
	return {
		id: randomUUID(),
		name: options.name ?? 'Node Under Test',
		type: options.type ?? MESSAGING,
		typeVersion: 1,
		position: [300, 0],
		parameters: options.parameters,
		credentials: { [credential]: ctx.credentials[credential] },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
}

/** Main connections that chain the nodes in the order given. */
export function chain(nodes: WorkflowNode[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return connections;
}

export interface RunOptions {
	/** Items the manual trigger outputs (pinned); one empty item when omitted. */
	items?: Array<Record<string, unknown>>;
	/** Extra nodes after the node under test. */
	after?: WorkflowNode[];
	name?: string;
}

export interface RunResult {
	workflow: SavedWorkflow;
	execution: ExecutionResult;
}

let counter = 0;

/** Saves Start -> node (-> after...) and runs it like the editor's "Execute workflow". */
export async function runNode(e2e: E2e, node: WorkflowNode, options: RunOptions = {}): Promise<RunResult> {
	const trigger = manualTrigger();
	const nodes = [trigger, node, ...(options.after ?? [])];
	const workflow = await e2e.rest.createWorkflow({
		name: options.name ?? `e2e ${++counter} ${node.name} ${String(node.parameters.operation ?? '')}`,
		nodes,
		connections: chain(nodes),
		settings: { executionOrder: 'v1' },
		pinData: { [TRIGGER_NAME]: (options.items ?? [{}]).map((json) => ({ json })) },
	});
	const execution = await runSaved(e2e, workflow.id, { triggerToStartFrom: { name: TRIGGER_NAME } });
	return { workflow, execution };
}

export async function runSaved(e2e: E2e, workflowId: string, body: Record<string, unknown>): Promise<ExecutionResult> {
	const started = await e2e.rest.runManually(workflowId, body);
	if (!started.executionId) throw new Error(`The run did not start: ${JSON.stringify(started)}`);
	return await e2e.rest.waitForExecution(started.executionId);
}

/** No secret of the emulator's credentials anywhere in what n8n stored for the run. */
export function expectNoSecrets(ctx: E2eContext, value: unknown): string[] {
	const text = JSON.stringify(value);
	const secrets = [ctx.tokens.bearer, ctx.tokens.dashboardKey, ctx.tokens.alternativeKey];
	return secrets.filter((secret) => text.includes(secret));
}
