import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** An operation's tidy output, plus the service's whole answer when "Include Raw Response" is on. */
export function withRawResponse(
	context: IExecuteFunctions,
	itemIndex: number,
	output: IDataObject,
	response: unknown,
): IDataObject {
	const include = context.getNodeParameter('options.includeRawResponse', itemIndex, false) === true;
	return include ? { ...output, rawResponse: response as IDataObject } : output;
}

/** The first element of an array field, when it is an object. */
export function firstOf(value: unknown): IDataObject | undefined {
	return Array.isArray(value) && typeof value[0] === 'object' && value[0] !== null ? (value[0] as IDataObject) : undefined;
}
