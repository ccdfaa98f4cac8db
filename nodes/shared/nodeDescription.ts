import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from './router';
import { SERVICE_APIS } from './transport';

/** The Operation selector of one resource, built from its operations (sorted, as n8n lists them). */
export function operationSelector(resource: string, operations: ResourceOperations, defaultOperation: string): INodeProperties[] {
	const modules = Object.values(operations);
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource] } },
			options: modules.map((module) => module.option).sort((a, b) => a.name.localeCompare(b.name)),
			default: defaultOperation,
		},
		...modules.flatMap((module) => module.description),
	];
}

/**
 * For which operations the editor shows `credentialType`: those whose API group it signs
 * (SERVICE_APIS). So exactly one credential shows at a time, and a new operation gets its
 * credential field with no other edit.
 */
export function shownForApisOf(credentialType: string, resources: Record<string, ResourceOperations>): INodeCredentialDescription['displayOptions'] {
	const operations = Object.values(resources).flatMap((list) =>
		Object.entries(list)
			.filter(([, operation]) => SERVICE_APIS[operation.api].credentialType === credentialType)
			.map(([value]) => value),
	);
	return { show: { operation: operations } };
}

/**
 * The node's subtitle on the canvas: the chosen operation as the Operation selector names it,
 * then its resource ("Send via Dashboard (V2): Message"); n8n's own Custom API Call reads as such.
 * n8n's lint wants the subtitle written out in the node's description: a test holds the two
 * together (test/unit/node-description.test.ts). A chain of comparisons only (no object literal,
 * no function): the plainest expression every n8n version's editor evaluates.
 */
export function subtitleOf(resources: Record<string, ResourceOperations>): string {
	const cases: string[] = [];
	for (const [resource, operations] of Object.entries(resources)) {
		const title = resource.slice(0, 1).toUpperCase() + resource.slice(1);
		for (const [value, operation] of Object.entries(operations)) {
			cases.push(`$parameter["resource"] + ":" + $parameter["operation"] === ${JSON.stringify(`${resource}:${value}`)} ? ${JSON.stringify(`${operation.option.name}: ${title}`)}`);
		}
	}
	return `={{ ${cases.join(' : ')} : "Custom API Call" }}`;
}
