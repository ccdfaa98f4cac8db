import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/**
 * One account's bearer token and the base URL of each Bearer API group. The service puts
 * every API group under its own opaque `/api:<group_id>` address, so each is pasted here as
 * shown in the account dashboard; only the ones the user's operations need are required.
 * The nodes test it (`testedBy`): a list of templates, or of one sandbox plant, and never
 * over plain http to a host that is not loopback.
 */
export class MessagingBearerApi implements ICredentialType {
	name = 'messagingBearerApi';

	displayName = 'Messaging Bearer Token API';

	icon: Icon = { light: 'file:../icons/messaging.svg', dark: 'file:../icons/messaging.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-messaging/n8n-nodes-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'API token from the API section of your account dashboard. It is shown only once when created.',
		},
		{
			displayName: 'Send Base URL',
			name: 'sendBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com/api:AbC123',
			description:
				'Base URL of the direct send API (host + /api:&lt;group ID&gt;). Needed for Message → Send.',
		},
		{
			displayName: 'Template Send Base URL',
			name: 'templateSendBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com/api:DeF456',
			description:
				'Base URL of the template send API (host + /api:&lt;group ID&gt;). Needed for Message → Send Template.',
		},
		{
			displayName: 'Templates Base URL',
			name: 'templatesBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com/api:GhI789',
			description:
				'Base URL of the list templates API (host + /api:&lt;group ID&gt;). Needed for Template → Get Many and the template picker.',
		},
		{
			displayName: 'Sandbox Base URL',
			name: 'sandboxBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. http://sandbox.example.com',
			description: 'Base URL of the sandbox plants API (plain http is allowed). Needed for the Sandbox Plants node.',
		},
	];

	/**
	 * Sets the one header itself. A generic `authenticate` has n8n evaluate its value as an
	 * expression on every request, about 0.4 ms of CPU each in n8n 2.x's isolated-vm engine; n8n
	 * calls this function directly with the decrypted credential, through the same
	 * httpRequestWithAuthentication (so the HTTP Request node's predefined-credential mode works too).
	 * An own property, not a method: n8n lists a credential type as usable by the HTTP Request
	 * node (and gives the node its Custom API Call option) only when `authenticate` is an own
	 * property of the loaded instance; without that, n8n 2.41's editor takes Operation for the
	 * credential's auth field and hides the node's Resource and Operation selectors.
	 */
	authenticate = async (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> => {
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.accessToken ?? '')}` };
		return requestOptions;
	};
}
