/**
 * The "Test" button of a credential, following n8n's CredentialsTester
 * (packages/cli/src/services/credentials-tester.service.ts):
 *
 *  1. the credential type's own `test` (ICredentialTestRequest) wins; otherwise the nodes that
 *     declare the credential are searched for `testedBy` (a `methods.credentialTest` function
 *     name, or a request definition);
 *  2. the data gets defaults + expression resolution (applyDefaultsAndOverwrites, mode 'internal');
 *  3. a function is called with a real n8n-core CredentialTestContext;
 *     a request is made by n8n-core's RoutingNode on a temporary node whose single property routes
 *     `test.request`, authenticated through the credentials helper (generic `authenticate`
 *     expressions resolved), and the response is judged by `rules` / the status code.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialTestRequest,
	ICredentialsDecrypted,
	IExecuteData,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	ITaskDataConnections,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials-helper';
import { loadPackage, type AnyNodeType, type LoadedPackage } from './package-loader';
import { n8nCore, n8nWorkflow, withExpressionEngine } from './runtime';

export interface CredentialTestOptions {
	/** Restrict the `testedBy` search to this node type (default: every node that declares the credential). */
	nodeType?: string;
	credentialType: string;
	data: ICredentialDataDecryptedObject;
	package?: LoadedPackage;
}

type TestDefinition =
	| { kind: 'function'; fn: ICredentialTestFunction }
	| { kind: 'request'; testRequest: ICredentialTestRequest; nodeType?: INodeType };

const OAUTH2_CREDENTIAL_TEST_SUCCEEDED = 'Connection Successful!';
const OAUTH2_CREDENTIAL_TEST_FAILED = 'This OAuth2 credential was not connected to an account.';

/** The node the server uses when the test request is defined on the credential type. */
const NO_OP_NODE_TYPE: INodeType = {
	description: {
		displayName: 'No Operation, do nothing',
		name: 'n8n-nodes-base.noOp',
		group: ['organization'],
		version: 1,
		description: 'No Operation',
		defaults: { name: 'No Operation, do nothing' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	},
};

function versionsOf(nodeType: AnyNodeType): INodeType[] {
	return 'nodeVersions' in nodeType ? Object.values(nodeType.nodeVersions) : [nodeType];
}

function findTest(pkg: LoadedPackage, credentialType: string, onlyNode?: string): TestDefinition | undefined {
	const type = pkg.getCredentialType(credentialType);
	if (type.test) {
		return { kind: 'request', testRequest: type.test };
	}

	let candidates = pkg.getSupportedNodes(credentialType);
	if (onlyNode) {
		const full = pkg.resolveNodeTypeName(onlyNode);
		if (!full) throw new Error(`"${onlyNode}" is not a node type of ${pkg.packageName}`);
		candidates = [full];
	}
	const isOAuth2 =
		credentialType === 'oAuth2Api' || pkg.getParentTypes(credentialType).includes('oAuth2Api');

	for (const nodeName of candidates) {
		const node = pkg.getNodeType(nodeName);
		for (const nodeType of versionsOf(node)) {
			for (const { name, testedBy } of nodeType.description.credentials ?? []) {
				if (name !== credentialType) continue;
				if (isOAuth2) {
					return {
						kind: 'function',
						fn: async (cred: ICredentialsDecrypted) => {
							const tokenData = cred.data?.oauthTokenData;
							return tokenData && typeof tokenData === 'object' && 'access_token' in tokenData
								? { status: 'OK', message: OAUTH2_CREDENTIAL_TEST_SUCCEEDED }
								: { status: 'Error', message: OAUTH2_CREDENTIAL_TEST_FAILED };
						},
					};
				}
				if (!testedBy) continue;
				if (typeof testedBy === 'string') {
					// Versioned nodes: newest version that defines the function.
					if ('nodeVersions' in node) {
						const versions = Object.keys(node.nodeVersions).sort().reverse();
						for (const version of versions) {
							const fn = node.nodeVersions[Number(version)].methods?.credentialTest?.[testedBy];
							if (fn) return { kind: 'function', fn };
						}
					}
					const fn = (node as INodeType).methods?.credentialTest?.[testedBy] ??
						nodeType.methods?.credentialTest?.[testedBy];
					if (!fn) {
						throw new Error(
							`Node ${nodeName} declares testedBy "${testedBy}" for ${credentialType} but has no methods.credentialTest.${testedBy}`,
						);
					}
					return { kind: 'function', fn };
				}
				return { kind: 'request', testRequest: testedBy, nodeType };
			}
		}
	}
	return undefined;
}

export async function callCredentialTest(opts: CredentialTestOptions): Promise<INodeCredentialTestResult> {
	return await withExpressionEngine(undefined, async () => await testCredential(opts));
}

async function testCredential(opts: CredentialTestOptions): Promise<INodeCredentialTestResult> {
	const pkg = opts.package ?? loadPackage();
	const credentialType = opts.credentialType;
	const test = findTest(pkg, credentialType, opts.nodeType);
	if (test === undefined) {
		return { status: 'Error', message: 'No testing function found for this credential.' };
	}

	const credentialsHelper = new HarnessCredentialsHelper(pkg, { [credentialType]: opts.data });
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: `${credentialType}-id`,
		name: credentialType,
		type: credentialType,
		data: structuredClone(opts.data),
	};
	try {
		const additionalData = createAdditionalData({ credentialsHelper, mode: 'internal' });
		credentialsDecrypted.data = await credentialsHelper.applyDefaultsAndOverwrites(
			additionalData,
			credentialsDecrypted.data!,
			credentialType,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	if (test.kind === 'function') {
		// The server constructs the context without additional data, too.
		const context = new n8nCore.CredentialTestContext();
		return await test.fn.call(context, credentialsDecrypted);
	}

	const baseNodeType = test.nodeType ?? NO_OP_NODE_TYPE;
	const nodeTypeCopy: INodeType = {
		description: {
			...baseNodeType.description,
			credentials: [{ name: credentialType, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.testRequest.request },
					default: '',
				},
			],
		},
	};
	const typeName = nodeTypeCopy.description.name;
	const mockNodeTypes: INodeTypes = {
		getKnownTypes: () => ({}),
		getByName: () => nodeTypeCopy,
		getByNameAndVersion: () => nodeTypeCopy,
	};
	const version = nodeTypeCopy.description.version;
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: typeName,
		typeVersion: Array.isArray(version) ? version.slice(-1)[0] : version,
		position: [0, 0],
		credentials: { [credentialType]: { id: credentialsDecrypted.id, name: credentialsDecrypted.name } },
	};
	const workflow = new n8nWorkflow.Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: mockNodeTypes,
	});

	const inputData: ITaskDataConnections = { main: [[{ json: {} }]] };
	const connectionInputData: INodeExecutionData[] = [];
	const runExecutionData: IRunExecutionData = n8nWorkflow.createRunExecutionData({
		resultData: { runData: {} },
	});
	const additionalData = createAdditionalData({ credentialsHelper, mode: 'internal' });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const executeFunctions = new n8nCore.ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		connectionInputData,
		inputData,
		executeData,
		[],
	);
	const routingNode = new n8nCore.RoutingNode(executeFunctions, nodeTypeCopy, credentialsDecrypted);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await workflow.expression.withIsolate(async () => await routingNode.runNode());
	} catch (error) {
		const e = error as { message?: string; cause?: { response?: { status: number; statusText?: string }; code?: string } };
		if (e.cause?.response) {
			const errorResponseData = {
				statusCode: e.cause.response.status,
				statusMessage: e.cause.response.statusText,
			};
			for (const rule of test.testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && errorResponseData.statusCode === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (errorResponseData.statusCode < 199 || errorResponseData.statusCode > 299) {
				return {
					status: 'Error',
					message:
						errorResponseData.statusMessage ||
						`Received HTTP status code: ${errorResponseData.statusCode}`,
				};
			}
		} else if (e.cause?.code) {
			return { status: 'Error', message: e.cause.code };
		}
		return { status: 'Error', message: String(e.message) };
	}

	for (const rule of test.testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const responseData = response?.[0]?.[0]?.json;
			if (getPath(responseData, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash.get for dotted paths (what the server uses to read `rules[].properties.key`). */
function getPath(value: unknown, key: string): unknown {
	let current = value;
	for (const part of key.replace(/\[(\w+)\]/g, '.$1').split('.')) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}
