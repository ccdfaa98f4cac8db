import { updateDisplayOptions } from 'n8n-workflow';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { confirmsInWords } from '../../../shared/errors';
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

/** What a server writes in place of no body. */
const NO_BODY_WORDS = /^\s*(?:|ok|accepted|no content|deleted|success|done)\s*$/i;
/** A word a short confirmation says it with ("Deleted successfully", "Plant 7 removed"). */
const DELETED_WORD = /\b(?:deleted|removed|success(?:ful(?:ly)?)?)\b/i;
/** Plain words, not a page: a status's own words, or a short confirmation that names no failure ("Plant not found" is one). */
const saysDeleted = (answer: string) => NO_BODY_WORDS.test(answer) || (answer.length <= 200 && !answer.includes('<') && confirmsInWords(DELETED_WORD, answer));

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const id = new ItemInput(this, itemIndex).integer('plantId', 'Plant ID', { min: 0 });
	return {
		// Spec 4.6: no body. An empty answer or JSON is taken, the status's own words a server
		// framework writes for "no body" (Express's res.sendStatus(200) answers "OK"; outside review:
		// a failure), and a short text that says it deleted ("Deleted successfully"; a delete is
		// idempotent, so words read too kindly cost no message); an HTML page is not the sandbox.
		request: { api, method: 'DELETE', path: `/plants/${id}`, isSuccess: (answer) => answer === undefined || answer === null || typeof answer === 'object' || (typeof answer === 'string' && saysDeleted(answer)) },
		output: () => ({ deleted: true, id }),
	};
}
