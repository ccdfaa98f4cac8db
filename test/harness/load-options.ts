/**
 * Editor-side node methods (listSearch, resourceMapping) called the way n8n's
 * DynamicNodeParametersService does: a one-node workflow with a 'Temp-Node', a real n8n-core
 * LoadOptionsContext (so `this.helpers.httpRequestWithAuthentication`, `this.getCredentials`,
 * `this.getNodeParameter` / `getCurrentNodeParameter` work as in the editor) and additional data
 * carrying the node's current parameters.
 */
import type {
	ICredentialDataDecryptedObject,
	ILoadOptionsFunctions,
	INode,
	INodeCredentials,
	INodeListSearchResult,
	INodeParameters,
	INodeType,
	ResourceMapperFields,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials-helper';
import { HarnessNodeTypes } from './node-types';
import { loadPackage, type LoadedPackage } from './package-loader';
import { n8nCore, n8nWorkflow, withExpressionEngine } from './runtime';

export interface EditorCallOptions {
	/** `n8n-nodes-messaging.<name>`, `CUSTOM.<name>` or `<name>`. */
	nodeType: string;
	/** Name of the method in `methods.listSearch` / `methods.resourceMapping`. */
	method: string;
	/** Credential data by credential TYPE name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** The node's current parameters (defaults are filled in, as the editor does). */
	parameters?: INodeParameters;
	/** Credential TYPE names to put on the node; default: every type in `credentials` the node declares. */
	nodeCredentials?: string[];
	/** Default: the latest version. */
	typeVersion?: number;
	/** Path of the parameter asking (used by `&sibling` lookups). Default `parameters.<method>`. */
	path?: string;
	package?: LoadedPackage;
}

type MethodKind = 'listSearch' | 'resourceMapping';

async function callEditorMethod<T>(
	kind: MethodKind,
	opts: EditorCallOptions,
	invoke: (method: (this: ILoadOptionsFunctions, ...args: never[]) => Promise<T>, context: ILoadOptionsFunctions) => Promise<T>,
): Promise<T> {
	return await withExpressionEngine(undefined, async () => await prepareAndCall(kind, opts, invoke));
}

async function prepareAndCall<T>(
	kind: MethodKind,
	opts: EditorCallOptions,
	invoke: (method: (this: ILoadOptionsFunctions, ...args: never[]) => Promise<T>, context: ILoadOptionsFunctions) => Promise<T>,
): Promise<T> {
	const pkg = opts.package ?? loadPackage();
	const fullType = pkg.resolveNodeTypeName(opts.nodeType);
	if (!fullType) {
		throw new Error(`"${opts.nodeType}" is not a node type of ${pkg.packageName}`);
	}
	const version = opts.typeVersion ?? pkg.latestVersion(fullType);
	const nodeType: INodeType = pkg.getNodeTypeVersion(fullType, version);
	const methods = nodeType.methods?.[kind] as Record<string, unknown> | undefined;
	const method = methods?.[opts.method];
	if (typeof method !== 'function') {
		throw new n8nWorkflow.UnexpectedError('Node type does not have method defined', {
			tags: { nodeType: fullType },
			extra: { methodName: opts.method, kind, available: Object.keys(methods ?? {}) },
		});
	}

	const { description } = nodeType;
	const credentials = opts.credentials ?? {};
	const declared = new Set((description.credentials ?? []).map((c) => c.name));
	const wired = opts.nodeCredentials ?? Object.keys(credentials).filter((t) => declared.has(t));
	const nodeCredentials: INodeCredentials = {};
	for (const type of wired) nodeCredentials[type] = { id: `${type}-id`, name: type };

	const currentNodeParameters =
		n8nWorkflow.NodeHelpers.getNodeParameters(
			description.properties,
			structuredClone(opts.parameters ?? {}),
			true,
			false,
			{ typeVersion: version },
			description,
		) ?? {};

	const node: INode = {
		parameters: structuredClone(currentNodeParameters),
		id: 'uuid-1234',
		name: 'Temp-Node',
		type: fullType,
		typeVersion: version,
		position: [0, 0],
		...(wired.length ? { credentials: nodeCredentials } : {}),
	};
	const workflow = new n8nWorkflow.Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes(pkg),
	});
	const additionalData = createAdditionalData({
		credentialsHelper: new HarnessCredentialsHelper(pkg, credentials),
		mode: 'internal',
		currentNodeParameters,
	});
	const context = new n8nCore.LoadOptionsContext(
		workflow,
		workflow.nodes['Temp-Node'],
		additionalData,
		opts.path ?? `parameters.${opts.method}`,
	);
	return await workflow.expression.withIsolate(
		async () => await invoke(method as never, context),
	);
}

export async function callListSearch(
	opts: EditorCallOptions & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	return await callEditorMethod<INodeListSearchResult>('listSearch', opts, async (method, context) =>
		await (method as (this: ILoadOptionsFunctions, filter?: string, token?: string) => Promise<INodeListSearchResult>).call(
			context,
			opts.filter,
			opts.paginationToken,
		),
	);
}

export async function callResourceMapper(opts: EditorCallOptions): Promise<ResourceMapperFields> {
	const fields = await callEditorMethod<ResourceMapperFields>('resourceMapping', opts, async (method, context) =>
		await method.call(context),
	);
	// DynamicNodeParametersService.removeDuplicateResourceMappingFields
	const seen = new Set<string>();
	return {
		...fields,
		fields: fields.fields?.filter((field) => {
			if (seen.has(field.id)) return false;
			seen.add(field.id);
			return true;
		}),
	};
}
