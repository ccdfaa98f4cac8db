import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { firstOf, withRawResponse } from '../../../shared/output';
import { serviceRequest } from '../../../shared/transport';
import { ItemInput } from '../../../shared/validation';

export const option = {
	name: 'Send via Dashboard (V2)',
	value: 'sendDashboard',
	action: 'Send a message via the dashboard API',
	description: 'Send a text message through the dashboard send API (v2), authorized with an API key',
};

const properties: INodeProperties[] = [
	phoneNumberField('to', 'To'),
	messageTextField('text', 'Text'),
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendDashboard'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const to = input.phone('to', 'To');
	const text = input.text('text', 'Text');

	const response = (await serviceRequest.call(this, itemIndex, {
		api: 'dashboard',
		method: 'POST',
		path: '/api/messaging/messages/v2.0.0/send',
		body: { to, text },
	})) as IDataObject | undefined;

	const sent = firstOf((response?.details as IDataObject | undefined)?.messages);
	return withRawResponse(
		this,
		itemIndex,
		{
			success: true,
			to,
			messageId: sent?.id,
			status: sent?.message_status,
			message: response?.message,
		},
		response,
	);
}
