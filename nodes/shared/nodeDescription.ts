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
