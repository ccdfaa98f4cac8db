import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { firstOf, withRawResponse } from '../../../shared/output';
import { serviceRequest } from '../../../shared/transport';
import { ItemInput } from '../../../shared/validation';

export const option = {
	name: 'Send via Alternative API',
	value: 'sendAlternative',
	action: 'Send a message via the alternative API',
	description: 'Send a text message through the v1 messages API, authorized with an X-API-Key',
};

const properties: INodeProperties[] = [
	phoneNumberField('to', 'To'),
	messageTextField('message', 'Message'),
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['sendAlternative'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const to = input.phone('to', 'To');
	const message = input.text('message', 'Message');

	const response = await serviceRequest.call(this, itemIndex, {
		api: 'alternative',
		method: 'POST',
		path: '/v1/messages',
		body: { to, message },
	});

	// The spec does not describe this API's answer; read the usual places for an id and status.
	const answer = (typeof response === 'object' && response !== null ? response : {}) as IDataObject;
	const sent = firstOf(answer.messages) ?? firstOf((answer.details as IDataObject | undefined)?.messages) ?? answer;
	return withRawResponse(
		this,
		itemIndex,
		{
			success: true,
			to,
			messageId: sent.id ?? sent.message_id ?? sent.messageId,
			status: sent.status ?? sent.message_status,
		},
		response,
	);
}
