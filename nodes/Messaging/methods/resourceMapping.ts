import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { baseUrlLeftEmpty } from '../../shared/transport';
import { findTemplate, listTemplates, templateName, templateProblem, templateVariables } from '../templates';

/** Said when the template is not chosen in the editor: its variables are known only when the node runs. */
const CHOSEN_WHEN_RUN =
	"The template is chosen when the node runs (by an expression, or by the AI model), so its variables cannot be shown here. To fill in a template's variables, choose the template here.";

/** Said when the credential has no Templates Base URL: the node cannot know any template's variables. */
const NO_TEMPLATES_URL =
	"Set the credential's Templates Base URL (API section of your account dashboard): without it the node cannot show this template's variables, so they cannot be filled in here. Values set before are kept.";

/** The template as the editor holds it: an expression (`=...`) stays one, a resource locator gives its value. */
function templateAsSet(context: ILoadOptionsFunctions): unknown {
	const raw = context.getCurrentNodeParameter('template');
	return raw !== null && typeof raw === 'object' && '__rl' in raw ? (raw as { value?: unknown }).value : raw;
}

/** The chosen template's variables as fields to fill in (body1..bodyN, media, visit_website). */
export async function getTemplateVariables(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const asSet = templateAsSet(this);
	let chosen: unknown;
	try {
		chosen = this.getNodeParameter('template', '', { extractValue: true });
	} catch {
		// An expression of the item's data: there is no item in the editor.
		chosen = undefined;
	}
	const templateId = typeof chosen === 'string' ? chosen.trim() : '';
	if (templateId === '') {
		// An expression that gives no ID here, or n8n 1.x's AI tool "defined by the model", which
		// arrives as an object (outside review: "No template with ID [object Object]").
		const byExpression = (typeof asSet === 'string' && asSet.startsWith('=')) || (chosen !== null && chosen !== undefined && typeof chosen !== 'string');
		return { fields: [], emptyFieldsNotice: byExpression ? CHOSEN_WHEN_RUN : 'Choose a template first' };
	}
	if (await baseUrlLeftEmpty(this, 'templates')) return { fields: [], emptyFieldsNotice: NO_TEMPLATES_URL };

	let templates;
	try {
		templates = await listTemplates.call(this);
	} catch (error) {
		// Thrown, n8n's editor shows nothing: the fields vanish without a word (values set before stay, and are sent).
		const { message, description } = error as Error & { description?: unknown };
		const hint = typeof description === 'string' && description !== '' ? ` ${description.replace(/\.?$/, '.')}` : '';
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
