import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import { firstOf } from '../../../shared/output';
import type { ItemNeedingService } from '../../../shared/router';
import type { Run, ServiceApi } from '../../../shared/transport';
import { asText, checkAttachmentUrl, isBlank, ItemInput, quoted } from '../../../shared/validation';
import { accountTemplates, findTemplate, isTemplateId, nameOf, templateVariables, unsendableStatus, variableNames, variablesNamedByText, variablesTaken } from '../../templates';
import type { TemplateRecord } from '../../templates';

export const option = {
	name: 'Send Template',
	value: 'sendTemplate',
	action: 'Send a template message',
	description: 'Send a message built from one of your approved templates and its variables',
};

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'templateSend';

const properties: INodeProperties[] = [
	phoneNumberField('phoneNumber', 'Phone Number'),
	{
		displayName: 'Template',
		name: 'template',
		type: 'resourceLocator',
		// Not marked required: n8n's own "workflow has issues" would name neither item nor field (descriptions.ts).
		default: { mode: 'list', value: '' },
		description: 'Required. The template to send. Its variables appear below once it is chosen.',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a template...',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				// Checked by the node itself when it runs (prepare): a regex here is run by n8n in a
				// sandbox with a 250 ms limit for every item, which a busy server exceeds.
				placeholder: 'e.g. 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b',
			},
		],
	},
	{
		displayName: 'Variables',
		name: 'variables',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		description: "Values for the template's placeholders; every value is sent as text",
		typeOptions: {
			loadOptionsDependsOn: ['template.value'],
			resourceMapper: {
				resourceMapperMethod: 'getTemplateVariables',
				mode: 'add',
				fieldWords: { singular: 'variable', plural: 'variables' },
				valuesLabel: 'Variables',
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
	},
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendTemplate'] } }, properties);

/**
 * The values the item gives for the template's variables, every value as text: the mapper's
 * values ("Map Each Column Manually"), or a plain object from an expression or an AI tool call.
 * Undefined for "Map Automatically": the item's fields named as the template's variables, which
 * only the live template tells (autoMappedValues).
 */
function mappedValues(input: ItemInput, parameter: unknown): Map<string, string> | undefined {
	const mapper = isObject(parameter) ? parameter : {};
	const isMapper = 'mappingMode' in mapper || 'schema' in mapper;
	if (isMapper && mapper.mappingMode === 'autoMapInputData') return undefined;
	if (!isMapper) return asTexts(input, mapper as IDataObject);
	// A field the user removed from the list (or one of a template chosen before) is not sent, whatever value it kept.
	const removed = new Set(Array.isArray(mapper.schema) ? mapper.schema.filter((field) => isObject(field) && field.removed === true).map((field) => String((field as IDataObject).id)) : []);
	const values = isObject(mapper.value) ? (mapper.value as IDataObject) : {};
	return asTexts(input, Object.fromEntries(Object.entries(values).filter(([name]) => !removed.has(name))));
}

/** The variable names spec 2.3 knows. */
const KNOWN_VARIABLES = ['body1', 'body2', 'body3', 'media', 'visit_website'];

/** The fields "Map Automatically" sends: the template's variables, or without its list entry every name the spec knows. */
const autoMapNames = (record: TemplateRecord | undefined) => (record ? variableNames(record) : KNOWN_VARIABLES);

/** "Map Automatically": the item's fields of the same names as the template's variables. */
function autoMappedValues(input: ItemInput, item: IDataObject, expected: string[]): Map<string, string> {
	return asTexts(input, Object.fromEntries(Object.entries(item).filter(([name]) => expected.includes(name))));
}

function asTexts(input: ItemInput, values: IDataObject): Map<string, string> {
	// A Map: a name such as __proto__ stays a name, not an object's prototype.
	const provided = new Map<string, string>();
	for (const [name, value] of Object.entries(values)) {
		if (value === null || value === undefined) continue;
		const text = asText(value);
		if (text === undefined) input.fail(`variables.${name}`, `Variable "${name}"`, 'must be text or a finite number, not an object or list');
		// Spec 2.3: the media variable is the URL of the attachment, which the service fetches (as Send's Attachment URL).
		if (name === 'media' && !isBlank(text)) {
			const check = checkAttachmentUrl(text);
			if (!check.ok) input.fail('variables.media', 'Variable "media" (Media URL)', check.problem);
		}
		provided.set(name, text);
	}
	return provided;
}

/**
 * The variables the item sends: every value given, and not empty (one mapping can then serve
 * templates chosen per item that take different variables). When the account's list has the
 * template, an item that leaves out one of its variables fails before anything is sent, naming
 * what is missing as the editor shows it: each one by its name when the template's text names
 * them all (variablesNamedByText), else by how many it takes. Then too, a body variable the text
 * does not show fails (spec 2.3: "Keys must match the template's variables"). The media header
 * and the button link are not judged: a template may have them without its text showing them.
 */
export function variablesToSend(input: ItemInput, template: TemplateRecord | undefined, provided: Map<string, string>): Record<string, string> {
	const given = new Map([...provided].filter(([, value]) => !isBlank(value)));
	if (!template) return Object.fromEntries(given);
	const taken = variablesTaken(template);
	const names = variableNames(template);
	const namedByText = variablesNamedByText(template);
	const takes = taken === 0 ? 'it takes no variables' : `it takes ${taken}${names.length > 0 ? ` (${names.join(', ')})` : ''}`;
	if (given.size < taken || (namedByText && names.some((name) => !given.has(name)))) {
		const labels = new Map(templateVariables(template).map((variable) => [variable.name, variable.label]));
		const missing = names.filter((name) => !given.has(name));
		const what = missing.length > 0 ? `a value for ${missing.map((name) => `"${labels.get(name) ?? name}"`).join(', ')}` : `${taken - given.size} more variable value(s)`;
		// Named as the editor shows the field ("Body 2: …appointment on {2}."), not by its key.
		input.fail('variables', 'Variables', `template "${nameOf(template)}" needs ${what}; ${takes}`);
	}
	const extra = namedByText ? [...given.keys()].filter((name) => /^body\d+$/.test(name) && !names.includes(name)) : [];
	if (extra.length > 0) {
		input.fail('variables', 'Variables', `template "${nameOf(template)}" does not take ${extra.map((name) => `"${name}"`).join(', ')}; ${takes}. Leave ${taken === 0 ? 'them' : 'the others'} empty for this template`);
	}
	return Object.fromEntries(given);
}

/**
 * The template IDs of a run's items (those that passed their own checks), in one letter case. A
 * list of templates that shows one of them is this account's: an item whose template it does not
 * show names one the account does not have, and fails before anything is sent. A list that shows
 * none of them (another account's, another environment's) judges none: those messages go, and
 * the template send says whether it knows the template.
 */
interface RunTemplates {
	ids: Set<string>;
	/** Whether the account's list shows any of `ids`: known once the list is read. */
	listed?: boolean;
}

const runTemplates = (run: Run) => run.once<RunTemplates>('templateIds', () => ({ ids: new Set() }));

function listsTheRun(run: Run, records: TemplateRecord[]): boolean {
	const templates = runTemplates(run);
	if (templates.listed === undefined) {
		const listed = new Set(records.map((record) => String(record.template_id).toLowerCase()));
		templates.listed = [...templates.ids].some((id) => listed.has(id));
	}
	return templates.listed;
}

/** Spec 2.4: `{success: true, messaging_response_info: {...}}`. */
const isSuccess = (answer: unknown) => isObject(answer) && answer.success === true && isObject(answer.messaging_response_info);

/**
 * Checks what the item alone tells (phone number, the template ID's form, the mapped values'
 * types); the account's templates are read once every item passed these checks
 * (checkAgainstService).
 */
export function prepare(this: IExecuteFunctions, itemIndex: number, run: Run): ItemNeedingService {
	const input = new ItemInput(this, itemIndex);
	const phoneNumber = input.phone('phoneNumber', 'Phone Number');
	const templateId = input.optionalText('template', 'Template', { extractValue: true }).trim();
	if (templateId === '') input.fail('template', 'Template', 'choose a template from the list or enter its ID');
	if (!isTemplateId(templateId)) {
		input.fail('template', 'Template', `${quoted(templateId)} is not a template ID; template IDs are UUIDs such as 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b`);
	}
	const mapped = mappedValues(input, this.getNodeParameter('variables', itemIndex, {}));
	runTemplates(run).ids.add(templateId.toLowerCase());
	return {
		checkAgainstService: async () => {
			const records = await accountTemplates(run, itemIndex);
			const record = findTemplate(records, templateId);
			// A bad row must not leave half a batch delivered: what the list says of the template
			// (one the platform will not send, one the account does not have) fails the item now.
			const unsendable = record && unsendableStatus(record);
			if (unsendable) input.fail('template', 'Template', `template "${nameOf(record)}" is ${unsendable}; choose an approved template`);
			if (!record && listsTheRun(run, records)) {
				input.fail(
					'template',
					'Template',
					`${quoted(templateId)} is not one of the ${records.length} templates your account lists (the other items' templates are among them); check the ID, or choose the template from the list`,
				);
			}
			const provided = mapped ?? autoMappedValues(input, this.getInputData()[itemIndex]?.json ?? {}, autoMapNames(record));
			const variables = variablesToSend(input, record, provided);
			// The account's own spelling of the ID when it lists it: the service may compare it as text.
			const template = record?.template_id ?? templateId;
			return {
				request: {
					api,
					method: 'POST',
					path: '/send_template_message_by_api',
					body: { template, variables, phone_number: phoneNumber },
					isSuccess,
				},
				recipient: phoneNumber,
				output: (answer) => {
					const info = (answer as IDataObject).messaging_response_info as IDataObject;
					const sent = firstOf(info.messages);
					const contact = firstOf(info.contacts);
					return {
						success: true,
						to: phoneNumber,
						template,
						...(record ? { templateName: record.name } : {}),
						messageId: sent?.id,
						status: sent?.message_status,
						recipientId: contact?.wa_id,
					};
				},
			};
		},
	};
}
