import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { credentialsOf, subtitleOf } from '../shared/nodeDescription';
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
		subtitle: subtitleOf(resources),
		description: 'Send messages and template messages to phone numbers, and list your templates',
		defaults: { name: 'Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Each API takes its own kind of key: the credential shown follows the operation's API.
		credentials: credentialsOf(resources),
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
