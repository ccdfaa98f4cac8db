import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { keyOf, setsHeader } from './headerAuthentication';

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

	/** An own property, not a method: see setsHeader. */
	authenticate = setsHeader('X-API-Key', (credentials) => keyOf(credentials.apiKey));
}
