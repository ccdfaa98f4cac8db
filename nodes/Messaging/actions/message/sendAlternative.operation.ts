import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { TAKEN_STATUSES, isObject, statusIn } from '../../../shared/errors';
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

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'alternative';

const properties: INodeProperties[] = [
	phoneNumberField('to', 'To'),
	messageTextField('message', 'Message'),
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendAlternative'] } }, properties);

const hasId = (record: unknown) => isObject(record) && ['id', 'message_id', 'messageId'].some((field) => typeof record[field] === 'string' || typeof record[field] === 'number');

/** A list of messages that names one: an empty one is no receipt. */
const nonEmptyList = (value: unknown) => Array.isArray(value) && value.length > 0;

/**
 * The spec does not show this API's answer (4.5), so a success is a JSON object that says so in
 * one of the ways send APIs do (a failure is read first, in any of the service's error shapes):
 * `success: true` or `ok: true`, a message id (or one in `data`), a list of messages, a result
 * text (weighed as the direct send's is: "Insufficient credits" is that failure), or a `status`
 * that says the message was taken ("sent", "queued", ...); a receipt that says failed is a
 * failure. HTML, an empty body, a blank text, an empty list or JSON of another shape (`{}`,
 * `{"status": "ok", "data": null}`) is not: a proxy or another API may have written it.
 */
const isSuccess = (answer: unknown) =>
	isObject(answer) &&
	(answer.success === true ||
		answer.ok === true ||
		hasId(answer) ||
		hasId(answer.data) ||
		nonEmptyList(answer.messages) ||
		(isObject(answer.details) && nonEmptyList(answer.details.messages)) ||
		(typeof answer.message === 'string' && answer.message.trim() !== '') ||
		statusIn(TAKEN_STATUSES, answer.status));

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const input = new ItemInput(this, itemIndex);
	const to = input.phone('to', 'To');
	const message = input.text('message', 'Message');
	return {
		request: { api, method: 'POST', path: '/v1/messages', body: { to, message }, isSuccess },
		recipient: to,
		output: (answer) => {
			const response = answer as IDataObject;
			const sent = firstOf(response.messages) ?? firstOf((response.details as IDataObject | undefined)?.messages) ?? (hasId(response.data) ? (response.data as IDataObject) : response);
			return { success: true, to, messageId: sent.id ?? sent.message_id ?? sent.messageId, status: sent.status ?? sent.message_status };
		},
	};
}
