/**
 * ICredentialsHelper as n8n's server implements it (packages/cli/src/credentials-helper.ts), with an
 * in-memory store keyed by credential TYPE instead of the credentials table: a node's
 * `credentials: { <type>: { id, name } }` resolves to the data given for <type>.
 *
 *  - authenticate(): a function `authenticate` is called; a generic one ({ type: 'generic',
 *    properties: { headers, qs, body, auth } }) has every key and value resolved as an n8n
 *    expression against `{ $credentials }` with the workflow's expression engine
 *    (server `resolveValue`) and merged into the request (the HTTP Request node's Header Auth,
 *    which the bench's baselines use).
 *  - getDecrypted(): the data as given (see there for what the server does beyond that).
 *
 * The product's credentials need nothing more (no preAuthentication, no OAuth): a call the
 * server would make for those fails here rather than pretending.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';

import type { LoadedPackage } from './package-loader';
import { n8nCore, n8nWorkflow } from './runtime';

const { UnexpectedError, UserError, isExpression } = n8nWorkflow;

export type CredentialsByType = Record<string, ICredentialDataDecryptedObject>;

export class HarnessCredentialsHelper extends n8nWorkflow.ICredentialsHelper {
	private readonly store: CredentialsByType;

	constructor(
		private readonly pkg: LoadedPackage,
		credentials: CredentialsByType = {},
	) {
		super();
		this.store = structuredClone(credentials);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions;
		const credentialType = this.pkg.getCredentialType(typeName);

		if (credentialType.authenticate) {
			if (typeof credentialType.authenticate === 'function') {
				return await credentialType.authenticate(
					credentials,
					requestOptions as IHttpRequestOptions,
				);
			}

			if (typeof credentialType.authenticate === 'object') {
				if (!workflow || !node) {
					throw new UnexpectedError(
						'Workflow and node are required for declarative credential authentication',
					);
				}
				const { authenticate } = credentialType;
				if (requestOptions.headers === undefined) {
					requestOptions.headers = {};
				}
				if (authenticate.type === 'generic') {
					const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
					for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
						for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
							const keyResolved = this.resolveValue(key, { $credentials: credentials }, workflow, node);
							const valueResolved = this.resolveValue(
								value as string,
								{ $credentials: credentials },
								workflow,
								node,
							);
							if (!target[outerKey]) {
								target[outerKey] = {};
							}
							target[outerKey][keyResolved] = valueResolved;
						}
					}
				}
			}
		}

		return requestOptions as IHttpRequestOptions;
	}

	/** n8n-core asks before every authenticated request; none of the product's types has a hook. */
	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<undefined> {
		if (this.pkg.getCredentialType(typeName).preAuthentication) {
			throw new UnexpectedError(`The harness does not run preAuthentication (credential type ${typeName})`);
		}
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		throw new UnexpectedError('The harness does not run preAuthentication');
	}

	/** Server `resolveValue`: expressions resolved with the workflow's engine, falsy → ''. */
	private resolveValue(
		parameterValue: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) {
			return parameterValue;
		}
		const returnValue = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		if (!returnValue) {
			return '';
		}
		return returnValue.toString();
	}

	getParentTypes(typeName: string): string[] {
		return this.pkg.getParentTypes(typeName);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.pkg.hasCredentialType(credentialType)) return true;
		const typeDef = this.pkg.getCredentialType(credentialType);
		if (!typeDef.restrictToSupportedNodes) return true;
		const fullName = this.pkg.resolveNodeTypeName(nodeType) ?? nodeType;
		return this.pkg.getSupportedNodes(credentialType).includes(fullName);
	}

	async getCredentials(
		nodeCredential: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		const data = this.lookup(nodeCredential, type);
		const credentials = new n8nCore.Credentials(
			{ id: nodeCredential.id ?? type, name: nodeCredential.name },
			type,
		);
		await credentials.setData(data);
		return credentials;
	}

	private lookup(nodeCredential: INodeCredentialsDetails | undefined, type: string) {
		const data = this.store[type];
		if (data === undefined) {
			const given = Object.keys(this.store);
			throw new UserError(
				`Credential with ID "${nodeCredential?.id ?? ''}" does not exist for type "${type}". ` +
					`The harness resolves credentials by type; pass \`credentials: { ${type}: { ... } }\`` +
					(given.length ? ` (given: ${given.join(', ')})` : ''),
			);
		}
		return data;
	}

	/**
	 * The stored data, as given. The server would also fill in property defaults and resolve
	 * expressions in it; the product's credential properties all default to '' and tests give
	 * literal values, so a type whose default would matter is refused instead of half-emulated.
	 */
	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		return this.decrypted(type, this.lookup(nodeCredentials, type));
	}

	decrypted(type: string, data: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
		for (const property of this.getCredentialsProperties(type)) {
			const given = data[property.name];
			if (given === undefined && property.default !== '' && property.default !== undefined) {
				throw new UnexpectedError(`The harness applies no credential defaults: give ${type}.${property.name}`);
			}
			if (isExpression(given)) {
				throw new UnexpectedError(`The harness resolves no expressions in credentials: ${type}.${property.name}`);
			}
		}
		return structuredClone(data);
	}

	async updateCredentials(): Promise<void> {
		throw new UnexpectedError('The harness stores no credential updates: the product never writes its credentials back');
	}

	async updateCredentialsOauthTokenData(): Promise<void> {
		throw new UnexpectedError('The harness has no OAuth credentials');
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.pkg.getCredentialType(type).properties;
	}
}
