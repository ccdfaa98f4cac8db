import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

import { isObject } from '../shared/errors';
import { serviceRequest } from '../shared/transport';
import type { Run, ServiceRequest } from '../shared/transport';

/** A template record as list templates returns it (spec part 2.5). */
export interface TemplateRecord {
	id: number;
	user_id?: string;
	name: string;
	category?: string;
	type?: string;
	language?: string;
	status?: string;
	variable_counts?: number;
	template_formate?: string;
	template_id: string;
}

export const TEMPLATE_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Spec 4.3: list templates answers a JSON array of template records. */
export const LIST_TEMPLATES: ServiceRequest = {
	api: 'templates',
	method: 'GET',
	path: '/get_templates',
	isSuccess: (answer) => Array.isArray(answer) && answer.every((record) => isObject(record) && typeof record.template_id === 'string'),
};

/** All templates of the account (the API has no paging or filters). */
export async function listTemplates(this: IExecuteFunctions | ILoadOptionsFunctions, itemIndex = 0): Promise<TemplateRecord[]> {
	return (await serviceRequest.call(this, itemIndex, LIST_TEMPLATES)) as TemplateRecord[];
}

/** The account's templates as the service has them now, read once per run and shared by its items. */
export async function accountTemplates(this: IExecuteFunctions, run: Run, itemIndex: number): Promise<TemplateRecord[]> {
	return await run.once('templates', async () => await listTemplates.call(this, itemIndex));
}

export interface TemplateVariable {
	name: string;
	label: string;
}

const MEDIA_TOKEN = /\[m(?:edia)?(?::[^\]]*)?\]|\{\{\s*media\s*\}\}/i;
const BUTTON_TOKEN = /\[(?:u|url|btn|button)(?::[^\]]*)?\]|visit_website/i;
const BODY_TOKEN = /\[b(?:ody)?:(\d+)\]|\{\{\s*(?:body)?(\d+)\s*\}\}|\bbody(\d+)\b/gi;

/**
 * The variable names a template takes: body1..bodyN, plus `media` when it has a media header
 * and `visit_website` when it has a dynamic button link. `variable_counts` counts every
 * placeholder; `template_formate` shows which kinds there are ([b:1] a body variable,
 * [m:...] media, [u:...] a button URL parameter). When the count is missing, the body
 * placeholders of the format string are counted instead.
 */
export function templateVariables(record: TemplateRecord): TemplateVariable[] {
	const format = typeof record.template_formate === 'string' ? record.template_formate : '';
	const hasMedia = MEDIA_TOKEN.test(format);
	const hasButton = BUTTON_TOKEN.test(format);
	const count = Number(record.variable_counts);
	let bodies: number;
	if (Number.isInteger(count) && count >= 0) {
		bodies = Math.max(0, count - Number(hasMedia) - Number(hasButton));
	} else {
		const numbers = [...format.matchAll(BODY_TOKEN)].map((match) => Number(match[1] ?? match[2] ?? match[3]));
		bodies = numbers.length > 0 ? Math.max(...numbers) : 0;
	}
	const variables: TemplateVariable[] = [];
	for (let n = 1; n <= bodies; n++) {
		variables.push({ name: `body${n}`, label: `Body ${n}` });
	}
	if (hasMedia) variables.push({ name: 'media', label: 'Media URL' });
	if (hasButton) variables.push({ name: 'visit_website', label: 'Website Button Parameter' });
	return variables;
}

/** How a template reads in the picker: "order_confirmation (en_US · UTILITY · APPROVED)". */
export function templateLabel(record: TemplateRecord): string {
	const facts = [record.language, record.category, record.status].filter((fact) => typeof fact === 'string' && fact !== '');
	return facts.length > 0 ? `${record.name} (${facts.join(' · ')})` : record.name;
}
