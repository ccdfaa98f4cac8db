import type { IDataObject } from 'n8n-workflow';

/** The first element of an array field, when it is an object. */
export function firstOf(value: unknown): IDataObject | undefined {
	return Array.isArray(value) && typeof value[0] === 'object' && value[0] !== null ? (value[0] as IDataObject) : undefined;
}
