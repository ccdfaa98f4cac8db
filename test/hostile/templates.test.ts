/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a test token (README: Lint) */
/**
 * Template records no real account has (issue 19): a variable count of 10,000,000, and texts of
 * "[m:" repeated to 72 KB and 144 KB, which a backtracking placeholder pattern took quadratic
 * time over. Served by a plain node:http server beside a normal template: the picker still
 * lists everything at once and marks the absurd ones, their variable fields say why, and Send
 * Template does not believe them: the message goes as given, for the template send to judge.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { parseBody } from '../../nodes/shared/transport/answer';
import { templateText, variableNames } from '../../nodes/Messaging/templates';
import { runOn } from '../emulator/use';
import { callListSearch, callResourceMapper } from '../harness';
import { json, useServers, type Seen } from './servers';

const TOKEN = 'Templates-Token-0123456789';
const NORMAL = '11111111-1111-4111-8111-111111111111';
const HUGE_COUNT = '22222222-2222-4222-8222-222222222222';
const DRIP_TEXT = '33333333-3333-4333-8333-333333333333';

const record = (template_id: string, name: string, variable_counts: number, template_formate: string) => ({
	id: Number.parseInt(template_id.slice(0, 2), 10),
	user_id: '99999999-9999-4999-8999-999999999999',
	name,
	category: 'UTILITY',
	type: 'text',
	language: 'en',
	status: 'APPROVED',
	variable_counts,
	template_formate,
	template_id,
});

const TEMPLATES = [
	record(NORMAL, 'reminder', 1, 'Hello [b:1], see you soon.'),
	record(HUGE_COUNT, 'counts_gone_wrong', 10_000_000, 'Hello [b:1]'),
	record(DRIP_TEXT, 'endless_media', 0, '[m:'.repeat(24_000)),
	record('44444444-4444-4444-8444-444444444444', 'endless_one', 0, '[m:'.repeat(48_000)),
	record('55555555-5555-4555-8555-555555555555', 'endless_two', 0, '[u:'.repeat(48_000)),
];

const serve = useServers({ scope: 'file' });
let url = '';
let seen: Seen[] = [];
beforeAll(async () => {
	({ url, seen } = await serve((req, res) =>
		json(res, 200, req.method === 'GET' ? TEMPLATES : { success: true, messaging_response_info: { contacts: [], messages: [] } }),
	));
});
const posts = () => seen.filter((request) => request.method === 'POST').map((request) => request.path);

const credentials = () => ({ messagingBearerApi: { accessToken: TOKEN, templatesBaseUrl: url, templateSendBaseUrl: url } });
const editor = (parameters: Record<string, unknown> = {}) => ({
	nodeType: 'messaging',
	credentials: credentials(),
	parameters: { resource: 'message', operation: 'sendTemplate', ...parameters },
});

describe('absurd template records', () => {
	it('the picker lists them all at once and marks the ones it cannot use, naming why', async () => {
		const { results } = await callListSearch({ ...editor(), method: 'searchTemplates' });
		expect(results).toHaveLength(TEMPLATES.length);
		const nameOf = (id: string) => results.find((entry) => entry.value === id)?.name;
		expect(nameOf(NORMAL)).toBe('reminder (en) — Hello {1}, see you soon.');
		expect(nameOf(HUGE_COUNT)).toMatch(/cannot be used: the service says it has 10000000 variables, more than any template the node can fill \(100\)/);
		expect(nameOf(DRIP_TEXT)).toMatch(/cannot be used: its text is 72000 characters long, more than any message \(10000\)/);
		// The labels stay short: no 278 MB of variable names.
		for (const entry of results) expect(entry.name.length).toBeLessThan(300);
	});

	it('its variable fields say why instead of listing ten million fields', async () => {
		const result = await callResourceMapper({ ...editor({ template: { __rl: true, mode: 'list', value: HUGE_COUNT } }), method: 'getTemplateVariables' });
		expect(result.fields).toEqual([]);
		expect(result.emptyFieldsNotice).toMatch(/Template "counts_gone_wrong" \(22222222-.*\) cannot be used: the service says it has 10000000 variables/);
	});

	it.each([HUGE_COUNT, DRIP_TEXT])('Send Template with %s: the record is not believed, and the message goes once as given, for the template send to judge', async (templateId) => {
		const before = posts().length;
		const run = await runOn({ credentials: credentials() }, {
			parameters: {
				resource: 'message',
				operation: 'sendTemplate',
				phoneNumber: '+14155550100',
				template: { __rl: true, mode: 'id', value: templateId },
				variables: { mappingMode: 'defineBelow', value: {} },
			},
		});
		expect(run.error).toBeUndefined();
		expect(posts().slice(before)).toEqual(['/send_template_message_by_api']);
	});
});

describe('placeholders are read in time linear in the text', () => {
	// A backtracking pattern rescans the rest of the text from every "[m:" without a "]"
	// (quadratic); the node's looks at most 64 characters ahead and never across a bracket.
	it('a bracket label longer than 64 characters, or one crossing another bracket, is not a placeholder', () => {
		const textOf = (format: string) => templateText(record(NORMAL, 'probe', 0, format));
		expect(textOf(`Photo [m:${'x'.repeat(64)}] here`)).toBe('Photo {media} here');
		expect(textOf(`Photo [m:${'x'.repeat(65)}] here`)).toBe(`Photo [m:${'x'.repeat(65)}] here`);
		expect(textOf('[m:[m:[u:x]')).toBe('[m:[m:{link}');
	});

	it('within the length limit, "[m:" repeated reads as text with no variable', () => {
		const format = '[m:'.repeat(3_200);
		expect(variableNames(record(NORMAL, 'probe', 0, format))).toEqual([]);
		expect(templateText(record(NORMAL, 'probe', 0, format))).toBe(format);
	});

	it('an answer of 2 MB of such templates is parsed once, without recursion', () => {
		expect(Array.isArray(parseBody(JSON.stringify(TEMPLATES)))).toBe(true);
	});
});
