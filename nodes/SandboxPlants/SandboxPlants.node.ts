import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { messagingBearerApiTest } from '../shared/credentialTests';
import { shownForApisOf } from '../shared/nodeDescription';
import { router } from '../shared/router';
import { requestOptionsDescription } from '../shared/transport';
import * as plant from './actions/plant';

const RESOURCES = { plant: plant.operations };

export class SandboxPlants implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Sandbox Plants',
		name: 'sandboxPlants',
		icon: { light: 'file:../../icons/sandboxPlants.svg', dark: 'file:../../icons/sandboxPlants.dark.svg' },
		group: ['transform'],
		version: 1,
		// The operation as its selector names it (subtitleOf, which a test holds it to).
		subtitle:
			'={{ $parameter["resource"] + ":" + $parameter["operation"] === "plant:create" ? "Create: Plant" : $parameter["resource"] + ":" + $parameter["operation"] === "plant:getAll" ? "Get Many: Plant" : $parameter["resource"] + ":" + $parameter["operation"] === "plant:delete" ? "Delete: Plant" : "Custom API Call" }}',
		description: 'Create, list and delete plants in the sandbox sample API',
		defaults: { name: 'Sandbox Plants' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingBearerApi', required: true, testedBy: 'messagingBearerApiTest', displayOptions: shownForApisOf('messagingBearerApi', RESOURCES) }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'Plant', value: 'plant' }],
				default: 'plant',
			},
			...plant.description,
			requestOptionsDescription,
		],
	};

	methods = { credentialTest: { messagingBearerApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this, RESOURCES);
	}
}
