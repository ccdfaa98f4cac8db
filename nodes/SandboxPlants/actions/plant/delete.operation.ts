import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import { ItemInput } from '../../../shared/validation';
import { plantIdField } from './fields';

export const option = { name: 'Delete', value: 'delete', action: 'Delete a plant', description: 'Remove a plant by its ID' };

const properties: INodeProperties[] = [
	plantIdField('ID of the plant to delete'),
];

export const description = updateDisplayOptions({ show: { resource: ['plant'], operation: ['delete'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = new ItemInput(this, itemIndex).integer('plantId', 'Plant ID', { min: 0 });
	await serviceRequest.call(this, itemIndex, { api: 'sandbox', method: 'DELETE', path: `/plants/${id}` });
	return { deleted: true, id };
}
