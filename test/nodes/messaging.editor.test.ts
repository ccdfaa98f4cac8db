import { describe, expect, it } from 'vitest';

import { callListSearch, callResourceMapper } from '../harness';
import { APPOINTMENT_REMINDER, ORDER_CONFIRMATION, useEmulator } from './setup';

const emulator = useEmulator();

const editor = (parameters: Record<string, unknown> = {}) => ({
	nodeType: 'messaging',
	credentials: emulator.credentials,
	parameters: { resource: 'message', operation: 'sendTemplate', ...parameters },
});

describe('template picker (list search)', () => {
	it("lists the account's templates live, approved first, each with its text, the others marked", async () => {
		const result = await callListSearch({ ...editor(), method: 'searchTemplates' });
		const templates = emulator.templates;
		expect(result.results).toHaveLength(templates.length);
		expect(new Set(result.results.map((entry) => entry.value))).toEqual(new Set(templates.map((t) => t.template_id)));
		const statuses = result.results.map((entry) => templates.find((t) => t.template_id === entry.value)!.status);
		const firstOther = statuses.findIndex((status) => status !== 'APPROVED');
		expect(statuses.slice(firstOther).every((status) => status !== 'APPROVED')).toBe(true);
		expect(result.results).toContainEqual({
			name: 'appointment_reminder (en) — Hello {1}, this is a reminder of your appointment on {2}.',
			value: APPOINTMENT_REMINDER,
			description: 'UTILITY · APPROVED — Hello {1}, this is a reminder of your appointment on {2}.',
		});
		expect(result.results.at(-1)?.name).toBe('spring_sale (en) — REJECTED, cannot be sent: Spring sale! Get {1} off everything this week.');
		const request = emulator.requests[0];
		expect(request).toMatchObject({ api: 'templates', method: 'GET', path: '/api:tpl2d4e/get_templates' });
		expect(request.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
	});

	it('searches what the list shows: language, category, status, and the ID or part of it', async () => {
		const values = async (filter: string) => (await callListSearch({ ...editor(), method: 'searchTemplates', filter })).results.map((entry) => entry.value);
		const templates = emulator.templates;
		expect(await values('UTILITY')).toEqual(expect.arrayContaining(templates.filter((t) => t.category === 'UTILITY').map((t) => t.template_id)));
		expect(await values('rejected')).toEqual(templates.filter((t) => t.status === 'REJECTED').map((t) => t.template_id));
		expect(await values(APPOINTMENT_REMINDER.slice(0, 8))).toEqual([APPOINTMENT_REMINDER]);
	});

	it('a credential without a Templates Base URL: the picker says which field, and names no item (there are none in the editor)', async () => {
		const credentials = { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: '' } };
		const failed = await callListSearch({ ...editor(), credentials, method: 'searchTemplates' }).then(
			() => undefined,
			(error: Error) => error,
		);
		expect(failed?.message).toMatch(/^The credential's Templates Base URL \(templatesBaseUrl\) is empty$/);
	});

	it('searches by name', async () => {
		const result = await callListSearch({ ...editor(), method: 'searchTemplates', filter: 'ORDER' });
		expect(result.results.map((entry) => entry.value)).toEqual([ORDER_CONFIRMATION]);
	});
});

describe('template variables (resource mapper)', () => {
	const fieldsOf = async (templateId: string) =>
		await callResourceMapper({
			...editor({ template: { __rl: true, mode: 'list', value: templateId } }),
			method: 'getTemplateVariables',
		});

	it("shows the picked template's body variables", async () => {
		const result = await fieldsOf(APPOINTMENT_REMINDER);
		expect(result.fields.map((field) => [field.id, field.displayName, field.required, field.type])).toEqual([
			['body1', 'Body 1: Hello {1}, this is…', false, 'string'],
			['body2', 'Body 2: …on {2}.', false, 'string'],
		]);
	});

	it('adds media and visit_website where the template has them', async () => {
		const result = await fieldsOf(ORDER_CONFIRMATION);
		expect(result.fields.map((field) => field.id).sort()).toEqual([...emulator.templateVariables[ORDER_CONFIRMATION]].sort());
		expect(result.fields.map((field) => field.id)).toEqual(['body1', 'body2', 'body3', 'media', 'visit_website']);
	});

	it('matches what the service expects for every template', async () => {
		for (const template of emulator.templates) {
			const result = await fieldsOf(template.template_id);
			expect(result.fields.map((field) => field.id).sort()).toEqual([...emulator.templateVariables[template.template_id]].sort());
		}
	});

	it('a template chosen when the node runs (the AI model, an expression of the item): says its variables cannot be shown here, not "Choose a template first" or "[object Object]"', async () => {
		const notice = async (template: unknown) =>
			(await callResourceMapper({ ...editor({ template: { __rl: true, mode: 'id', value: template } }), method: 'getTemplateVariables' })).emptyFieldsNotice;
		const chosenWhenRun = /^The template is chosen when the node runs \(by an expression, or by the AI model\), so its variables cannot be shown here/;
		expect(await notice("={{ $fromAI('Template', 'the template ID', 'string') }}")).toMatch(chosenWhenRun);
		expect(await notice('={{ $json.templateId }}')).toMatch(chosenWhenRun);
		// n8n 1.x gives the AI tool's "defined by the model" template to the mapper as an object.
		expect(await notice({ fromAI: true })).toMatch(chosenWhenRun);
		// An expression that gives an ID in the editor lists that template's variables.
		const fields = await callResourceMapper({ ...editor({ template: { __rl: true, mode: 'id', value: `={{ "${APPOINTMENT_REMINDER}" }}` } }), method: 'getTemplateVariables' });
		expect(fields.fields.map((field) => field.id)).toEqual(['body1', 'body2']);
	});

	it("a credential without a Templates Base URL: says that the node then cannot show a template's variables, nor fill them in", async () => {
		const credentials = { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: '' } };
		const result = await callResourceMapper({ ...editor({ template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER } }), credentials, method: 'getTemplateVariables' });
		expect(result.emptyFieldsNotice).toBe(
			"Set the credential's Templates Base URL (API section of your account dashboard): without it the node cannot show this template's variables, so they cannot be filled in here. Values set before are kept.",
		);
	});

	it('explains an empty list', async () => {
		expect((await fieldsOf('c0ffee00-1234-4abc-8def-0123456789a3')).emptyFieldsNotice).toBe('This template has no variables');
		expect((await fieldsOf('00000000-0000-4000-8000-000000000000')).emptyFieldsNotice).toMatch(/No template with ID/);
		expect((await fieldsOf('')).emptyFieldsNotice).toBe('Choose a template first');
	});

	it("says why when the account's templates cannot be read, rather than showing no fields without a word (outside review)", async () => {
		const wrong = 'sk_live_WRONG_3b9f2e71c4';
		// (An empty Templates Base URL has a notice of its own, above.)
		for (const credentials of [
			{ ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, accessToken: wrong } },
			{ ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, templatesBaseUrl: 'http://127.0.0.1:9/api:closed' } },
		]) {
			const result = await callResourceMapper({ ...editor({ template: { __rl: true, mode: 'list', value: APPOINTMENT_REMINDER } }), credentials, method: 'getTemplateVariables' });
			expect(result.fields).toEqual([]);
			expect(result.emptyFieldsNotice).toMatch(/^The account's templates could not be read, so this template's variables cannot be shown: .+\. Values set before are kept\. Reopen the node to try again\.$/);
			expect(result.emptyFieldsNotice).not.toContain(wrong);
		}
		// With what to do about it: the refused key's hint.
		const refused = await callResourceMapper({
			...editor({ template: { __rl: true, mode: 'list', value: APPOINTMENT_REMINDER } }),
			credentials: { ...emulator.credentials, messagingBearerApi: { ...emulator.credentials.messagingBearerApi, accessToken: wrong } },
			method: 'getTemplateVariables',
		});
		expect(refused.emptyFieldsNotice).toMatch(/code UNAUTHORIZED\)\. The token or key was refused\. Create a new one/);
	});
});
