import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { phoneNumberField, messageTextField } from '../../../shared/descriptions';
import { isObject } from '../../../shared/errors';
import type { PreparedItem } from '../../../shared/router';
import { ItemInput } from '../../../shared/validation';
import type { ServiceApi } from '../../../shared/transport';

export const option = {
	name: 'Send',
	value: 'send',
	action: 'Send a message',
	description: 'Send a text message, optionally with one file attached by URL',
};

/** The API group it calls: it decides the credential the editor shows (see shownForApisOf). */
export const api: ServiceApi = 'send';

const properties: INodeProperties[] = [
	phoneNumberField('phone', 'Phone'),
	messageTextField('text', 'Text'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Attachment URL',
				name: 'attachment',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://example.com/files/invoice.pdf',
				description:
					'Public URL of one file to send with the message: images .jpeg/.png (5 MB), videos .mp4/.3gp (16 MB), documents .pdf/.doc/.xls/.ppt/.txt (100 MB), audio .mp3/.aac/.m4a/.ogg (16 MB)',
			},
			{
				displayName: 'File Name',
				name: 'filename',
				type: 'string',
				default: '',
				placeholder: 'e.g. invoice.pdf',
				description: 'Name the recipient sees for the attachment. Left empty, none is sent and the service names the file.',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['send'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): PreparedItem {
	const input = new ItemInput(this, itemIndex);
	const phone = input.phone('phone', 'Phone');
	const text = input.text('text', 'Text');
	const attachment = input.attachmentUrl('additionalFields.attachment', 'Attachment URL');
	const body: IDataObject = { phone, text };
	if (attachment) body.attachment = attachment.url;
	// Only the name the user gave (the URL's last part is often no file name: "image.php?id=4", a
	// hash), and whenever it is given: what it means without an attachment is the service's to say.
	const filename = input.optionalText('additionalFields.filename', 'File Name').trim();
	if (filename) body.filename = filename;
	return {
		// Spec 2.2: success and failure are both `{message}` "that describes the result"; a failure's
		// text says so and is read as one first, and a blank one describes nothing.
		request: { api, method: 'POST', path: '/send', body, isSuccess: (answer) => isObject(answer) && typeof answer.message === 'string' && answer.message.trim() !== '' },
		recipient: phone,
		output: (answer) => ({
			success: true,
			to: phone,
			message: (answer as IDataObject).message,
			...(attachment ? { attachment: body.attachment } : {}),
			...(body.filename !== undefined ? { filename: body.filename } : {}),
		}),
	};
}
