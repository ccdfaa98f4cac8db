import type { INodeParameters, ResourceMapperValue } from 'n8n-workflow';

export { runOn, useEmulator } from '../emulator/use';

export const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01';
export const ORDER_CONFIRMATION = '8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c02';

/** A resource mapper value as the editor saves it for the given variable names. */
export function mapperValue(
	values: NonNullable<ResourceMapperValue['value']>,
	fields = Object.keys(values),
): ResourceMapperValue {
	return {
		mappingMode: 'defineBelow',
		attemptToConvertTypes: false,
		convertFieldsToString: true,
		value: values,
		matchingColumns: [],
		schema: fields.map((id) => ({
			id,
			displayName: id,
			required: true,
			defaultMatch: false,
			display: true,
			type: 'string' as const,
			canBeUsedToMatch: false,
		})),
	};
}

/** A template chosen by its ID, as the Template field's "By ID" mode saves it. */
export const templateById = (value: string) => ({ __rl: true, mode: 'id', value });

/** Message → Send Template to +14155550123 with `template` and `variables`. */
export const sendTemplate = (template: unknown, variables: unknown): INodeParameters =>
	({ resource: 'message', operation: 'sendTemplate', phoneNumber: '+14155550123', template, variables }) as INodeParameters;

/**
 * Everything a user or a log could see of a run: output items (with the errors they carry),
 * the error and all its fields.
 */
export function visibleText(run: { items: unknown[]; outputs: unknown[][]; error?: Error; run: { error?: Error } }): string {
	const errors = [run.error, run.run.error, ...run.outputs.flat().map((item) => (item as { error?: Error }).error)].filter(Boolean) as Error[];
	const errorText = errors.map((error) => {
		const fields: Record<string, unknown> = {};
		for (const key of Object.getOwnPropertyNames(error)) fields[key] = (error as unknown as Record<string, unknown>)[key];
		return JSON.stringify(fields, (_, value) => (typeof value === 'bigint' ? String(value) : value)) + String(error.stack);
	});
	return JSON.stringify(run.outputs) + JSON.stringify(run.items) + errorText.join('\n');
}
