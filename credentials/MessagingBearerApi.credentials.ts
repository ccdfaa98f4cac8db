import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { keyOf, setsHeader } from './headerAuthentication';

/**
 * One account's bearer token and the base URL of each Bearer API group. The service puts
 * every API group under its own opaque `/api:<group_id>` address, so each is pasted here as
 * shown in the account dashboard; only the ones the user's operations need are required.
 * The nodes test it (`testedBy`) at every base URL that is set: a list of templates or of one
 * sandbox plant, an empty body to a send; never over plain http to a host that is not loopback.
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
				'Base URL of the direct send API (host + /api:&lt;group ID&gt;), as the API section of your account dashboard shows it.',
			hint: 'Needed for Message → Send; leave empty if you do not use it',
		},
		{
			displayName: 'Template Send Base URL',
			name: 'templateSendBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com/api:DeF456',
			description:
				'Base URL of the template send API (host + /api:&lt;group ID&gt;), as the API section of your account dashboard shows it.',
			hint: 'Needed for Message → Send Template; leave empty if you do not use it',
		},
		{
			displayName: 'Templates Base URL',
			name: 'templatesBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com/api:GhI789',
			description:
				'Base URL of the list templates API (host + /api:&lt;group ID&gt;), as the API section of your account dashboard shows it.',
			hint: "Needed for Template → Get Many, and for Send Template's template list and variable fields: without it, the editor shows no fields for a template's variables",
		},
		{
			displayName: 'Sandbox Base URL',
			name: 'sandboxBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. http://sandbox.example.com',
			description: 'Base URL of the sandbox plants API (plain http is allowed).',
			hint: 'Needed for the Sandbox Plants node; leave empty if you do not use it',
		},
	];

	/** An own property, not a method: see setsHeader. */
	authenticate = setsHeader('Authorization', (credentials) => `Bearer ${keyOf(credentials.accessToken)}`);
}
