import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The alternative send API takes the key in `X-API-Key`. Like the dashboard key it guards only
 * a send endpoint, so the Messaging node tests it (`testedBy`) with an empty body that the
 * service rejects for the body, never for the key, when the key is right.
 */
export class MessagingXApiKeyApi implements ICredentialType {
	name = 'messagingXApiKeyApi';

	displayName = 'Messaging X-API-Key API';

	icon: Icon = { light: 'file:../icons/messaging.svg', dark: 'file:../icons/messaging.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-messaging/n8n-nodes-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'API key from your account dashboard, sent in the X-API-Key header',
		},
		{
			displayName: 'API URL',
			name: 'apiUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			description: 'Base URL of the API; requests go to /v1/messages below it',
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
		requestOptions.headers = { ...requestOptions.headers, 'X-API-Key': String(credentials.apiKey ?? '') };
		return requestOptions;
	};
}
