import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllOrLimitFields } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import type { ServiceApi } from '../../../shared/transport';

export const option = { name: 'Get Many', value: 'getAll', action: 'Get many plants', description: 'List plants of the sandbox store' };

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'sandbox';

const properties: INodeProperties[] = [
	...returnAllOrLimitFields,
];

export const description = updateDisplayOptions({ show: { resource: ['plant'], operation: ['getAll'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) === true;
	const limit = returnAll ? Infinity : new ItemInput(this, itemIndex).integer('limit', 'Limit', { min: 1 });
	return {
		// Return All sends no limit: the API then returns every plant.
		// Spec 4.6: an array of {name, tag}; one of anything else (null, text, a list) is no plant list.
		request: { api, method: 'GET', path: '/plants', qs: returnAll ? undefined : { limit }, isSuccess: (answer) => Array.isArray(answer) && answer.every(isObject) },
		// A service that ignores `limit` still gives no more than asked.
		output: (answer) => (answer as IDataObject[]).slice(0, limit),
	};
}
