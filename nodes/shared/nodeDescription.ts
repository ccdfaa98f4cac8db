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
 * The node's credentials, derived from its operations' API groups (SERVICE_APIS): each credential
 * type is shown for the operations whose API it signs, so exactly one shows at a time, and a new
 * operation gets its credential field without another edit. Each is tested by the function of
 * the same name plus "Test" (credentialTests.ts).
 */
export function credentialsOf(resources: Record<string, ResourceOperations>): INodeCredentialDescription[] {
	const operationsOf = new Map<string, string[]>();
	for (const operations of Object.values(resources)) {
		for (const [value, operation] of Object.entries(operations)) {
			const type = SERVICE_APIS[operation.api].credentialType;
			operationsOf.set(type, [...(operationsOf.get(type) ?? []), value]);
		}
	}
	return [...operationsOf].map(([name, operations]) => ({
		name,
		required: true,
		testedBy: `${name}Test`,
		displayOptions: { show: { operation: operations } },
	}));
}

/** The subtitle under the node on the canvas: what the chosen operation does, in words ("Send a template message"). */
export function subtitleOf(resources: Record<string, ResourceOperations>): string {
	const actions = Object.fromEntries(Object.values(resources).flatMap((operations) => Object.entries(operations).map(([value, operation]) => [value, operation.option.action])));
	return `={{ ${JSON.stringify(actions)}[$parameter["operation"]] ?? $parameter["operation"] }}`;
}
