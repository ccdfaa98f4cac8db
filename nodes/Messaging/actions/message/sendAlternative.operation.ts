import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import { firstOf } from '../../../shared/output';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import type { ServiceApi } from '../../../shared/transport';

export const option = {
	name: 'Send via Alternative API',
	value: 'sendAlternative',
	action: 'Send a message via the alternative API',
	description: 'Send a text message through the v1 messages API, authorized with an X-API-Key',
};

/** The API group it calls: it decides the credential the editor shows (see credentialsOf). */
export const api: ServiceApi = 'alternative';

const properties: INodeProperties[] = [
	phoneNumberField('to', 'To'),
	messageTextField('message', 'Message'),
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendAlternative'] } }, properties);

/**
 * The spec does not describe this API's answer, so a success is a JSON object that says so in
 * one of the ways the service's other send APIs do: `success: true`, a message id, a list of
 * messages, or a result text. HTML, an empty body or JSON of another shape is not.
 */
const isSuccess = (answer: unknown) =>
	isObject(answer) &&
	(answer.success === true ||
		['id', 'message_id', 'messageId'].some((field) => typeof answer[field] === 'string' || typeof answer[field] === 'number') ||
		Array.isArray(answer.messages) ||
		(isObject(answer.details) && Array.isArray(answer.details.messages)) ||
		typeof answer.message === 'string');

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const input = new ItemInput(this, itemIndex);
	const to = input.phone('to', 'To');
	const message = input.text('message', 'Message');
	return {
		request: { api, method: 'POST', path: '/v1/messages', body: { to, message }, isSuccess },
		recipient: to,
		output: (answer) => {
			const response = answer as IDataObject;
			const sent = firstOf(response.messages) ?? firstOf((response.details as IDataObject | undefined)?.messages) ?? response;
			return { success: true, to, messageId: sent.id ?? sent.message_id ?? sent.messageId, status: sent.status ?? sent.message_status };
		},
	};
}
