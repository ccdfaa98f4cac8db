import { describe, expect, it } from 'vitest';

import type { IExecuteFunctions } from 'n8n-workflow';

import { variablesToSend } from '../../nodes/Messaging/actions/message/sendTemplate.operation';
import { filterTemplates } from '../../nodes/Messaging/actions/template/getAll.operation';
import { ItemInput } from '../../nodes/shared/validation';
import { templateLabel, templateName, templateVariables } from '../../nodes/Messaging/templates';
import type { TemplateRecord } from '../../nodes/Messaging/templates';

const record = (overrides: Partial<TemplateRecord>): TemplateRecord => ({
	id: 1,
	name: 'appointment_reminder',
	category: 'UTILITY',
	type: 'text',
	language: 'en',
	status: 'APPROVED',
	variable_counts: 2,
	template_formate: 'Hi [b:1], see you on [b:2].',
	template_id: '6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b',
	...overrides,
});

const names = (template: TemplateRecord) => templateVariables(template).map((variable) => variable.name);

describe('templateVariables', () => {
	it('body1..bodyN from variable_counts', () => {
		expect(names(record({}))).toEqual(['body1', 'body2']);
		expect(names(record({ variable_counts: 0, template_formate: 'Welcome!' }))).toEqual([]);
	});

	it('media and visit_website when the format shows them; the count includes them', () => {
		expect(
			names(record({ variable_counts: 5, template_formate: '[m:media] Hi [b:1], order [b:2] ships [b:3]. [u:visit_website]' })),
		).toEqual(['body1', 'body2', 'body3', 'media', 'visit_website']);
	});

	it('counts the body placeholders of the format when variable_counts is missing', () => {
		expect(names(record({ variable_counts: undefined, template_formate: '[b:1] and [b:3]' }))).toEqual(['body1', 'body2', 'body3']);
	});

	it('when the count and the format disagree, the count says how many (spec 2.5: the number of placeholders)', () => {
		// The spec's own example of a format, "[b:7]", beside a count of one: one variable, not seven.
		expect(names(record({ variable_counts: 1, template_formate: 'Code [b:7] here' }))).toEqual(['body1']);
		expect(names(record({ variable_counts: 7, template_formate: '[b:7]' }))).toEqual(['body1', 'body2', 'body3', 'body4', 'body5', 'body6', 'body7']);
		// A stale count below what the format shows.
		expect(names(record({ variable_counts: 1, template_formate: 'Hi [b:1], see you on [b:2].' }))).toEqual(['body1']);
		// The count includes the media header the format shows.
		expect(names(record({ variable_counts: 2, template_formate: '[m:media] Hi [b:1], order [b:2]' }))).toEqual(['body1', 'media']);
		// A count above what the format shows: body3 is offered.
		expect(names(record({ variable_counts: 3, template_formate: 'Hi [b:1], see you on [b:2].' }))).toEqual(['body1', 'body2', 'body3']);
	});
});

describe('templateLabel', () => {
	it('shows name, language and the text; a template that cannot be sent is marked', () => {
		expect(templateLabel(record({}))).toBe('appointment_reminder (en) — Hi {1}, see you on {2}.');
		expect(templateLabel(record({ language: undefined, status: 'APPROVED', template_formate: undefined }))).toBe('appointment_reminder');
		expect(templateLabel(record({ language: undefined, status: undefined }))).toBe('appointment_reminder — status unknown: Hi {1}, see you on {2}.');
		expect(templateLabel(record({ language: undefined, status: 'REJECTED' }))).toBe('appointment_reminder — REJECTED, cannot be sent: Hi {1}, see you on {2}.');
		expect(templateLabel(record({ language: undefined, status: 'PENDING' }))).toBe('appointment_reminder — PENDING, cannot be sent yet: Hi {1}, see you on {2}.');
	});

	it('a status or name of another type than text: no "[OBJECT OBJECT]", a numeric name shown as itself (as errors name it)', () => {
		const odd = (fields: Record<string, unknown>) => record({ language: undefined, template_formate: undefined, ...fields } as Partial<TemplateRecord>);
		expect(templateLabel(odd({ status: 7 }))).toBe('appointment_reminder — status unknown');
		expect(templateLabel(odd({ status: { value: 'APPROVED' } }))).toBe('appointment_reminder — status unknown');
		expect(templateLabel(odd({ name: 12345 }))).toBe('12345');
		expect(templateLabel(odd({ name: { en: 'x' } }))).toBe('6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b');
		expect(templateName(odd({ name: 12345 }))).toBe('Template "12345" (6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b)');
		expect(templateName(odd({ name: null }))).toBe('Template "6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b" (6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b)');
	});

	it('a status the node does not know is shown as it is, not as one that cannot be sent (the run sends it, and the template send judges); spaces around a status are no part of it (outside review)', () => {
		const plain = (fields: Partial<TemplateRecord>) => record({ language: undefined, template_formate: undefined, ...fields });
		expect(templateLabel(plain({ status: 'ACTIVE' }))).toBe('appointment_reminder — status ACTIVE');
		expect(templateLabel(plain({ status: 'APPROVED ' }))).toBe('appointment_reminder');
		expect(templateLabel(plain({ status: ' paused' }))).toBe('appointment_reminder — PAUSED, cannot be sent');
	});

	it('a record whose ID is not a UUID is marked as one the node cannot use: a run refuses such an ID (outside review: the picker offered it)', () => {
		expect(templateLabel(record({ language: undefined, template_formate: undefined, template_id: 'tmpl_7' }))).toBe(
			'appointment_reminder — cannot be used: its ID "tmpl_7" is not a UUID, the form the template send takes',
		);
	});

	it('one clean line: a direction override or a line break in a name or text does not reorder or break the entry (outside review)', () => {
		const label = templateLabel(record({ name: 'ltr\u202Eeman', template_formate: 'Hi {{1}},\nsee you\u202E on {{2}}.' }));
		expect(label).toBe('ltr eman (en) — Hi {1}, see you on {2}.');
	});
});

describe('filterTemplates', () => {
	const templates = [
		record({ id: 1, name: 'appointment_reminder', status: 'APPROVED', category: 'UTILITY', language: 'en' }),
		record({ id: 2, name: 'Spring Sale', status: 'REJECTED', category: 'MARKETING', language: 'en_US' }),
		record({ id: 3, name: 'recordatorio_cita', status: 'APPROVED', category: 'UTILITY', language: 'es' }),
	];
	const ids = (filters: Record<string, unknown>) => filterTemplates(templates, filters as never).map((t) => t.id);

	it('a field of another type than text matches no filter (the picker calls such a status unknown); a numeric name is its digits', () => {
		const odd = [
			record({ id: 7, status: ['APPROVED'] as never }),
			record({ id: 8, name: { text: 'object' } as never }),
			record({ id: 9, name: 12345 as never }),
		];
		expect(filterTemplates(odd, { status: 'APPROVED' }).map((t) => t.id)).toEqual([8, 9]);
		expect(filterTemplates(odd, { nameContains: 'object' }).map((t) => t.id)).toEqual([]);
		expect(filterTemplates(odd, { nameContains: '234' }).map((t) => t.id)).toEqual([9]);
	});

	it('filters by status, category, language (en matches en_US, en-US is en_US) and name, case-insensitively', () => {
		expect(ids({ language: 'en-US' })).toEqual([2]);
		expect(ids({ language: 'EN_us' })).toEqual([2]);
		expect(ids({})).toEqual([1, 2, 3]);
		expect(ids({ status: 'APPROVED' })).toEqual([1, 3]);
		expect(ids({ status: 'approved', category: 'UTILITY', language: 'es' })).toEqual([3]);
		expect(ids({ language: 'en' })).toEqual([1, 2]);
		expect(ids({ nameContains: 'SALE' })).toEqual([2]);
		expect(ids({ status: ['REJECTED', 'APPROVED'], nameContains: 'a' })).toEqual([1, 2, 3]);
		expect(ids({ status: '' })).toEqual([1, 2, 3]);
	});
});

describe('variablesToSend: what the item gives, checked only for how many the listed template takes', () => {
	// ItemInput only needs the node, to name it in the error.
	const input = new ItemInput({ getNode: () => ({ name: 'Messaging', type: 'messaging' }) } as unknown as IExecuteFunctions, 3);
	const check = (template: TemplateRecord | undefined, values: Record<string, string>) => variablesToSend(input, template, new Map(Object.entries(values)));

	it('sends every value given, and leaves out the empty ones', () => {
		expect(check(record({}), { body2: 'b', body1: 'a', body3: ' ' })).toEqual({ body2: 'b', body1: 'a' });
	});

	it('an item giving fewer values than the template takes fails, naming what is missing as the editor shows it, and the item', () => {
		expect(() => check(record({}), { body1: 'a', body2: ' ' })).toThrow(/needs a value for "Body 2: …see you on \{2\}\."; it takes 2 \(body1, body2\) \[item 3\]/);
		expect(() => check(record({ variable_counts: 2, template_formate: 'No placeholders shown' }), { body1: 'a' })).toThrow(/needs a value for "Body 2"/);
		// The spec's example format with a count of one: one value is enough, whatever its name.
		expect(check(record({ variable_counts: 1, template_formate: 'Code [b:7] here' }), { body7: 'x' })).toEqual({ body7: 'x' });
	});

	it('a template whose text names every variable it takes: each of them needs a value, whatever else is given (outside review: body2 left empty went out beside a media value)', () => {
		// Hi [b:1], see you on [b:2]. with a count of 2: body1 and body2, by name.
		expect(() => check(record({}), { body1: 'a', media: 'https://example.com/a.jpeg' })).toThrow(/needs a value for "Body 2: …see you on \{2\}\."; it takes 2 \(body1, body2\) \[item 3\]/);
		expect(() => check(record({}), { body2: 'b', body3: 'c' })).toThrow(/needs a value for "Body 1: Hi \{1\}, see you on…"/);
		expect(() => check(record({}), { Body1: 'a', BODY2: 'b' })).toThrow(/needs a value for "Body 1: .*", "Body 2: .*"/);
		// Given all, what else is given goes along: whether it may is the template send's to say.
		expect(check(record({}), { body1: 'a', body2: 'b', media: 'https://example.com/a.jpeg' })).toEqual({ body1: 'a', body2: 'b', media: 'https://example.com/a.jpeg' });
	});

	it('names are the template send\'s to judge: a template whose list entry shows only bodies may take media', () => {
		expect(check(record({ variable_counts: 2, template_formate: 'Hi {{1}}, see link' }), { body1: 'a', media: 'https://example.com/a.jpeg' })).toEqual({
			body1: 'a',
			media: 'https://example.com/a.jpeg',
		});
		expect(check(record({ variable_counts: 0, template_formate: 'Hi' }), { media: 'https://example.com/a.jpeg' })).toEqual({ media: 'https://example.com/a.jpeg' });
	});

	it('a template that takes no variable, by its count and its text: a body value fails the item (an AI agent filled Body 1 for one; outside review)', () => {
		expect(() => check(record({ variable_counts: 0, template_formate: 'Hi' }), { body1: 'a' })).toThrow(
			/template "appointment_reminder" does not take "body1"; it takes no variables\. Leave them empty for this template \[item 3\]/,
		);
		// A count of none the text does not bear out (it shows a placeholder), or no count: the template send judges.
		expect(check(record({ variable_counts: 0, template_formate: 'Hi [b:1]' }), { body1: 'a' })).toEqual({ body1: 'a' });
		expect(check(record({ variable_counts: undefined, template_formate: 'Hi' }), { body1: 'a' })).toEqual({ body1: 'a' });
	});

	it('a template the list does not have, or one not approved, is the template send\'s to judge: the values go as given', () => {
		expect(check(undefined, { body1: 'a' })).toEqual({ body1: 'a' });
		expect(check(record({ status: 'PENDING' }), { body1: 'a', body2: 'b' })).toEqual({ body1: 'a', body2: 'b' });
		expect(check(record({ status: undefined }), { body1: 'a', body2: 'b' })).toEqual({ body1: 'a', body2: 'b' });
	});

	it.each(['__proto__', 'constructor', 'prototype', 'toString'])('a variable named %s stays a name of its own (a Map holds the names)', (name) => {
		const sent = check(record({}), { body1: 'a', body2: 'b', [name]: 'x' });
		expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
		expect(JSON.parse(JSON.stringify(sent))).toEqual(JSON.parse(`{"body1":"a","body2":"b","${name}":"x"}`));
	});
});
