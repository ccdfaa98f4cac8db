/**
 * A minimal but real IWorkflowExecuteAdditionalData, shaped like the server's
 * WorkflowExecuteAdditionalData.getBase(): URLs of a default local instance, the credentials helper,
 * lifecycle hooks (n8n-core's ExecutionLifecycleHooks) and no-op/refusing stand-ins for the server
 * services a package node must not need (sub-workflows, task runners, AI events).
 */
import type {
	INodeParameters,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import type { HarnessCredentialsHelper } from './credentials-helper';
import { Container, n8nCore, n8nWorkflow } from './runtime';

export const INSTANCE_BASE_URL = 'http://localhost:5678/';

let executionCounter = 0;

export function nextExecutionId(): string {
	executionCounter += 1;
	return `harness-${executionCounter}`;
}

export interface AdditionalDataOptions {
	credentialsHelper: HarnessCredentialsHelper;
	mode: WorkflowExecuteMode;
	executionId?: string;
	workflowData?: IWorkflowBase;
	/** LoadOptionsContext reads the node's current parameters from here. */
	currentNodeParameters?: INodeParameters;
	/** The execution this one retries (n8n's Retry button), on the lifecycle hooks as n8n 2.x puts it. */
	retryOf?: string;
}

export function createHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflowData: IWorkflowBase,
	retryOf?: string,
) {
	return new n8nCore.ExecutionLifecycleHooks(mode, executionId, workflowData, retryOf);
}

export function workflowBase(
	name: string,
	settings: IWorkflowSettings = {},
	extra: Partial<IWorkflowBase> = {},
): IWorkflowBase {
	const now = new Date();
	return {
		id: 'harness-workflow',
		name,
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		nodes: [],
		connections: {},
		settings,
		...extra,
	};
}

export function createAdditionalData(options: AdditionalDataOptions): IWorkflowExecuteAdditionalData {
	const executionId = options.executionId ?? nextExecutionId();
	const workflowData = options.workflowData ?? workflowBase('Harness');
	const base = INSTANCE_BASE_URL;
	const refuse = (what: string) => async () => {
		throw new n8nWorkflow.UnexpectedError(`${what} is not available in the engine test harness`);
	};

	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper: options.credentialsHelper,
		hooks: createHooks(options.mode, executionId, workflowData, options.retryOf),
		executionId,
		workflowId: workflowData.id,
		userId: 'harness-user',
		projectId: 'harness-project',
		currentNodeExecutionIndex: 0,
		currentNodeParameters: options.currentNodeParameters,
		restApiUrl: `${base}rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}form`,
		formTestBaseUrl: `${base}form-test`,
		formWaitingBaseUrl: `${base}form-waiting`,
		webhookBaseUrl: `${base}webhook`,
		webhookTestBaseUrl: `${base}webhook-test`,
		webhookWaitingBaseUrl: `${base}webhook-waiting`,
		mcpBaseUrl: `${base}mcp`,
		mcpTestBaseUrl: `${base}mcp-test`,
		variables: {},
		executeWorkflow: refuse('Executing a sub-workflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: refuse('A task runner (Code node)'),
		logAiEvent: () => {},
		setExecutionStatus: () => {},
		sendDataToUI: () => {},
		// `$secrets`: the server's proxy, with no external secrets manager attached.
		externalSecretsProxy: Container.get(n8nCore.ExternalSecretsProxy),
	};
	return additionalData;
}
