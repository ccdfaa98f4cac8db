import type { INodeProperties } from 'n8n-workflow';

/*
 * The fields below are needed, but not marked `required`: n8n refuses to run a node with an empty
 * required field with its own "workflow has issues", which names neither the item nor the field.
 * The node checks them itself (ItemInput) and its error names both; the description says they are needed.
 */

/** A recipient's phone number field; every send variant has one, under its own name. */
export function phoneNumberField(name: string, displayName: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		default: '',
		placeholder: 'e.g. +14155550123',
		description:
			'Required. Recipient number in international E.164 format (+, country code, number). Spaces, dashes, dots and brackets are ignored; a leading 00 counts as +.',
	};
}

/** The message text field of a send. */
export function messageTextField(name: string, displayName: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		default: '',
		typeOptions: { rows: 4 },
		description: 'Required. The message to send.',
	};
}

/** Return All / Limit, as n8n's list operations offer them. */
export const returnAllOrLimitFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];
