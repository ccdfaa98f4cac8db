/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Loads this repository as an n8n community package, with n8n-core's own PackageDirectoryLoader:
 * package.json `n8n.nodes` / `n8n.credentials` (dist/ paths) are required and instantiated, codex
 * and icons are attached, declarative request options are added, and each credential gets the
 * `supportedNodes` inferred from the nodes that reference it. As in n8n, a node is addressed as
 * `<package name>.<description.name>` (here `n8n-nodes-messaging.<name>`); credentials by their name.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type {
	ICredentialType,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
	LoadingDetails,
} from 'n8n-workflow';

import { REPO_ROOT, n8nCore, n8nWorkflow } from './runtime';

export type AnyNodeType = INodeType | IVersionedNodeType;

export interface LoadPackageOptions {
	/** Extra node types (instances) registered as if they were part of this package. */
	nodes?: AnyNodeType[];
	/** Extra credential types (instances) registered as if they were part of this package. */
	credentials?: ICredentialType[];
	/** Skip package.json entries whose dist/ file does not exist instead of failing. */
	allowMissing?: boolean;
	/** Package directory (default: the repository root). */
	packageDir?: string;
}

interface PackageJson {
	name: string;
	version: string;
	n8n?: { nodes?: string[]; credentials?: string[] };
}

const CUSTOM_PREFIX = `${n8nCore.CUSTOM_NODES_PACKAGE_NAME}.`;

export class LoadedPackage {
	/** Full node type name (`<package>.<name>`) → node type (possibly versioned). */
	readonly nodeTypes: Record<string, AnyNodeType> = {};
	/** Credential type name → credential type. */
	readonly credentialTypes: Record<string, ICredentialType> = {};
	/** Full node type name → className/sourcePath (INodeTypes.getKnownTypes()). */
	readonly knownNodes: Record<string, LoadingDetails> = {};
	/** Credential name → full names of the nodes that declare it (n8n's `supportedNodes`). */
	readonly supportedNodes: Record<string, string[]> = {};
	/** Credential name → `extends` of its type. */
	private readonly extendsOf: Record<string, string[]> = {};

	constructor(
		readonly packageName: string,
		readonly packageDir: string,
		/** package.json entries that were skipped because their dist file is missing (allowMissing). */
		readonly missing: string[],
	) {}

	/** Full names of all node types. */
	get nodeTypeNames(): string[] {
		return Object.keys(this.nodeTypes);
	}

	/** `n8n-nodes-messaging.x`, `CUSTOM.x` and `x` all resolve to `n8n-nodes-messaging.x`. */
	resolveNodeTypeName(type: string): string | undefined {
		if (type in this.nodeTypes) return type;
		const short = type.startsWith(CUSTOM_PREFIX) ? type.slice(CUSTOM_PREFIX.length) : type;
		const full = `${this.packageName}.${short}`;
		return full in this.nodeTypes ? full : undefined;
	}

	isPackageNodeType(type: string): boolean {
		return this.resolveNodeTypeName(type) !== undefined;
	}

	getNodeType(type: string): AnyNodeType {
		const full = this.resolveNodeTypeName(type);
		if (!full) {
			throw new n8nWorkflow.UserError(
				`Unknown node type "${type}". Known: ${this.nodeTypeNames.join(', ') || '(none)'}`,
			);
		}
		return this.nodeTypes[full];
	}

	/** The concrete INodeType for a version (n8n's NodeHelpers.getVersionedNodeType). */
	getNodeTypeVersion(type: string, version?: number): INodeType {
		return n8nWorkflow.NodeHelpers.getVersionedNodeType(this.getNodeType(type), version);
	}

	/** The version the editor would give a newly added node of this type. */
	latestVersion(type: string): number {
		const nodeType = this.getNodeType(type);
		if ('nodeVersions' in nodeType) {
			return nodeType.description.defaultVersion ?? nodeType.currentVersion;
		}
		const description = nodeType.description as INodeTypeDescription;
		if (description.defaultVersion !== undefined) return description.defaultVersion;
		return Array.isArray(description.version)
			? Math.max(...description.version)
			: description.version;
	}

	hasCredentialType(name: string): boolean {
		return name in this.credentialTypes;
	}

	getCredentialType(name: string): ICredentialType {
		const type = this.credentialTypes[name];
		if (!type) {
			throw new n8nWorkflow.UserError(
				`Unknown credential type "${name}". Known: ${Object.keys(this.credentialTypes).join(', ') || '(none)'}`,
			);
		}
		return type;
	}

	/** All ancestors from `extends`, nearest first (n8n's CredentialTypes.getParentTypes). */
	getParentTypes(name: string): string[] {
		const direct = this.extendsOf[name] ?? this.credentialTypes[name]?.extends ?? [];
		return direct.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	getSupportedNodes(credentialName: string): string[] {
		return this.supportedNodes[credentialName] ?? [];
	}

	/** @internal used by loadPackage */
	register(
		nodeTypes: Record<string, { type: AnyNodeType; sourcePath: string }>,
		credentialTypes: Record<string, { type: ICredentialType; sourcePath: string }>,
	) {
		for (const [shortName, { type, sourcePath }] of Object.entries(nodeTypes)) {
			const full = `${this.packageName}.${shortName}`;
			this.nodeTypes[full] = type;
			this.knownNodes[full] = { className: type.constructor.name, sourcePath };
		}
		for (const [name, { type }] of Object.entries(credentialTypes)) {
			this.credentialTypes[name] = type;
			this.extendsOf[name] = type.extends ?? [];
			this.supportedNodes[name] = (type.supportedNodes ?? []).map(
				(shortName) => `${this.packageName}.${shortName}`,
			);
		}
	}
}

function allVersions(nodeType: AnyNodeType): INodeType[] {
	return 'nodeVersions' in nodeType ? Object.values(nodeType.nodeVersions) : [nodeType];
}

/**
 * What DirectoryLoader.loadNodeFromFile does to a node once its class is instantiated, for the
 * extra (fixture) nodes that have no file: load-options method list, declarative request options,
 * package version, and the credential → nodes index used for `supportedNodes`.
 */
function registerExtraNode(
	loader: InstanceType<typeof n8nCore.PackageDirectoryLoader>,
	nodeType: AnyNodeType,
	packageVersion: string,
) {
	const name = nodeType.description.name;
	for (const version of allVersions(nodeType)) {
		if ('nodeVersions' in nodeType) version.description.name = name;
		version.description.communityNodePackageVersion = packageVersion;
		if (version.methods?.loadOptions) {
			version.description.__loadOptionsMethods = Object.keys(version.methods.loadOptions);
		}
		n8nCore.DirectoryLoader.applyDeclarativeNodeOptionParameters(version);
	}
	const sourcePath = `<extra>/${nodeType.constructor.name}`;
	loader.known.nodes[name] = { className: nodeType.constructor.name, sourcePath };
	loader.nodeTypes[name] = { type: nodeType, sourcePath };
	for (const credential of loader.getCredentialsForNode(nodeType)) {
		(loader.nodesByCredential[credential.name] ??= []).push(name);
	}
}

const defaultPackages = new Map<string, LoadedPackage>();

/**
 * Load the package as n8n does. Without extra nodes/credentials the result is cached per package
 * directory (loading is cheap after the first time anyway: `require` caches the dist modules).
 */
export function loadPackage(options: LoadPackageOptions = {}): LoadedPackage {
	const packageDir = path.resolve(options.packageDir ?? REPO_ROOT);
	const hasExtras = !!(options.nodes?.length || options.credentials?.length);
	const cacheKey = `${packageDir}|${options.allowMissing ? 'allowMissing' : 'strict'}`;
	if (!hasExtras) {
		const cached = defaultPackages.get(cacheKey);
		if (cached) return cached;
	}

	const packageJson = JSON.parse(
		readFileSync(path.join(packageDir, 'package.json'), 'utf8'),
	) as PackageJson;
	const nodePaths = packageJson.n8n?.nodes ?? [];
	const credentialPaths = packageJson.n8n?.credentials ?? [];

	const missing = [...nodePaths, ...credentialPaths].filter(
		(file) => !existsSync(path.resolve(packageDir, file)),
	);
	if (missing.length > 0 && !options.allowMissing) {
		throw new Error(
			`n8n package ${packageJson.name}: ${missing.length} file(s) listed in package.json "n8n" are missing:\n` +
				missing.map((file) => `  - ${file}`).join('\n') +
				'\nRun `npm run build` first (the harness loads the compiled dist/ files, as n8n does).',
		);
	}

	const loader = new n8nCore.PackageDirectoryLoader(packageDir);
	// Same order as PackageDirectoryLoader.loadAll(): nodes first, so credentials see which nodes use them.
	for (const file of nodePaths) {
		if (!missing.includes(file)) loader.loadNodeFromFile(file, packageJson.version);
	}
	for (const extra of options.nodes ?? []) {
		registerExtraNode(loader, extra, packageJson.version);
	}
	for (const file of credentialPaths) {
		if (!missing.includes(file)) loader.loadCredentialFromFile(file);
	}
	for (const extra of options.credentials ?? []) {
		loader.credentialTypes[extra.name] = {
			type: extra,
			sourcePath: `<extra>/${extra.constructor.name}`,
		};
	}
	// PackageDirectoryLoader.inferSupportedNodes(), including nodes registered after a credential.
	for (const { type: credentialType } of Object.values(loader.credentialTypes)) {
		const supportedNodes = loader.nodesByCredential[credentialType.name] ?? [];
		if (supportedNodes.length > 0 && credentialType.httpRequestNode) {
			credentialType.httpRequestNode.hidden = true;
		}
		credentialType.supportedNodes = supportedNodes;
	}

	const loaded = new LoadedPackage(packageJson.name, packageDir, missing);
	loaded.register(loader.nodeTypes, loader.credentialTypes);
	if (!hasExtras) defaultPackages.set(cacheKey, loaded);
	return loaded;
}
