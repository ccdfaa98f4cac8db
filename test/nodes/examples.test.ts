/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runWorkflow } from '../harness';
import { useEmulator } from './setup';

const emulator = useEmulator();
const examplesDir = join(__dirname, '..', '..', 'examples');
const load = (name: string) => JSON.parse(readFileSync(join(examplesDir, name), 'utf8'));

// The triggers and the Code node come from n8n itself; here they emit what they would.
const stubOutputs: Record<string, Record<string, IDataObject[]>> = {
	'form-submission-template-confirmation.json': {
		'Booking Form': [{ Name: 'Ada Lovelace', Phone: '+44 20 7946 0958', Appointment: 'Friday 10:30', submittedAt: '2026-11-21T10:00:00Z' }],
	},
	'crm-webhook-direct-message-attachment.json': {
		'CRM Webhook': [
			{
				headers: {},
				body: {
					contact: { firstName: 'Grace', phone: '+1 (415) 555-0123' },
					deal: { id: 'D-1001', invoiceUrl: 'https://files.example.com/invoices/D-1001.pdf' },
				},
			},
		],
	},
	'daily-schedule-appointment-reminders.json': {
		'Every Day at 17:00': [{ timestamp: '2026-11-21T17:00:00Z' }],
		"Get Tomorrow's Appointments": [
			{ name: 'Ada Lovelace', phone: '+44 20 7946 0958', time: '2026-11-22 09:00' },
			{ name: 'Grace Hopper', phone: '+1 (415) 555-0123', time: '2026-11-22 11:30' },
			{ name: 'Alan Turing', phone: '0044 20 7946 0999', time: '2026-11-22 15:15' },
		],
	},
};

describe('examples/', () => {
	it('has a test fixture for every example', () => {
		expect(readdirSync(examplesDir).filter((name) => name.endsWith('.json')).sort()).toEqual(Object.keys(stubOutputs).sort());
	});

	it('form submission sends the template confirmation', async () => {
		const run = await runWorkflow({
			workflow: load('form-submission-template-confirmation.json'),
			credentials: emulator.credentials,
			stubOutputs: stubOutputs['form-submission-template-confirmation.json'],
		});
		expect(run.error).toBeUndefined();
		// The one read of the account's templates (the item is checked against the live template), then the send.
		expect(emulator.requests.map((request) => `${request.method} ${request.api}`)).toEqual(['GET templates', 'POST templateSend']);
		expect(emulator.requests.filter((request) => request.api === 'templateSend').map((request) => request.body)).toEqual([
			{
				template: '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01',
				variables: { body1: 'Ada Lovelace', body2: 'Friday 10:30' },
				phone_number: '+442079460958',
			},
		]);
		expect(run.nodes['Send Confirmation'].items[0].json).toMatchObject({ success: true, to: '+442079460958' });
	});

	it('the CRM webhook sends a direct message with the invoice attached', async () => {
		const run = await runWorkflow({
			workflow: load('crm-webhook-direct-message-attachment.json'),
			credentials: emulator.credentials,
			stubOutputs: stubOutputs['crm-webhook-direct-message-attachment.json'],
		});
		expect(run.error).toBeUndefined();
		expect(emulator.requests.map((request) => request.body)).toEqual([
			{
				phone: '+14155550123',
				text: 'Hi Grace, thank you for your order D-1001! Your invoice is attached.',
				attachment: 'https://files.example.com/invoices/D-1001.pdf',
				filename: 'invoice-D-1001.pdf',
			},
		]);
	});

	it("the daily schedule sends each of tomorrow's appointments a reminder", async () => {
		const run = await runWorkflow({
			workflow: load('daily-schedule-appointment-reminders.json'),
			credentials: emulator.credentials,
			stubOutputs: stubOutputs['daily-schedule-appointment-reminders.json'],
		});
		expect(run.error).toBeUndefined();
		expect(emulator.deliveries.map((delivery) => delivery.recipient).sort()).toEqual(['+14155550123', '+442079460958', '+442079460999']);
		expect(run.nodes['Send Reminder'].outputs[0]).toHaveLength(3);
		expect(run.nodes['Send Reminder'].outputs[1] ?? []).toHaveLength(0);
	});
});
