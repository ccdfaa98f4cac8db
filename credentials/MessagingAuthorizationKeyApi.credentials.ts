import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { keyOf, setsHeader } from './headerAuthentication';

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

	/** An own property, not a method: see setsHeader. */
	authenticate = setsHeader('Authorization', (credentials) => keyOf(credentials.apiKey));
}
