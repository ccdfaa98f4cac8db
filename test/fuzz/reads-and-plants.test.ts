/**
 * Bad-input fuzz of Template → Get Many and of the Sandbox Plants node (create, get many,
 * delete): ids, limits, names, tags and filters of every type an expression can produce.
 * Reads and deletes are not held back until every item is checked (only sends and creates
 * are), so those properties use one-item runs. See ./support.ts for the property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
	MISSING,
	Tally,
	anyString,
	fcOptions,
	integerInput,
	itemWith,
	modelInteger,
	modelRequiredText,
	modelText,
	runBounded,
	textInput,
	wrongType,
	type Input,
} from './support';
import { useEmulator } from '../emulator/use';

const emulator = useEmulator({ seed: 23, resetEachTest: false });

const PATH = {
	templates: '/api:tpl2d4e/get_templates',
	plants: '/sandbox/plants',
};

const returnAllInput: fc.Arbitrary<Input> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(false) },
	{ weight: 1, arbitrary: fc.constant(true) },
	{ weight: 1, arbitrary: fc.constantFrom('true', 1, null, MISSING, 'yes') },
);

const nameFilterInput: fc.Arbitrary<Input> = fc.oneof(
	fc.constantFrom(MISSING, '', 'order', 'ORDER', 'a', '_', 'reminder', 'é'),
	anyString,
	wrongType,
);

/** String(value) as the node's filters read it; objects without a prototype included. */
const textOf = (value: unknown): string => {
	try {
		return String(value);
	} catch {
		return '[object Object]';
	}
};

describe('Template → Get Many', () => {
	it('return all × limit × name filter: one GET and the right records, or refused before it', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(returnAllInput, integerInput, nameFilterInput, async (returnAll, limit, nameContains) => {
				const run = await runBounded(emulator, {
					parameters: {
						resource: 'template',
						operation: 'getAll',
						returnAll: '={{ $json.returnAll }}',
						limit: '={{ $json.limit }}',
						filters: { nameContains: '={{ $json.nameContains }}' },
						options: {},
					},
					items: [itemWith({ returnAll, limit, nameContains })],
				});
				const all = returnAll === true;
				const max = all ? Infinity : modelInteger(limit, 1);
				if (max === undefined) return tally.refusedBeforeAnyRequest(run, 0, /Limit \(limit\)/);
				tally.sentExactly(run, { api: 'templates', method: 'GET', path: PATH.templates, query: {} }, 1);
				const present = nameContains !== MISSING && nameContains !== null && nameContains !== '' && !(Array.isArray(nameContains) && nameContains.length === 0);
				const wanted = emulator.templates
					.filter((template) => !present || template.name.toLowerCase().includes(textOf(nameContains).toLowerCase()))
					.slice(0, max)
					.map((template) => template.template_id);
				expect(run.items.map((item) => item.json.template_id)).toEqual(wanted);
			}),
			fcOptions(80),
		);
		tally.expectBoth();
	}, 90_000);
});

describe('Sandbox Plants', () => {
	it('create: name × plant id × tag, sent as {name, id, tag?} or refused before any request', async () => {
		const tally = new Tally();
		const goodId = fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 4, max: 999 }).map(String));
		await fc.assert(
			fc.asyncProperty(
				fc.oneof({ weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) }, { weight: 2, arbitrary: textInput }),
				fc.oneof({ weight: 2, arbitrary: goodId }, { weight: 2, arbitrary: integerInput }),
				fc.oneof({ weight: 3, arbitrary: fc.constantFrom(MISSING, '', 'indoor', ' tropical ') }, { weight: 1, arbitrary: textInput }),
				async (name, plantId, tag) => {
					const run = await runBounded(emulator, {
						type: 'sandboxPlants',
						parameters: {
							resource: 'plant',
							operation: 'create',
							name: '={{ $json.name }}',
							plantId: '={{ $json.plantId }}',
							additionalFields: { tag: '={{ $json.tag }}' },
							options: {},
						},
						// Item 0 is valid: a create is held until every item is checked, like a send.
						items: [{ name: 'Fern', plantId: 9_000_000, tag: 'shade' }, itemWith({ name, plantId, tag })],
					});
					const expectedName = modelRequiredText(name);
					const expectedId = modelInteger(plantId, 0);
					const expectedTag = modelText(tag);
					if (expectedName === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Name \(name\)/);
					if (expectedId === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Plant ID \(plantId\)/);
					if (expectedTag === undefined) return tally.refusedBeforeAnyRequest(run, 1, /Tag/);
					const body = expectedTag === '' ? { name: expectedName, id: expectedId } : { name: expectedName, id: expectedId, tag: expectedTag };
					tally.sentExactly(run, { api: 'plantsCreate', method: 'POST', path: PATH.plants, body }, 2);
				},
			),
			fcOptions(80),
		);
		tally.expectBoth();
	}, 90_000);

	it('delete: plant id → DELETE /plants/{id}, or refused before any request', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(fc.oneof({ weight: 1, arbitrary: fc.constantFrom(1, 2, 3, '2', 404) }, { weight: 2, arbitrary: integerInput }), async (plantId) => {
				const run = await runBounded(emulator, {
					type: 'sandboxPlants',
					parameters: { resource: 'plant', operation: 'delete', plantId: '={{ $json.plantId }}', options: {} },
					items: [itemWith({ plantId })],
				});
				const id = modelInteger(plantId, 0);
				if (id === undefined) return tally.refusedBeforeAnyRequest(run, 0, /Plant ID \(plantId\)/);
				tally.sentExactly(run, { api: 'plantsDelete', method: 'DELETE', path: `${PATH.plants}/${id}` }, 1);
				if (!run.error) expect(run.items.map((item) => item.json)).toEqual([{ deleted: true, id }]);
			}),
			fcOptions(60),
		);
		tally.expectBoth();
	}, 90_000);

	it('get many: return all × limit → GET /plants?limit=N (none with Return All), or refused before it', async () => {
		const tally = new Tally();
		await fc.assert(
			fc.asyncProperty(returnAllInput, integerInput, async (returnAll, limit) => {
				const run = await runBounded(emulator, {
					type: 'sandboxPlants',
					parameters: { resource: 'plant', operation: 'getAll', returnAll: '={{ $json.returnAll }}', limit: '={{ $json.limit }}', options: {} },
					items: [itemWith({ returnAll, limit })],
				});
				if (returnAll === true) {
					tally.sentExactly(run, { api: 'plantsList', method: 'GET', path: PATH.plants, query: {} }, 1);
					return;
				}
				const max = modelInteger(limit, 1);
				if (max === undefined) return tally.refusedBeforeAnyRequest(run, 0, /Limit \(limit\)/);
				tally.sentExactly(run, { api: 'plantsList', method: 'GET', path: PATH.plants, query: { limit: String(max) } }, 1);
				if (!run.error) expect(run.items).toHaveLength(Math.min(max, 3));
			}),
			fcOptions(60),
		);
		tally.expectBoth();
	}, 90_000);
});

describe('ids spelled in other bases', () => {
	// A whole number in an item is written in decimal; "0x10" must not delete plant 16.
	it.each(['0x10', '0b10000', '0o20', '1.6e1'])('plant id %j is refused, not read as 16', async (plantId) => {
		const run = await runBounded(emulator, {
			type: 'sandboxPlants',
			parameters: { resource: 'plant', operation: 'delete', plantId: '={{ $json.plantId }}', options: {} },
			items: [{ plantId }],
		});
		expect(run.requests.map((request) => request.path)).toEqual([]);
		expect(run.error?.name).toBe('NodeOperationError');
	});
});
