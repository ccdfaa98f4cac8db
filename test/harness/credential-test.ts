/**
 * The "Test" button of a credential, following n8n's CredentialsTester
 * (packages/cli/src/services/credentials-tester.service.ts) as far as this package needs it:
 * the product's credential types are tested by their nodes (`testedBy`, a
 * `methods.credentialTest` function), so the server's other path (a request on the credential
 * type, run by RoutingNode) is not here.
 *
 *  1. the nodes that declare the credential are searched for `testedBy`;
 *  2. the data is taken as given (credentials-helper.ts says why);
 *  3. the function is called with a real n8n-core CredentialTestContext.
 */
import type { ICredentialDataDecryptedObject, ICredentialTestFunction, INodeCredentialTestResult, INodeType } from 'n8n-workflow';

import { HarnessCredentialsHelper } from './credentials-helper';
import { loadPackage, type LoadedPackage } from './package-loader';
import { n8nCore, withExpressionEngine } from './runtime';

export interface CredentialTestOptions {
	/** Restrict the `testedBy` search to this node type (default: every node that declares the credential). */
	nodeType?: string;
	credentialType: string;
	data: ICredentialDataDecryptedObject;
	package?: LoadedPackage;
}

function findTest(pkg: LoadedPackage, credentialType: string, onlyNode?: string): ICredentialTestFunction | undefined {
	if (pkg.getCredentialType(credentialType).test) {
		throw new Error(`${credentialType} has its own test request: the harness only runs a node's testedBy function`);
	}
	let candidates = pkg.getSupportedNodes(credentialType);
	if (onlyNode) {
		const full = pkg.resolveNodeTypeName(onlyNode);
		if (!full) throw new Error(`"${onlyNode}" is not a node type of ${pkg.packageName}`);
		candidates = [full];
	}
	for (const nodeName of candidates) {
		const nodeType = pkg.getNodeType(nodeName) as INodeType;
		const declared = nodeType.description.credentials?.find(({ name }) => name === credentialType);
		if (declared?.testedBy === undefined) continue;
		const fn = typeof declared.testedBy === 'string' ? nodeType.methods?.credentialTest?.[declared.testedBy] : undefined;
		if (!fn) throw new Error(`Node ${nodeName} tests ${credentialType} without a methods.credentialTest function`);
		return fn;
	}
	return undefined;
}

export async function callCredentialTest(opts: CredentialTestOptions): Promise<INodeCredentialTestResult> {
	return await withExpressionEngine(undefined, async () => {
		const pkg = opts.package ?? loadPackage();
		const { credentialType } = opts;
		const test = findTest(pkg, credentialType, opts.nodeType);
		if (test === undefined) {
			return { status: 'Error', message: 'No testing function found for this credential.' };
		}
		const credentialsHelper = new HarnessCredentialsHelper(pkg, { [credentialType]: opts.data });
		let data: ICredentialDataDecryptedObject;
		try {
			data = credentialsHelper.decrypted(credentialType, opts.data);
		} catch (error) {
			return { status: 'Error', message: String((error as Error).message) };
		}
		// The server constructs the context without additional data, too.
		const context = new n8nCore.CredentialTestContext();
		return await test.call(context, { id: `${credentialType}-id`, name: credentialType, type: credentialType, data });
	});
}
