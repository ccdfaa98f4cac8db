import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { findTemplate, listTemplates, templateName, templateProblem, templateVariables } from '../templates';

/** The chosen template's variables as fields to fill in (body1..bodyN, media, visit_website). */
export async function getTemplateVariables(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const templateId = String(this.getNodeParameter('template', '', { extractValue: true }) ?? '').trim();
	if (templateId === '') return { fields: [], emptyFieldsNotice: 'Choose a template first' };

	let templates;
	try {
		templates = await listTemplates.call(this);
	} catch (error) {
		// Thrown, n8n's editor shows nothing: the fields vanish without a word (values set before stay, and are sent).
		const { message, description } = error as Error & { description?: unknown };
		const hint = typeof description === 'string' && description !== '' ? ` ${description}` : '';
		return { fields: [], emptyFieldsNotice: `The account's templates could not be read, so this template's variables cannot be shown: ${message}.${hint} Values set before are kept. Reopen the node to try again.` };
	}
	const template = findTemplate(templates, templateId);
	if (!template) {
		return { fields: [], emptyFieldsNotice: `No template with ID ${templateId} in this account` };
	}
	const problem = templateProblem(template);
	if (problem) return { fields: [], emptyFieldsNotice: `${templateName(template)} cannot be used: ${problem}` };
	const variables = templateVariables(template);
	if (variables.length === 0) return { fields: [], emptyFieldsNotice: 'This template has no variables' };
	return {
		fields: variables.map((variable) => ({
			id: variable.name,
			displayName: variable.label,
			// Every variable needs a value, and the node says so before sending, naming the field as
			// its label reads. Marked required, n8n's editor would refuse to run with its own message,
			// which names the variable's key ('Variable "body2" is required'), not what the user sees.
			required: false,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
	};
}
