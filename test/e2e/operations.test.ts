/**
 * Every operation of both nodes once, run by a real n8n server (2.41, and 1.123 in CI) from
 * the installed package tarball, against the emulator: the request the service received
 * (method, path, auth header, JSON body; spec part 4 and the node contract) and the items the
 * node output. The variants of each operation (limits, filters, optional fields) are checked
 * in the engine (test/nodes), where they are cheaper; here the server's own parameter
 * handling and n8n-workflow are the ones the package meets in production.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import type { RequestRecord } from '../emulator/types';
import { expectNoSecrets, MESSAGING, packageNode, runNode, SANDBOX_PLANTS, useE2e } from './support/harness';
import { fullItems, outputItems } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;

// Paths under the emulator's prefixes (test/emulator/fixtures.ts), derived from the
// credential data so they follow the emulator.
const pathOf = (baseUrl: string, path: string) => new URL(baseUrl).pathname.replace(/\/$/, '') + path;
const PATHS = {
	send: pathOf(ctx.credentialData.messagingBearerApi.sendBaseUrl, '/send'),
	templateSend: pathOf(ctx.credentialData.messagingBearerApi.templateSendBaseUrl, '/send_template_message_by_api'),
	templates: pathOf(ctx.credentialData.messagingBearerApi.templatesBaseUrl, '/get_templates'),
	dashboard: pathOf(ctx.credentialData.messagingAuthorizationKeyApi.dashboardUrl, '/api/messaging/messages/v2.0.0/send'),
	alternative: pathOf(ctx.credentialData.messagingXApiKeyApi.apiUrl, '/v1/messages'),
	plants: pathOf(ctx.credentialData.messagingBearerApi.sandboxBaseUrl, '/plants'),
};
const BEARER = `Bearer ${ctx.tokens.bearer}`;

const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01'; // body1, body2

const variablesMapper = (value: Record<string, string>) => ({
	mappingMode: 'defineBelow',
	value,
	matchingColumns: [],
	schema: Object.keys(value).map((id, n) => ({
		id,
		displayName: `Body ${n + 1}`,
		required: true,
		defaultMatch: false,
		display: true,
		type: 'string',
		canBeUsedToMatch: false,
	})),
});

async function apiRequests(): Promise<RequestRecord[]> {
	return await e2e.emulator.apiRequests();
}

function expectSucceeded(execution: Awaited<ReturnType<typeof runNode>>['execution']) {
	expect(execution.status, JSON.stringify(execution.data.resultData.error ?? null)).toBe('success');
	expect(expectNoSecrets(ctx, execution.raw)).toEqual([]);
}

beforeEach(async () => {
	await e2e.emulator.reset();
});

describe('Messaging: Message', () => {
	test('Send: POST {sendBaseUrl}/send with Bearer, phone/text/attachment/filename', async () => {
		const node = packageNode(ctx, {
			name: 'Send',
			parameters: {
				resource: 'message',
				operation: 'send',
				phone: '={{ $json.phone }}',
				text: '={{ "Your invoice, " + $json.name }}',
				additionalFields: { attachment: 'https://example.com/files/invoice-7.pdf', filename: 'invoice-7.pdf' },
			},
		});
		const { execution } = await runNode(e2e, node, {
			items: [
				{ phone: '+14155550123', name: 'Ada' },
				{ phone: '+1 (415) 555-0124', name: 'Grace' }, // formatting is stripped (contract)
			],
		});
		expectSucceeded(execution);

		const requests = await apiRequests();
		expect(requests).toHaveLength(2);
		for (const request of requests) {
			expect(request.method).toBe('POST');
			expect(request.path).toBe(PATHS.send);
			expect(request.headers.authorization).toBe(BEARER);
			expect(request.headers['content-type']).toMatch(/^application\/json\b/);
			expect(request.status).toBe(200);
		}
		expect(requests.map((r) => r.body)).toEqual([
			{ phone: '+14155550123', text: 'Your invoice, Ada', attachment: 'https://example.com/files/invoice-7.pdf', filename: 'invoice-7.pdf' },
			{ phone: '+14155550124', text: 'Your invoice, Grace', attachment: 'https://example.com/files/invoice-7.pdf', filename: 'invoice-7.pdf' },
		]);

		const items = outputItems(execution, 'Send');
		expect(items).toHaveLength(2);
		expect(items[0]).toMatchObject({ success: true, to: '+14155550123', message: 'Message sent successfully' });
		expect(items[1]).toMatchObject({ success: true, to: '+14155550124' });
		expect(fullItems(execution, 'Send').map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('Send Template, template by ID: POST {templateSendBaseUrl}/send_template_message_by_api', async () => {
		const node = packageNode(ctx, {
			name: 'Send Template',
			parameters: {
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '+14155550123',
				template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
				variables: variablesMapper({ body1: '={{ $json.name }}', body2: 'Friday 10:30' }),
			},
		});
		const { execution } = await runNode(e2e, node, { items: [{ name: 'Ada' }] });
		expectSucceeded(execution);

		// First the account's templates (the item is checked against the live template), then the send.
		const requests = await apiRequests();
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${PATHS.templates}`, `POST ${PATHS.templateSend}`]);
		const request = requests[1];
		expect(request.headers.authorization).toBe(BEARER);
		expect(request.headers['content-type']).toMatch(/^application\/json\b/);
		expect(request.body).toEqual({
			template: APPOINTMENT_REMINDER,
			variables: { body1: 'Ada', body2: 'Friday 10:30' },
			phone_number: '+14155550123',
		});
		expect(request.status).toBe(200);

		const [item] = outputItems(execution, 'Send Template');
		expect(item).toMatchObject({ success: true, to: '+14155550123', template: APPOINTMENT_REMINDER, recipientId: '14155550123' });
		expect(String(item.messageId)).toMatch(/^wamid\./);
	});

	test('Send Template, template from the list (mode list), numbers as variables are sent as strings', async () => {
		const node = packageNode(ctx, {
			name: 'Send Template',
			parameters: {
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '={{ $json.phone }}',
				template: {
					__rl: true,
					mode: 'list',
					value: APPOINTMENT_REMINDER,
					cachedResultName: 'appointment_reminder (en) — Hello {1}, this is a reminder of your appointment on {2}.',
				},
				variables: variablesMapper({ body1: '={{ $json.name }}', body2: '={{ $json.day }}' }),
			},
		});
		const { execution } = await runNode(e2e, node, { items: [{ phone: '0044 20 7946 0958', name: 'Alan', day: 23 }] });
		expectSucceeded(execution);
		const [read, request] = await apiRequests();
		expect(read.path).toBe(PATHS.templates);
		expect(request.path).toBe(PATHS.templateSend);
		expect(request.body).toEqual({
			template: APPOINTMENT_REMINDER,
			variables: { body1: 'Alan', body2: '23' },
			phone_number: '+442079460958',
		});
	});

	test('Send via Dashboard (V2): raw key in Authorization, body {to, text}', async () => {
		const node = packageNode(ctx, {
			name: 'Dashboard',
			credential: 'messagingAuthorizationKeyApi',
			parameters: { resource: 'message', operation: 'sendDashboard', to: '+14155550123', text: 'Dashboard hello' },
		});
		const { execution } = await runNode(e2e, node);
		expectSucceeded(execution);

		const requests = await apiRequests();
		expect(requests).toHaveLength(1);
		const [request] = requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe(PATHS.dashboard);
		expect(request.headers.authorization).toBe(ctx.tokens.dashboardKey); // no "Bearer"
		expect(request.headers['content-type']).toMatch(/^application\/json\b/);
		expect(request.body).toEqual({ to: '+14155550123', text: 'Dashboard hello' });
		expect(request.status).toBe(200);

		const [item] = outputItems(execution, 'Dashboard');
		expect(item).toMatchObject({ success: true, to: '+14155550123', status: 'sent', message: 'Message sent' });
		expect(String(item.messageId)).toMatch(/^dsh_/);
	});

	test('Send via Alternative API: X-API-Key header, body {to, message}', async () => {
		const node = packageNode(ctx, {
			name: 'Alternative',
			credential: 'messagingXApiKeyApi',
			parameters: { resource: 'message', operation: 'sendAlternative', to: '+14155550123', message: 'Alt hello' },
		});
		const { execution } = await runNode(e2e, node);
		expectSucceeded(execution);

		const requests = await apiRequests();
		expect(requests).toHaveLength(1);
		const [request] = requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe(PATHS.alternative);
		expect(request.headers['x-api-key']).toBe(ctx.tokens.alternativeKey);
		expect(request.headers.authorization).toBeUndefined();
		expect(request.headers['content-type']).toMatch(/^application\/json\b/);
		expect(request.body).toEqual({ to: '+14155550123', message: 'Alt hello' });
		expect(request.status).toBe(202);

		const [item] = outputItems(execution, 'Alternative');
		expect(item).toMatchObject({ success: true, to: '+14155550123', status: 'queued' });
		expect(String(item.messageId)).toMatch(/^alt_/);
	});
});

describe('Messaging: Template', () => {
	const getAll = (parameters: Record<string, unknown>) =>
		packageNode(ctx, { name: 'Templates', parameters: { resource: 'template', operation: 'getAll', ...parameters } });

	test('Get Many, Return All: GET {templatesBaseUrl}/get_templates, one item per template', async () => {
		const { execution } = await runNode(e2e, getAll({ returnAll: true }));
		expectSucceeded(execution);
		const requests = await apiRequests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', path: PATHS.templates, status: 200 });
		expect(requests[0].headers.authorization).toBe(BEARER);
		expect(requests[0].body).toBeUndefined();

		const items = outputItems(execution, 'Templates');
		expect(items.map((t) => t.template_id)).toEqual([
			'3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01',
			'8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c02',
			'c0ffee00-1234-4abc-8def-0123456789a3',
			'deadbeef-5678-4bcd-9ef0-123456789a04',
			'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c05',
			'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06',
		]);
		expect(items[0]).toMatchObject({ id: 101, name: 'appointment_reminder', status: 'APPROVED', variable_counts: 2 });
	});
});

describe('Sandbox Plants', () => {
	const plants = (name: string, parameters: Record<string, unknown>) =>
		packageNode(ctx, { type: SANDBOX_PLANTS, name, parameters: { resource: 'plant', ...parameters } });

	test('Create: POST {sandboxBaseUrl}/plants with {name, id, tag}', async () => {
		const { execution } = await runNode(e2e, plants('Create', { operation: 'create', name: 'Fern', plantId: 42, additionalFields: { tag: 'shade' } }));
		expectSucceeded(execution);
		const requests = await apiRequests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'POST', path: PATHS.plants, status: 200 });
		expect(requests[0].headers.authorization).toBe(BEARER);
		expect(requests[0].headers['content-type']).toMatch(/^application\/json\b/);
		expect(requests[0].body).toEqual({ name: 'Fern', id: 42, tag: 'shade' });
		expect(outputItems(execution, 'Create')).toEqual([{ name: 'Fern', tag: 'shade' }]);
		expect((await e2e.emulator.state()).plants).toContainEqual({ id: 42, name: 'Fern', tag: 'shade' });
	});

	test('Delete: DELETE {sandboxBaseUrl}/plants/{id}', async () => {
		const { execution } = await runNode(e2e, plants('Delete', { operation: 'delete', plantId: 2 }));
		expectSucceeded(execution);
		const requests = await apiRequests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'DELETE', path: `${PATHS.plants}/2`, status: 204 });
		expect(requests[0].headers.authorization).toBe(BEARER);
		expect(outputItems(execution, 'Delete')).toEqual([{ deleted: true, id: 2 }]);
		expect((await e2e.emulator.state()).plants.map((p) => p.id)).toEqual([1, 3]);
	});
});

describe('what the editor loads through the server', () => {
	test('Template list (resource locator) and variables (resource mapper) come from the service', async () => {
		const node = packageNode(ctx, {
			name: 'Send Template',
			parameters: { resource: 'message', operation: 'sendTemplate', phoneNumber: '', template: { __rl: true, mode: 'list', value: '' } },
		});
		const credentials = { messagingBearerApi: ctx.credentials.messagingBearerApi };
		const nodeTypeAndVersion = { name: MESSAGING, version: 1 };
		const list = await e2e.rest.post<{ results: Array<{ name: string; value: string }> }>(
			'/rest/dynamic-node-parameters/resource-locator-results',
			{
				path: 'parameters.template',
				nodeTypeAndVersion,
				methodName: 'searchTemplates',
				currentNodeParameters: node.parameters,
				credentials,
			},
		);
		expect(list.results.map((r) => r.value)).toContain(APPOINTMENT_REMINDER);
		expect(list.results.find((r) => r.value === APPOINTMENT_REMINDER)).toMatchObject({
			name: 'appointment_reminder (en) — Hello {1}, this is a reminder of your appointment on {2}.',
			description: 'UTILITY · APPROVED — Hello {1}, this is a reminder of your appointment on {2}.',
		});

		const fields = await e2e.rest.post<{ fields: Array<{ id: string; displayName: string; required: boolean }> }>(
			'/rest/dynamic-node-parameters/resource-mapper-fields',
			{
				path: 'parameters.variables',
				nodeTypeAndVersion,
				methodName: 'getTemplateVariables',
				currentNodeParameters: { ...node.parameters, template: { __rl: true, mode: 'list', value: APPOINTMENT_REMINDER } },
				credentials,
			},
		);
		expect(fields.fields.map((f) => [f.id, f.displayName, f.required])).toEqual([
			['body1', 'Body 1: Hello {1}, this is…', false],
			['body2', 'Body 2: …on {2}.', false],
		]);

		// order_confirmation: three bodies, a media header and a button URL parameter.
		const rich = await e2e.rest.post<{ fields: Array<{ id: string }> }>('/rest/dynamic-node-parameters/resource-mapper-fields', {
			path: 'parameters.variables',
			nodeTypeAndVersion,
			methodName: 'getTemplateVariables',
			currentNodeParameters: { ...node.parameters, template: { __rl: true, mode: 'list', value: '8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c02' } },
			credentials,
		});
		expect(rich.fields.map((f) => f.id)).toEqual(['body1', 'body2', 'body3', 'media', 'visit_website']);
		const requests = await apiRequests();
		expect(requests.length).toBeGreaterThanOrEqual(2);
		for (const request of requests) {
			expect(request).toMatchObject({ method: 'GET', path: PATHS.templates });
			expect(request.headers.authorization).toBe(BEARER);
		}
	});
});
