import { updateDisplayOptions } from 'n8n-workflow';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import { plantIdField } from './fields';
import type { ServiceApi } from '../../../shared/transport';

export const option = { name: 'Delete', value: 'delete', action: 'Delete a plant', description: 'Remove a plant by its ID' };

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'sandbox';

const properties: INodeProperties[] = [
	plantIdField('ID of the plant to delete'),
];

export const description = updateDisplayOptions({ show: { resource: ['plant'], operation: ['delete'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const id = new ItemInput(this, itemIndex).integer('plantId', 'Plant ID', { min: 0 });
	return {
		// Spec 4.6: no body. An empty answer or JSON is taken; an HTML page is not the sandbox.
		request: { api, method: 'DELETE', path: `/plants/${id}`, isSuccess: (answer) => answer === undefined || answer === null || answer === '' || typeof answer === 'object' },
		output: () => ({ deleted: true, id }),
	};
}
