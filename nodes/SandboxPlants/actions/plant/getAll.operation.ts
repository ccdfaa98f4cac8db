import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import { returnAllOrLimitFields } from '../../../shared/descriptions';
import { ItemInput } from '../../../shared/validation';

export const option = { name: 'Get Many', value: 'getAll', action: 'Get many plants', description: 'List plants of the sandbox store' };

const properties: INodeProperties[] = [
	...returnAllOrLimitFields,
];

export const description = updateDisplayOptions({ show: { resource: ['plant'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) === true;
	// Return All sends no limit: the API then returns every plant.
	const qs = returnAll ? undefined : { limit: new ItemInput(this, itemIndex).integer('limit', 'Limit', { min: 1 }) };
	const plants = await serviceRequest.call(this, itemIndex, { api: 'sandbox', method: 'GET', path: '/plants', qs });
	return Array.isArray(plants) ? (plants as IDataObject[]) : [];
}
