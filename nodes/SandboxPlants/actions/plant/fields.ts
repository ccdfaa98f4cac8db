import type { INodeProperties } from 'n8n-workflow';

export function plantIdField(description: string): INodeProperties {
	return {
		displayName: 'Plant ID',
		name: 'plantId',
		type: 'number',
		required: true,
		default: 1,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		description,
	};
}
