import { describe, expect, it } from 'vitest';

import { shortened, templateDescription, templateText, templateVariables } from '../../nodes/Messaging/templates';
import type { TemplateRecord } from '../../nodes/Messaging/templates';

const record = (template_formate: string | undefined, overrides: Partial<TemplateRecord> = {}): TemplateRecord => ({
	id: 1,
	name: 'reminder',
	category: 'UTILITY',
	language: 'en',
	status: 'APPROVED',
	template_formate,
	template_id: '6f1d2c3b-4a59-4e8f-9a7b-1c2d3e4f5a6b',
	...overrides,
});

const labels = (template: TemplateRecord) => templateVariables(template).map((variable) => variable.label);

describe('templateText: the template as a person reads it', () => {
	it('shows every placeholder shape the same way, on one line', () => {
		expect(templateText(record('[m:media]\nHi [b:1],  order [b:2].\n[u:visit_website]'))).toBe('{media} Hi {1}, order {2}. {link}');
		expect(templateText(record('Hi {{1}}, code {{ body2 }}; [body:3] {{media}} [button:x]'))).toBe('Hi {1}, code {2}; {3} {media} {link}');
		expect(templateText(record('Text with [brackets] and {braces} stays'))).toBe('Text with [brackets] and {braces} stays');
		expect(templateText(record(undefined))).toBe('');
	});

	it('is cut at a word boundary for the picker', () => {
		expect(shortened('a'.repeat(10), 10)).toBe('a'.repeat(10));
		expect(shortened('Hello there, this is a long reminder text', 20)).toBe('Hello there, this…');
		expect(shortened('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
		const long = templateDescription(record(`Hello [b:1], ${'very '.repeat(30)}long.`));
		expect(long.length).toBeLessThanOrEqual('UTILITY · APPROVED — '.length + 80);
		expect(long).toMatch(/^UTILITY · APPROVED — Hello \{1\}, very .*…$/);
	});
});

describe('variable labels: where each variable goes', () => {
	it('the words around its own placeholder, mostly those before it, then its name', () => {
		expect(labels(record('Hello [b:1], this is a reminder of your appointment on [b:2].', { variable_counts: 2 }))).toEqual([
			'Body 1: Hello {1}, this is…',
			'Body 2: …on {2}.',
		]);
		expect(labels(record('[m:media] Hi [b:1]. Track it: [u:visit_website]', { variable_counts: 3 }))).toEqual([
			'Body 1: {media} Hi {1}…',
			'Media URL: {media} Hi {1}…',
			'Button link: …it: {link}',
		]);
	});

	it('a short text whole; just the name when the text does not show the placeholder', () => {
		expect(labels(record('Hi {{1}}, pay {{2}}', { variable_counts: 2 }))).toEqual(['Body 1: Hi {1}, pay {2}', 'Body 2: Hi {1}, pay {2}']);
		expect(labels(record('No placeholders shown', { variable_counts: 2 }))).toEqual(['Body 1', 'Body 2']);
		expect(labels(record(undefined, { variable_counts: 1 }))).toEqual(['Body 1']);
	});

	it('the field ids stay the variable names', () => {
		expect(templateVariables(record('[m:media] Hi [b:1] [u:visit_website]', { variable_counts: 3 })).map((variable) => variable.name)).toEqual([
			'body1',
			'media',
			'visit_website',
		]);
	});
});
