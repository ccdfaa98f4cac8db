import { describe, expect, it } from 'vitest';

import type { IExecuteFunctions } from 'n8n-workflow';

import { checkTemplate } from '../../nodes/Messaging/actions/message/sendTemplate.operation';
import { filterTemplates } from '../../nodes/Messaging/actions/template/getAll.operation';
import { ItemInput } from '../../nodes/shared/validation';
import { templateLabel, templateVariables } from '../../nodes/Messaging/templates';
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

	it('when the count and the format disagree, every placeholder the format shows is a variable; bodies the count adds may be given', () => {
		// A stale count below what the format shows (it rejected a body2 the service takes).
		expect(names(record({ variable_counts: 1, template_formate: 'Hi [b:1], see you on [b:2].' }))).toEqual(['body1', 'body2']);
		// A count of the bodies only, beside a media header.
		expect(names(record({ variable_counts: 2, template_formate: '[m:media] Hi [b:1], order [b:2]' }))).toEqual(['body1', 'body2', 'media']);
		// A count above what the format shows: body3 is offered.
		expect(names(record({ variable_counts: 3, template_formate: 'Hi [b:1], see you on [b:2].' }))).toEqual(['body1', 'body2', 'body3']);
	});
});

describe('templateLabel', () => {
	it('shows name, language and the text; a template that cannot be sent is marked', () => {
		expect(templateLabel(record({}))).toBe('appointment_reminder (en) — Hi {1}, see you on {2}.');
		expect(templateLabel(record({ language: undefined, status: 'APPROVED', template_formate: undefined }))).toBe('appointment_reminder');
		expect(templateLabel(record({ language: undefined, status: undefined }))).toBe('appointment_reminder — status unknown, cannot be sent: Hi {1}, see you on {2}.');
	});
});

describe('filterTemplates', () => {
	const templates = [
		record({ id: 1, name: 'appointment_reminder', status: 'APPROVED', category: 'UTILITY', language: 'en' }),
		record({ id: 2, name: 'Spring Sale', status: 'REJECTED', category: 'MARKETING', language: 'en_US' }),
		record({ id: 3, name: 'recordatorio_cita', status: 'APPROVED', category: 'UTILITY', language: 'es' }),
	];
	const ids = (filters: Record<string, unknown>) => filterTemplates(templates, filters as never).map((t) => t.id);

	it('filters by status, category, language (en matches en_US) and name, case-insensitively', () => {
		expect(ids({})).toEqual([1, 2, 3]);
		expect(ids({ status: 'APPROVED' })).toEqual([1, 3]);
		expect(ids({ status: 'approved', category: 'UTILITY', language: 'es' })).toEqual([3]);
		expect(ids({ language: 'en' })).toEqual([1, 2]);
		expect(ids({ nameContains: 'SALE' })).toEqual([2]);
		expect(ids({ status: ['REJECTED', 'APPROVED'], nameContains: 'a' })).toEqual([1, 2, 3]);
		expect(ids({ status: '' })).toEqual([1, 2, 3]);
	});
});

describe('checkTemplate: the item against the live template', () => {
	// ItemInput only needs the node, to name it in the error.
	const input = new ItemInput({ getNode: () => ({ name: 'Messaging', type: 'messaging' }) } as unknown as IExecuteFunctions, 3);
	const check = (template: TemplateRecord | undefined, values: Record<string, string>) =>
		checkTemplate(input, '6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b', template, new Map(Object.entries(values)));

	it('returns exactly the template\'s variables, in its order', () => {
		expect(check(record({}), { body2: 'b', body1: 'a' })).toEqual({ body1: 'a', body2: 'b' });
	});

	it('needs every placeholder the format shows; a body only the count adds goes when given and is left out when not', () => {
		const stale = record({ variable_counts: 1, template_formate: 'Hi [b:1], see you on [b:2].' });
		expect(check(stale, { body1: 'a', body2: 'b' })).toEqual({ body1: 'a', body2: 'b' });
		expect(() => check(stale, { body1: 'a' })).toThrow(/needs a value for "Body 2/);
		const counted = record({ variable_counts: 3, template_formate: 'Hi [b:1], see you on [b:2].' });
		expect(check(counted, { body1: 'a', body2: 'b' })).toEqual({ body1: 'a', body2: 'b' });
		expect(check(counted, { body1: 'a', body2: 'b', body3: 'c' })).toEqual({ body1: 'a', body2: 'b', body3: 'c' });
		// Without placeholders in the format, the count alone says what is needed.
		expect(() => check(record({ variable_counts: 2, template_formate: 'No placeholders shown' }), { body1: 'a' })).toThrow(/needs a value for "Body 2"/);
	});

	it('refuses an unknown or unapproved template, naming the item', () => {
		expect(() => check(undefined, {})).toThrow(/no template with ID 6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b in this account.*\[item 3\]/);
		expect(() => check(record({ status: 'PENDING' }), { body1: 'a', body2: 'b' })).toThrow(/"appointment_reminder" is PENDING, not APPROVED/);
		expect(() => check(record({ status: undefined }), { body1: 'a', body2: 'b' })).toThrow(/of unknown status, not APPROVED/);
	});

	it('refuses missing and unknown variables, saying what the template takes', () => {
		expect(() => check(record({}), { body1: 'a', body2: ' ' })).toThrow(/needs a value for "Body 2: …see you on \{2\}\."; it takes body1, body2 \[item 3\]/);
		expect(() => check(record({}), { body1: 'a', body2: 'b', Body1: 'c' })).toThrow(/has no variable "Body1"; it takes body1, body2/);
		expect(() => check(record({ variable_counts: 0, template_formate: 'Hi' }), { body1: 'a' })).toThrow(/it takes no variables/);
	});

	it.each(['__proto__', 'constructor', 'prototype', 'toString'])('refuses a variable named %s as unknown (a Map, not an object, holds the names)', (name) => {
		expect(() => check(record({}), { body1: 'a', body2: 'b', [name]: 'x' })).toThrow(new RegExp(`has no variable "${name}"`));
	});
});
