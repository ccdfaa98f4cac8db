/**
 * Engine test harness: runs this package's nodes and credentials inside n8n-core's real
 * WorkflowExecute, with credentials applied the way an n8n server applies them.
 * See README.md in this directory.
 */
export {
	configureHarness,
	activeExpressionEngine,
	ensureRuntime,
	recordWarnings,
	withExpressionEngine,
	n8nWorkflow,
	n8nCore,
	type ExpressionEngine,
	type HarnessConfig,
} from './runtime';
export { loadPackage, LoadedPackage, type LoadPackageOptions, type AnyNodeType } from './package-loader';
export { HarnessNodeTypes, STUB_NODE_TYPE, createStubNodeType } from './node-types';
export {
	HarnessCredentialsHelper,
	type CredentialsByType,
} from './credentials-helper';
export { createAdditionalData, INSTANCE_BASE_URL } from './additional-data';
export {
	runWorkflow,
	runNode,
	INPUT_NODE_NAME,
	type RunWorkflowOptions,
	type RunResult,
	type NodeRun,
	type RunNodeOptions,
	type RunNodeSpec,
} from './run-workflow';
export { callListSearch, callResourceMapper, type EditorCallOptions } from './load-options';
export { callCredentialTest, type CredentialTestOptions } from './credential-test';
export { HTTP_REQUEST_TYPE, installedN8n, installN8n, loadHttpRequestNode, type HttpRequestLoad } from './n8n-nodes-base';
