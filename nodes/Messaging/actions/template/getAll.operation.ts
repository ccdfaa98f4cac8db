import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllOrLimitFields } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import { LIST_TEMPLATES, nameText, textOf } from '../../templates';
import type { TemplateRecord } from '../../templates';

export const option = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many templates',
	description: "List your account's templates",
};

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api = LIST_TEMPLATES.api;

const properties: INodeProperties[] = [
	...returnAllOrLimitFields,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Category',
				name: 'category',
				type: 'options',
				default: 'UTILITY',
				options: [
					{ name: 'Authentication', value: 'AUTHENTICATION' },
					{ name: 'Marketing', value: 'MARKETING' },
					{ name: 'Utility', value: 'UTILITY' },
				],
				description: 'Only templates of this category',
			},
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'e.g. en_US',
				description: 'Only templates in this language code (en also matches en_US; en-US is en_US)',
			},
			{
				displayName: 'Name Contains',
				name: 'nameContains',
				type: 'string',
				default: '',
				description: 'Only templates whose name contains this text (case does not matter)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'APPROVED',
				options: [
					{ name: 'Approved', value: 'APPROVED' },
					{ name: 'Pending', value: 'PENDING' },
					{ name: 'Rejected', value: 'REJECTED' },
				],
				description: 'Only templates with this approval status',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['template'], operation: ['getAll'] } }, properties);

const same = (a: unknown, b: unknown) => String(a ?? '').toLowerCase() === String(b ?? '').toLowerCase();

/** A filter value may be one value or, from an expression, a list of them. */
const anyOf = (wanted: unknown, actual: unknown) =>
	(Array.isArray(wanted) ? wanted : [wanted]).some((value) => same(value, actual));

const languageCode = (code: string) => code.trim().toLowerCase().replace(/-/g, '_');

export function filterTemplates(templates: TemplateRecord[], filters: IDataObject): TemplateRecord[] {
	const { status, category, language, nameContains } = filters;
	const present = (value: unknown) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
	// Text fields only (textOf): a status ['APPROVED'] is no Approved one.
	return templates.filter(
		(template) =>
			(!present(status) || anyOf(status, textOf(template.status))) &&
			(!present(category) || anyOf(category, textOf(template.category))) &&
			(!present(language) ||
				(Array.isArray(language) ? language : [language]).some((code) => {
					// en_US and en-US are one code, as the platform and the web write it.
					const wanted = languageCode(String(code));
					const its = languageCode(textOf(template.language));
					return its === wanted || its.startsWith(`${wanted}_`);
				})) &&
			(!present(nameContains) || nameText(template).toLowerCase().includes(String(nameContains).toLowerCase())),
	);
}

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) === true;
	const limit = returnAll ? Infinity : new ItemInput(this, itemIndex).integer('limit', 'Limit', { min: 1 });
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return {
		request: LIST_TEMPLATES,
		// The API returns every template at once; filters and the limit apply here. Each record as the
		// service sent it (an element that is no object is no record, and no n8n item).
		output: (answer) => filterTemplates((answer as unknown[]).filter(isObject) as unknown as TemplateRecord[], filters).slice(0, limit) as unknown as IDataObject[],
	};
}
