import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties, ResourceMapperField } from 'n8n-workflow';

import { phoneNumberField } from '../../../shared/descriptions';
import { firstOf, withRawResponse } from '../../../shared/output';
import { serviceRequest } from '../../../shared/transport';
import { asText, ItemInput, quoted } from '../../../shared/validation';
import { TEMPLATE_ID_PATTERN } from '../../templates';

export const option = {
	name: 'Send Template',
	value: 'sendTemplate',
	action: 'Send a template message',
	description: 'Send a message built from one of your approved templates and its variables',
};

const properties: INodeProperties[] = [
	phoneNumberField('phoneNumber', 'Phone Number'),
	{
		displayName: 'Template',
		name: 'template',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description: 'The template to send. Its variables appear below once it is chosen.',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a template...',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b',
				validation: [
					{
						type: 'regex',
						properties: { regex: TEMPLATE_ID_PATTERN, errorMessage: 'Not a template ID (a UUID such as 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b)' },
					},
				],
			},
		],
	},
	{
		displayName: 'Variables',
		name: 'variables',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		description: "Values for the template's placeholders; every value is sent as text",
		typeOptions: {
			loadOptionsDependsOn: ['template.value'],
			resourceMapper: {
				resourceMapperMethod: 'getTemplateVariables',
				mode: 'add',
				fieldWords: { singular: 'variable', plural: 'variables' },
				valuesLabel: 'Variables',
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
	},
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendTemplate'] } }, properties);

const templateIdPattern = new RegExp(TEMPLATE_ID_PATTERN);

/**
 * The variables to send, every value as text. When the editor loaded the template's fields
 * (the mapper keeps them as its schema), they must fit: no unknown names, no missing ones.
 */
export function readVariables(input: ItemInput, parameter: unknown, item: IDataObject): Record<string, string> {
	const mapper = (typeof parameter === 'object' && parameter !== null ? parameter : {}) as IDataObject;
	const isMapper = 'mappingMode' in mapper || 'schema' in mapper;
	const schema = (Array.isArray(mapper.schema) ? (mapper.schema as unknown as ResourceMapperField[]) : []).filter(
		(field) => !field.removed,
	);
	let values: IDataObject;
	if (!isMapper) values = mapper;
	else if (mapper.mappingMode === 'autoMapInputData') values = item;
	else values = (mapper.value ?? {}) as IDataObject;

	const expected = schema.map((field) => field.id);
	const variables: Record<string, string> = {};
	for (const [name, value] of Object.entries(values)) {
		if (isMapper && mapper.mappingMode === 'autoMapInputData' && !expected.includes(name)) continue;
		if (value === null || value === undefined) continue;
		const text = asText(value);
		if (text === undefined) input.fail(`variables.${name}`, `Variable "${name}"`, 'must be text, not an object or list');
		variables[name] = text;
	}
	if (expected.length > 0) {
		const unknown = Object.keys(variables).filter((name) => !expected.includes(name));
		if (unknown.length > 0) {
			input.fail('variables', 'Variables', `the template has no variable ${unknown.map((name) => `"${name}"`).join(', ')}; it takes ${expected.join(', ')}`);
		}
		const missing = schema.filter((field) => field.required && (variables[field.id] ?? '').trim() === '').map((field) => field.id);
		if (missing.length > 0) {
			input.fail(
				'variables',
				'Variables',
				`the template needs ${missing.map((name) => `"${name}"`).join(', ')} (it takes ${expected.length}: ${expected.join(', ')})`,
			);
		}
	}
	return variables;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const phoneNumber = input.phone('phoneNumber', 'Phone Number');
	const template = String(this.getNodeParameter('template', itemIndex, '', { extractValue: true }) ?? '').trim();
	if (template === '') input.fail('template', 'Template', 'choose a template from the list or enter its ID');
	if (!templateIdPattern.test(template)) {
		input.fail('template', 'Template', `${quoted(template)} is not a template ID; template IDs are UUIDs such as 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b`);
	}
	const variables = readVariables(input, this.getNodeParameter('variables', itemIndex, {}), this.getInputData()[itemIndex]?.json ?? {});

	const response = (await serviceRequest.call(this, itemIndex, {
		api: 'templateSend',
		method: 'POST',
		path: '/send_template_message_by_api',
		body: { template, variables, phone_number: phoneNumber },
	})) as IDataObject | undefined;

	const info = (response?.messaging_response_info ?? {}) as IDataObject;
	const sent = firstOf(info.messages);
	const contact = firstOf(info.contacts);
	return withRawResponse(
		this,
		itemIndex,
		{
			success: true,
			to: phoneNumber,
			template,
			messageId: sent?.id,
			status: sent?.message_status,
			recipientId: contact?.wa_id,
		},
		response,
	);
}
