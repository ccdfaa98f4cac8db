import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import { firstOf } from '../../../shared/output';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import type { ServiceApi } from '../../../shared/transport';

export const option = {
	name: 'Send via Dashboard (V2)',
	value: 'sendDashboard',
	action: 'Send a message via the dashboard API',
	description: 'Send a text message through the dashboard send API (v2), authorized with an API key',
};

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'dashboard';

const properties: INodeProperties[] = [
	phoneNumberField('to', 'To'),
	messageTextField('text', 'Text'),
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendDashboard'] } }, properties);

/** Spec 2.6: `{success: true, message, details: {messages}}`. */
const isSuccess = (answer: unknown) => isObject(answer) && answer.success === true && typeof answer.message === 'string' && isObject(answer.details);

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const input = new ItemInput(this, itemIndex);
	const to = input.phone('to', 'To');
	const text = input.text('text', 'Text');
	return {
		request: { api, method: 'POST', path: '/api/messaging/messages/v2.0.0/send', body: { to, text }, isSuccess },
		recipient: to,
		output: (answer) => {
			const response = answer as IDataObject;
			const sent = firstOf((response.details as IDataObject).messages);
			return { success: true, to, messageId: sent?.id, status: sent?.message_status, message: response.message };
		},
	};
}
