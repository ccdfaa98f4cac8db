import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listTemplates, templateLabel } from '../templates';

/** The template picker: the account's templates, approved first, searchable by name or ID. */
export async function searchTemplates(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const templates = (await listTemplates.call(this))
		.filter(
			(template) =>
				needle === '' ||
				String(template.name ?? '').toLowerCase().includes(needle) ||
				String(template.template_id ?? '').toLowerCase() === needle,
		)
		.sort((a, b) => {
			const approvedFirst = Number(b.status === 'APPROVED') - Number(a.status === 'APPROVED');
			return approvedFirst !== 0 ? approvedFirst : String(a.name).localeCompare(String(b.name));
		});
	return { results: templates.map((template) => ({ name: templateLabel(template), value: template.template_id })) };
}
