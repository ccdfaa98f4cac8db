import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The dashboard send (v2) API takes the key itself in `Authorization`, with no `Bearer`
 * prefix. It is tested by the Messaging node (`testedBy`), because the only endpoint behind
 * this key sends messages: the test posts an empty body, which the service rejects for the
 * body (400) after it has accepted the key, and rejects with 401/403 when the key is wrong.
 */
export class MessagingAuthorizationKeyApi implements ICredentialType {
	name = 'messagingAuthorizationKeyApi';

	displayName = 'Messaging Authorization Key API';

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
			description: 'API key from your account dashboard, sent as the raw Authorization header value',
		},
		{
			displayName: 'Dashboard URL',
			name: 'dashboardUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://dashboard.example.com',
			description: 'Base URL of the dashboard; requests go to /api/messaging/messages/v2.0.0/send below it',
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
		requestOptions.headers = { ...requestOptions.headers, Authorization: String(credentials.apiKey ?? '') };
		return requestOptions;
	};
}
