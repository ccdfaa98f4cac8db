import type { INodeProperties } from 'n8n-workflow';

/** A recipient's phone number field; every send variant has one, under its own name. */
export function phoneNumberField(name: string, displayName: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description:
			'Recipient number in international E.164 format (+, country code, number). Spaces, dashes, dots and brackets are ignored; a leading 00 counts as +.',
	};
}

/** The message text field of a send. */
export function messageTextField(name: string, displayName: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description: 'The message to send',
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
