import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { isApproved, listTemplates, templateDescription, templateLabel, templateText } from '../templates';

/**
 * The template picker: the account's templates, approved first (the others are marked as not
 * sendable in their name), each with its text, searchable by name, text or ID.
 */
export async function searchTemplates(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const templates = (await listTemplates.call(this))
		.filter(
			(template) =>
				needle === '' ||
				String(template.name ?? '').toLowerCase().includes(needle) ||
				templateText(template).toLowerCase().includes(needle) ||
				String(template.template_id ?? '').toLowerCase() === needle,
		)
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
