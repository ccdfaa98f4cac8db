import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { isApproved, listTemplates, nameOf, templateDescription, templateLabel, templateText } from '../templates';
import type { TemplateRecord } from '../templates';

/** What a search looks in, in one letter case: the picker's line and second line, the whole text, and the ID. */
const searchedText = (template: TemplateRecord) =>
	[templateLabel(template), templateDescription(template), templateText(template), String(template.template_id ?? '')].join('\n').toLowerCase();

/**
 * The template picker: the account's templates, approved first (the others are marked in their
 * name with their status), in the order of the names shown, each with its text, searchable by
 * what the list shows of it (name, language, text, category, status) and by its ID or a part of
 * it. Templates that would show the same line (the same name, language and text) each show their
 * ID too, so the user can tell which one they pick.
 */
export async function searchTemplates(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const templates = (await listTemplates.call(this))
		.filter((template) => needle === '' || searchedText(template).includes(needle))
		.sort((a, b) => {
			const approvedFirst = Number(isApproved(b)) - Number(isApproved(a));
			return approvedFirst !== 0 ? approvedFirst : nameOf(a).localeCompare(nameOf(b));
		});
	const labels = templates.map(templateLabel);
	const shown = new Map<string, number>();
	for (const label of labels) shown.set(label, (shown.get(label) ?? 0) + 1);
	return {
		results: templates.map((template, index) => ({
			name: shown.get(labels[index])! > 1 ? `${labels[index]} [ID ${template.template_id}]` : labels[index],
			value: template.template_id,
			description: templateDescription(template),
		})),
	};
}
