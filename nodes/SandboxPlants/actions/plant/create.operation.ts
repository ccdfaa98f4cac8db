import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isObject } from '../../../shared/errors';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import { plantIdField } from './fields';
import type { ServiceApi } from '../../../shared/transport';

export const option = { name: 'Create', value: 'create', action: 'Create a plant', description: 'Add a plant to the sandbox store' };

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'sandbox';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		// Not marked required: n8n's own "workflow has issues" would name neither item nor field (descriptions.ts).
		default: '',
		placeholder: 'e.g. Monstera',
		description: 'Required. Name of the plant.',
	},
	{ ...plantIdField('Whole-number ID of the new plant'), hint: 'An ID no plant has yet: the sandbox refuses one already taken (its list does not show IDs)' },
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Tag',
				name: 'tag',
				type: 'string',
				default: '',
				placeholder: 'e.g. indoor',
				description: 'A tag for the plant',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['plant'], operation: ['create'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const input = new ItemInput(this, itemIndex);
	const name = input.text('name', 'Name');
	const id = input.integer('plantId', 'Plant ID', { min: 0 });
	const tag = input.optionalText('additionalFields.tag', 'Tag');
	const body: IDataObject = { name, id };
	if (tag !== '') body.tag = tag;
	return {
		// Spec 4.6: the created plant, `{name, tag}`.
		request: { api, method: 'POST', path: '/plants', body, isSuccess: (answer) => isObject(answer) && typeof answer.name === 'string' },
		output: (answer) => {
			const plant = answer as IDataObject;
			// The service's tag as it says it (a null too); the one sent when its answer has none.
			return { name: plant.name, tag: 'tag' in plant ? plant.tag : body.tag };
		},
	};
}
