import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { isApproved, listTemplates, templateDescription, templateLabel, templateText } from '../templates';
import type { TemplateRecord } from '../templates';

/** What a search looks in, in one letter case: the picker's line and second line, the whole text, and the ID. */
const searchedText = (template: TemplateRecord) =>
	[templateLabel(template), templateDescription(template), templateText(template), String(template.template_id ?? '')].join('\n').toLowerCase();

/**
 * The template picker: the account's templates, approved first (the others are marked as not
 * sendable in their name), each with its text, searchable by what the list shows of it (name,
 * language, text, category, status) and by its ID or a part of it.
 */
export async function searchTemplates(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const templates = (await listTemplates.call(this))
		.filter((template) => needle === '' || searchedText(template).includes(needle))
		.sort((a, b) => {
			const approvedFirst = Number(isApproved(b)) - Number(isApproved(a));
			return approvedFirst !== 0 ? approvedFirst : String(a.name).localeCompare(String(b.name));
		});
	return {
		results: templates.map((template) => ({
			name: templateLabel(template),
			value: template.template_id,
			description: templateDescription(template),
		})),
	};
}
