/**
 * Runs workflow JSON through n8n-core's WorkflowExecute (the real engine: paired items,
 * continueOnFail / onError routing, retries, expression evaluation, credentials).
 */
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	IConnections,
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	IRun,
	ITaskData,
	IWorkflowSettings,
	Workflow,
} from 'n8n-workflow';

import { createAdditionalData, nextExecutionId, workflowBase } from './additional-data';
import { HarnessCredentialsHelper } from './credentials-helper';
import { HarnessNodeTypes, createStubNodeType } from './node-types';
import { loadPackage, type LoadedPackage } from './package-loader';
import { n8nCore, n8nWorkflow, withExpressionEngine, type ExpressionEngine } from './runtime';

const { NodeApiError } = n8nWorkflow;

export interface RunWorkflowOptions {
	workflow: {
		name?: string;
		nodes: INode[] | unknown[];
		connections: IConnections | unknown;
		/** Used as given; when absent the harness uses `{ executionOrder: 'v1' }` (new n8n workflows). */
		settings?: object;
	};
	/** Credential data by credential TYPE name; a node's `credentials: { <type>: {id, name} }` resolves to it. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/**
	 * Output items for nodes that are NOT this package's (triggers, Code, Set, ...), keyed by node
	 * name. Such nodes are replaced by a stub emitting these items, or passing its input through.
	 */
	stubOutputs?: Record<string, IDataObject[]>;
	/** Default: loadPackage() (cached). */
	package?: LoadedPackage;
	/** Node to start from. Default: the first root trigger-like node, else the first root with outgoing connections. */
	startNode?: string;
	/**
	 * Expression engine for this run (default: configureHarness / N8N_EXPRESSION_ENGINE, else 'vm'
	 * like an n8n 2.x server). 'legacy' is several times faster for bulk runs.
	 */
	expressionEngine?: ExpressionEngine;
	/** Cancels the execution when aborted, as n8n's "Stop" button (or its cancel API) does. */
	signal?: AbortSignal;
	/**
	 * The workflow's Timeout Workflow setting, in ms: as n8n's workflow runner does, the execution's
	 * deadline goes in `executionTimeoutTimestamp` and the execution is cancelled when it passes.
	 */
	timeoutMs?: number;
	/**
	 * Runs as n8n's Retry button of a failed execution does: in mode 'retry', the lifecycle hooks
	 * naming the execution retried (a RunResult's executionId), as n8n 2.x has them.
	 */
	retryOf?: string;
	/** Lifecycle hooks as n8n 1.x has them: without `retryOf` (a retry is then known by its mode only). */
	hooksAsN8n1?: boolean;
}

export interface NodeRun {
	/** Items of output 0 of the node's last run. */
	items: INodeExecutionData[];
	/** All outputs of the node's last run (output 1 is the error output with onError 'continueErrorOutput'). */
	outputs: INodeExecutionData[][];
	/**
	 * The error the node threw, as the original instance (NodeApiError / NodeOperationError keep
	 * `description`, `httpCode`, `context.itemIndex`, ...). Also set when continueOnFail let the
	 * run go on after a throw.
	 */
	error?: ExecutionError | Error;
	/** Raw task data of every run of the node (loops run a node several times). */
	runs: ITaskData[];
}

export interface RunResult {
	/** Every node that ran, by name. */
	nodes: Record<string, NodeRun>;
	/** Why the run failed (the node's original error instance when a node failed). */
	error?: Error;
	/** The engine's IRun as n8n would store it. */
	data: IRun;
	status: IRun['status'];
	/** Node names in the order they finished. */
	executionOrder: string[];
	/** The execution's id (what a retry names: RunWorkflowOptions.retry). */
	executionId: string;
}

const STICKY_NOTE = 'n8n-nodes-base.stickyNote';

function isTriggerLike(type: string): boolean {
	return /trigger$/i.test(type) || n8nWorkflow.STARTING_NODE_TYPES.includes(type);
}

function normalizeNodes(rawNodes: unknown[], pkg: LoadedPackage): INode[] {
	const names = new Set<string>();
	return rawNodes.map((raw, index) => {
		if (!raw || typeof raw !== 'object') {
			throw new Error(`workflow.nodes[${index}] is not an object`);
		}
		const node = structuredClone(raw) as Partial<INode>;
		if (typeof node.name !== 'string' || !node.name) {
			throw new Error(`workflow.nodes[${index}] has no name`);
		}
		if (typeof node.type !== 'string' || !node.type) {
			throw new Error(`Node "${node.name}" has no type`);
		}
		if (names.has(node.name)) throw new Error(`Duplicate node name "${node.name}"`);
		names.add(node.name);
		const isPackageNode = pkg.isPackageNodeType(node.type);
		return {
			...node,
			id: node.id ?? `harness-node-${index}`,
			name: node.name,
			type: node.type,
			typeVersion: node.typeVersion ?? (isPackageNode ? pkg.latestVersion(node.type) : 1),
			position: node.position ?? [index * 220, 0],
			parameters: node.parameters ?? {},
		};
	});
}

function pickStartNode(workflow: Workflow, nodes: INode[], explicit?: string): INode {
	if (explicit) {
		const node = workflow.getNode(explicit);
		if (!node) throw new Error(`startNode "${explicit}" is not a node of the workflow`);
		return node;
	}
	const hasIncoming = (name: string) =>
		(workflow.connectionsByDestinationNode[name]?.main ?? []).some((c) => (c ?? []).length > 0);
	const hasOutgoing = (name: string) =>
		(workflow.connectionsBySourceNode[name]?.main ?? []).some((c) => (c ?? []).length > 0);
	const roots = nodes.filter(
		(node) => !node.disabled && node.type !== STICKY_NOTE && !hasIncoming(node.name),
	);
	const start =
		roots.find((node) => isTriggerLike(node.type) && hasOutgoing(node.name)) ??
		roots.find((node) => hasOutgoing(node.name)) ??
		roots[0] ??
		nodes.find((node) => node.type !== STICKY_NOTE);
	if (!start) throw new Error('The workflow has no node to start from');
	return workflow.getNode(start.name)!;
}

/** Turns the engine's serialized error (`{ ...error, message, stack }`) back into an Error. */
function reviveError(serialized: unknown): Error {
	const data = (serialized ?? {}) as { message?: string; name?: string; stack?: string };
	const error = new Error(data.message ?? 'Unknown error');
	Object.assign(error, data);
	if (data.name) error.name = data.name;
	return error;
}

function isAxiosError(error: unknown): boolean {
	return !!error && typeof error === 'object' && (error as { isAxiosError?: boolean }).isAxiosError === true;
}

type EngineErrorReporter = (error: Error, node: INode, workflow: Workflow) => unknown;

/**
 * WorkflowExecute stores a node's error as a plain spread (`{ ...error, message, stack }`), so the
 * class is lost. The harness records the original instance where the engine reports it
 * (WorkflowExecute#reportNodeExecutionError, called for every failed node attempt).
 */
function captureNodeErrors(workflowExecute: object, sink: Map<string, Error>) {
	const engine = workflowExecute as { reportNodeExecutionError?: EngineErrorReporter };
	const original = engine.reportNodeExecutionError;
	if (typeof original !== 'function') {
		throw new Error(
			'n8n-core changed: WorkflowExecute#reportNodeExecutionError no longer exists, so the harness ' +
				'cannot keep node error instances. Update captureNodeErrors() in test/harness/run-workflow.ts.',
		);
	}
	engine.reportNodeExecutionError = function (this: unknown, error, node, workflow) {
		// The engine wraps unhandled axios errors the same way before storing them.
		sink.set(node.name, isAxiosError(error) ? new NodeApiError(node, error as never) : error);
		return original.call(this, error, node, workflow);
	};
}

function toNodeRun(runs: ITaskData[], captured: Error | undefined): NodeRun {
	const last = runs.at(-1);
	const outputs = (last?.data?.main ?? []).map((output) => output ?? []);
	let error: ExecutionError | Error | undefined;
	if (last?.error) {
		error = captured && captured.message === last.error.message ? captured : reviveError(last.error);
	}
	return { items: outputs[0] ?? [], outputs, error, runs };
}

export async function runWorkflow(opts: RunWorkflowOptions): Promise<RunResult> {
	return await withExpressionEngine(opts.expressionEngine, async () => await execute(opts));
}

async function execute(opts: RunWorkflowOptions): Promise<RunResult> {
	const pkg = opts.package ?? loadPackage();
	// What the editor's "Execute workflow" uses, or the Retry button of a failed execution.
	const mode = opts.retryOf !== undefined ? 'retry' : 'manual';
	const name = opts.workflow.name ?? 'Harness workflow';
	const settings = (opts.workflow.settings ?? { executionOrder: 'v1' }) as IWorkflowSettings;
	const nodes = normalizeNodes(opts.workflow.nodes as unknown[], pkg);
	const connections = (opts.workflow.connections ?? {}) as IConnections;

	const nodeTypes = new HarnessNodeTypes(pkg, createStubNodeType(opts.stubOutputs));
	const workflow = new n8nWorkflow.Workflow({
		id: 'harness-workflow',
		name,
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
		staticData: {},
	});

	const credentialsHelper = new HarnessCredentialsHelper(pkg, opts.credentials);
	const executionId = nextExecutionId();
	const additionalData = createAdditionalData({
		credentialsHelper,
		mode,
		executionId,
		workflowData: workflowBase(name, settings, { nodes, connections }),
		retryOf: opts.retryOf,
	});
	if (opts.hooksAsN8n1) delete (additionalData.hooks as { retryOf?: string }).retryOf;
	if (opts.timeoutMs !== undefined) additionalData.executionTimeoutTimestamp = Date.now() + opts.timeoutMs;
	const executionOrder: string[] = [];
	additionalData.hooks!.addHandler('nodeExecuteAfter', (nodeName) => {
		executionOrder.push(nodeName);
	});

	const workflowExecute = new n8nCore.WorkflowExecute(additionalData, mode);
	const capturedErrors = new Map<string, Error>();
	captureNodeErrors(workflowExecute, capturedErrors);

	let data: IRun;
	let thrown: Error | undefined;
	try {
		const running = workflowExecute.run({
			workflow,
			startNode: pickStartNode(workflow, nodes, opts.startNode),
		});
		opts.signal?.addEventListener('abort', () => running.cancel(), { once: true });
		let ended = false;
		if (opts.timeoutMs !== undefined) {
			void n8nWorkflow.sleep(opts.timeoutMs).then(() => {
				if (!ended) running.cancel();
			});
		}
		try {
			data = await running;
		} finally {
			ended = true;
		}
	} catch (error) {
		// Raised before the run starts, e.g. WorkflowHasIssuesError (missing required parameters).
		thrown = error as Error;
		data = {
			data: n8nWorkflow.createRunExecutionData({
				resultData: { runData: {}, error: { ...(error as object), message: thrown.message } as never },
			}),
			mode,
			startedAt: new Date(),
			stoppedAt: new Date(),
			storedAt: 'db',
			status: 'error',
		};
	}

	const { runData, error: runError, lastNodeExecuted } = data.data.resultData;
	const result: RunResult = {
		nodes: {},
		data,
		status: data.status,
		executionOrder,
		executionId,
	};
	for (const [nodeName, runs] of Object.entries(runData)) {
		result.nodes[nodeName] = toNodeRun(runs, capturedErrors.get(nodeName));
	}
	if (thrown) {
		result.error = thrown;
	} else if (runError) {
		const captured = lastNodeExecuted ? capturedErrors.get(lastNodeExecuted) : undefined;
		result.error =
			captured && captured.message === runError.message ? captured : reviveError(runError);
	}
	return result;
}

// ---------------------------------------------------------------------------------------------

export interface RunNodeSpec
	extends Partial<
		Pick<INode, 'alwaysOutputData' | 'executeOnce' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'notes'>
	> {
	/** `n8n-nodes-messaging.<name>`, `CUSTOM.<name>` or just `<name>`. */
	type: string;
	parameters: object;
	/** Default: the node type's `defaults.name`. */
	name?: string;
	/** Credential TYPE names to wire; default: every type in `credentials` the node declares. */
	credentials?: string[];
	continueOnFail?: boolean;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** Default: the latest version. */
	typeVersion?: number;
	/**
	 * The id the node's credentials carry. Limits shared across executions are kept per
	 * credential id, so by default every runNode call gets ids of its own (runs do not wait
	 * for each other's pauses and windows); give the same id to runs that share an account.
	 */
	credentialId?: string;
}

let runNodeCount = 0;

export interface RunNodeOptions {
	node: RunNodeSpec;
	/** Items emitted by the input stub named 'Input' (an empty array means the node does not run). */
	items: IDataObject[];
	credentials: Record<string, ICredentialDataDecryptedObject>;
	package?: LoadedPackage;
	expressionEngine?: ExpressionEngine;
	signal?: AbortSignal;
	/** The workflow's Timeout Workflow setting, in ms (RunWorkflowOptions.timeoutMs). */
	timeoutMs?: number;
	retryOf?: string;
	hooksAsN8n1?: boolean;
}

export const INPUT_NODE_NAME = 'Input';

export async function runNode(opts: RunNodeOptions): Promise<NodeRun & { run: RunResult }> {
	const pkg = opts.package ?? loadPackage();
	const { type, parameters, name, credentials, typeVersion, credentialId, ...nodeSettings } = opts.node;
	const fullType = pkg.resolveNodeTypeName(type);
	if (!fullType) {
		throw new Error(
			`runNode: "${type}" is not a node type of ${pkg.packageName} (known: ${pkg.nodeTypeNames.join(', ') || 'none'})`,
		);
	}
	const version = typeVersion ?? pkg.latestVersion(fullType);
	const description = pkg.getNodeTypeVersion(fullType, version).description;
	const nodeName = name ?? description.defaults.name ?? description.displayName;
	if (nodeName === INPUT_NODE_NAME) {
		throw new Error(`runNode: the node under test cannot be named "${INPUT_NODE_NAME}"`);
	}

	const declared = new Set((description.credentials ?? []).map((c) => c.name));
	const wired = credentials ?? Object.keys(opts.credentials).filter((t) => declared.has(t));
	const nodeCredentials: INodeCredentials = {};
	const id = credentialId ?? `run-${++runNodeCount}`;
	for (const credentialType of wired) {
		nodeCredentials[credentialType] = { id: `${credentialType}-${id}`, name: credentialType };
	}

	const node: INode = {
		id: 'harness-node-under-test',
		name: nodeName,
		type: fullType,
		typeVersion: version,
		position: [220, 0],
		parameters: structuredClone(parameters) as INode['parameters'],
		...(wired.length ? { credentials: nodeCredentials } : {}),
		...nodeSettings,
	};
	const input: INode = {
		id: 'harness-input',
		name: INPUT_NODE_NAME,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};

	const run = await runWorkflow({
		workflow: {
			name: `runNode ${nodeName}`,
			nodes: [input, node],
			connections: {
				[INPUT_NODE_NAME]: { main: [[{ node: nodeName, type: 'main', index: 0 }]] },
			},
		},
		credentials: opts.credentials,
		stubOutputs: { [INPUT_NODE_NAME]: opts.items },
		package: pkg,
		startNode: INPUT_NODE_NAME,
		expressionEngine: opts.expressionEngine,
		signal: opts.signal,
		timeoutMs: opts.timeoutMs,
		retryOf: opts.retryOf,
		hooksAsN8n1: opts.hooksAsN8n1,
	});
	const nodeRun = run.nodes[nodeName] ?? { items: [], outputs: [], runs: [], error: run.error };
	return { ...nodeRun, run };
}
