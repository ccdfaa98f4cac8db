/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * A small client of n8n 2.41's internal REST API (what the editor uses), authenticated with
 * the `n8n-auth` cookie of a login. Answers come wrapped in `{data}`; this unwraps them.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { N8N_LINE } from './n8n';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: Owner = {
	email: 'owner@example.com',
	password: 'E2e-Password-1',
	firstName: 'Erin',
	lastName: 'Owner',
};

export class RestError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
		what: string,
	) {
		super(`${what} -> HTTP ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 2000));
	}
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	continueOnFail?: boolean;
	onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
	/** n8n's node setting Retry On Fail: the whole node runs again, up to maxTries, waitBetweenTries ms apart. */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	webhookId?: string;
	disabled?: boolean;
}

/** A Webhook trigger on `path` (POST, answering as soon as the call is received), named Webhook. */
export function webhookTrigger(path: string): WorkflowNode {
	return {
		id: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

/** A call to a published workflow's production URL. Those answer 404 for a moment after publishing (nothing started): retried briefly. */
export async function callProductionUrl(url: string, init: RequestInit): Promise<Response> {
	for (let attempt = 0; ; attempt++) {
		const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
		if (response.status !== 404 || attempt >= 40) return response;
		await response.arrayBuffer();
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** POSTs `body` as JSON to a production webhook URL; throws unless it answers 2xx. */
export async function postToWebhook(url: string, body: unknown): Promise<void> {
	const response = await callProductionUrl(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	const text = await response.text();
	if (!response.ok) throw new Error(`Webhook call ${JSON.stringify(body)} -> HTTP ${response.status}: ${text.slice(0, 500)}`);
}

/** Whether an execution's status is final (not new, running, waiting or unknown). */
export const isFinished = (status: string): boolean => !['new', 'running', 'waiting', 'unknown'].includes(status);

export interface WorkflowInput {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface SavedWorkflow extends WorkflowInput {
	id: string;
	versionId: string;
	active: boolean;
	checksum?: string;
}

/** One node's run in an execution: its items, or its error. */
export interface NodeRun {
	executionStatus?: string;
	error?: { message?: string; description?: string; name?: string; [key: string]: unknown };
	data?: { main?: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }> | null> };
	[key: string]: unknown;
}

export interface ExecutionResult {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	/** The parsed run data (n8n stores it as a `flatted` string). */
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message?: string; description?: string; node?: { name?: string }; [key: string]: unknown };
			lastNodeExecuted?: string;
		};
	};
	raw: Record<string, unknown>;
}

export class N8nRest {
	private cookie = '';

	constructor(
		readonly baseUrl: string,
		/** Folder of the n8n install: its `flatted` reads execution data exactly as the editor does. */
		private readonly installDir: string,
	) {}

	get authCookie(): string {
		return this.cookie;
	}

	useCookie(cookie: string): void {
		this.cookie = cookie;
	}

	async request<T = unknown>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: {
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...(this.cookie ? { cookie: this.cookie } : {}),
				accept: 'application/json',
				...extraHeaders,
			},
			body: body !== undefined ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(120_000),
		});
		const text = await response.text();
		let parsed: unknown = text;
		try {
			parsed = text === '' ? undefined : JSON.parse(text);
		} catch {
			/* keep text */
		}
		if (!response.ok) throw new RestError(response.status, parsed, `${method} ${path}`);
		const setCookie = response.headers.getSetCookie?.() ?? [];
		const auth = setCookie.find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		if (parsed && typeof parsed === 'object' && 'data' in (parsed as object)) return (parsed as { data: T }).data;
		return parsed as T;
	}

	get = <T = unknown>(path: string) => this.request<T>('GET', path);
	post = <T = unknown>(path: string, body?: unknown) => this.request<T>('POST', path, body ?? {});
	patch = <T = unknown>(path: string, body?: unknown) => this.request<T>('PATCH', path, body ?? {});
	delete = <T = unknown>(path: string) => this.request<T>('DELETE', path);

	/** POST /rest/owner/setup; a second call (owner exists) is ignored. */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		try {
			await this.post('/rest/owner/setup', owner);
		} catch (error) {
			if (!(error instanceof RestError) || error.status !== 400) throw error;
		}
	}

	async login(owner: Owner = DEFAULT_OWNER): Promise<void> {
		await this.post('/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		if (!this.cookie) throw new Error('Login answered without an n8n-auth cookie');
	}

	async createWorkflow(workflow: WorkflowInput): Promise<SavedWorkflow> {
		return await this.post<SavedWorkflow>('/rest/workflows', { active: false, settings: {}, ...workflow });
	}

	/** Saves a credential as the editor's credential dialog does; answers with its id. */
	async createCredential(name: string, type: string, data: Record<string, unknown>): Promise<{ id: string; name: string }> {
		const saved = await this.post<{ id: string | number; name: string }>('/rest/credentials', { name, type, data });
		return { id: String(saved.id), name: saved.name };
	}

	async getWorkflow(id: string): Promise<SavedWorkflow> {
		return await this.get<SavedWorkflow>(`/rest/workflows/${id}`);
	}

	/** Publishes (activates) a saved workflow: its triggers and production webhooks go live. */
	async activateWorkflow(id: string): Promise<SavedWorkflow> {
		const current = await this.getWorkflow(id);
		return await this.post<SavedWorkflow>(`/rest/workflows/${id}/activate`, {
			versionId: current.versionId,
			expectedChecksum: current.checksum,
		});
	}

	async deactivateWorkflow(id: string): Promise<void> {
		await this.post(`/rest/workflows/${id}/deactivate`, {});
	}

	/**
	 * What the editor's "Execute workflow" button does: POST /rest/workflows/:id/run. n8n 1.x
	 * reads the workflow from the request (its editor sends it along), 2.x the saved one.
	 */
	async runManually(id: string, body: Record<string, unknown>): Promise<{ executionId?: string; waitingForWebhook?: boolean }> {
		const workflowData = N8N_LINE === 1 ? { workflowData: await this.getWorkflow(id) } : {};
		return await this.post(`/rest/workflows/${id}/run`, { ...workflowData, ...body });
	}

	/**
	 * The Retry button of a failed execution: POST /rest/executions/:id/retry. n8n runs a new
	 * execution (mode "retry") from the node that failed; it answers with the new execution, or
	 * its id (the shape differs between versions).
	 */
	async retryExecution(id: string, loadWorkflow = false): Promise<string> {
		const answer = await this.post<unknown>(`/rest/executions/${id}/retry`, { loadWorkflow });
		const found = typeof answer === 'object' && answer !== null ? (answer as { id?: unknown }).id : answer;
		if (typeof found !== 'string' && typeof found !== 'number') throw new Error(`The retry did not start: ${JSON.stringify(answer)}`);
		return String(found);
	}

	/** Reads one execution, parsing its flatted data. */
	async getExecution(id: string): Promise<ExecutionResult> {
		const raw = await this.get<Record<string, unknown>>(`/rest/executions/${id}`);
		const data = typeof raw.data === 'string' ? this.unflatten(raw.data) : raw.data;
		return {
			id: String(raw.id),
			status: String(raw.status),
			finished: raw.finished === true,
			mode: String(raw.mode),
			data: data as ExecutionResult['data'],
			raw,
		};
	}

	/** Polls until the execution is no longer new/running/waiting. */
	async waitForExecution(id: string, timeoutMs = 60_000): Promise<ExecutionResult> {
		const deadline = Date.now() + timeoutMs;
		while (true) {
			try {
				const execution = await this.getExecution(id);
				// n8n 1.x can report the final status a moment before the run's data is stored.
				if (isFinished(execution.status) && execution.data?.resultData !== undefined) return execution;
			} catch (error) {
				if (!(error instanceof RestError) || error.status !== 404) throw error;
			}
			if (Date.now() > deadline) throw new Error(`Execution ${id} did not finish within ${timeoutMs} ms`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** Newest executions of a workflow (for runs started by a trigger, not by us). */
	async listExecutions(workflowId: string, limit = 50): Promise<Array<{ id: string; status: string; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.get<{ results: Array<{ id: string; status: string; mode: string }> }>(
			`/rest/executions?filter=${filter}&limit=${limit}`,
		);
		return page.results;
	}

	/** Polls a workflow's executions every `pollMs` until `count` have started and all of them finished; throws at `deadline`. */
	async waitForExecutionsOf(workflowId: string, count: number, deadline: number, pollMs = 1_000): Promise<Array<{ id: string; status: string; mode: string }>> {
		while (true) {
			const executions = await this.listExecutions(workflowId, count + 10);
			if (executions.length >= count && executions.every((execution) => isFinished(execution.status))) return executions;
			if (Date.now() > deadline) {
				const byStatus: Record<string, number> = {};
				for (const { status } of executions) byStatus[status] = (byStatus[status] ?? 0) + 1;
				throw new Error(`Not all ${count} executions finished in time: ${JSON.stringify(byStatus)}`);
			}
			await new Promise((r) => setTimeout(r, pollMs));
		}
	}

	private unflatten(text: string): unknown {
		const requireFromN8n = createRequire(join(this.installDir, 'node_modules', 'n8n', 'package.json'));
		const flatted = requireFromN8n('flatted') as { parse(text: string): unknown };
		return flatted.parse(text);
	}
}

/** Items of a node's first run, first output (what the editor shows as the node's output). */
export function outputItems(execution: ExecutionResult, nodeName: string, outputIndex = 0): Array<Record<string, unknown>> {
	const runs = execution.data.resultData.runData[nodeName];
	if (!runs || runs.length === 0) {
		throw new Error(
			`Node "${nodeName}" did not run; ran: ${Object.keys(execution.data.resultData.runData).join(', ')}; error: ${JSON.stringify(execution.data.resultData.error)}`,
		);
	}
	const items = runs[0].data?.main?.[outputIndex] ?? [];
	return items.map((item) => item.json);
}

export function fullItems(execution: ExecutionResult, nodeName: string, outputIndex = 0) {
	return execution.data.resultData.runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [];
}
