import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { shownForApisOf } from '../shared/nodeDescription';
import { router } from '../shared/router';
import { requestOptionsDescription } from '../shared/transport';
import { resourceDescriptions, resources } from './actions/resources';
import { credentialTest, listSearch, resourceMapping } from './methods';

export class Messaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging',
		name: 'messaging',
		icon: { light: 'file:../../icons/messaging.svg', dark: 'file:../../icons/messaging.dark.svg' },
		group: ['output'],
		version: 1,
		// The operation as its selector names it (subtitleOf, which a test holds it to).
		subtitle:
			'={{ $parameter["resource"] + ":" + $parameter["operation"] === "message:send" ? "Send: Message" : $parameter["resource"] + ":" + $parameter["operation"] === "message:sendTemplate" ? "Send Template: Message" : $parameter["resource"] + ":" + $parameter["operation"] === "message:sendDashboard" ? "Send via Dashboard (V2): Message" : $parameter["resource"] + ":" + $parameter["operation"] === "message:sendAlternative" ? "Send via Alternative API: Message" : $parameter["resource"] + ":" + $parameter["operation"] === "template:getAll" ? "Get Many: Template" : "Custom API Call" }}',
		description: 'Send messages and template messages to phone numbers, and list your templates',
		defaults: { name: 'Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Each API takes its own kind of key: the credential shown follows the operation's API.
		credentials: [
			{ name: 'messagingBearerApi', required: true, testedBy: 'messagingBearerApiTest', displayOptions: shownForApisOf('messagingBearerApi', resources) },
			{
				name: 'messagingAuthorizationKeyApi',
				required: true,
				testedBy: 'messagingAuthorizationKeyApiTest',
				displayOptions: shownForApisOf('messagingAuthorizationKeyApi', resources),
			},
			{ name: 'messagingXApiKeyApi', required: true, testedBy: 'messagingXApiKeyApiTest', displayOptions: shownForApisOf('messagingXApiKeyApi', resources) },
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Message', value: 'message' },
					{ name: 'Template', value: 'template' },
				],
				default: 'message',
			},
			...resourceDescriptions,
			requestOptionsDescription,
		],
	};

	methods = { listSearch, resourceMapping, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this, resources);
	}
}
