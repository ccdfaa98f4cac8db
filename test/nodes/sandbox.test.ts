import { describe, expect, it } from 'vitest';

import { n8nWorkflow } from '../harness';
import { runOn, useEmulator } from './setup';

const emulator = useEmulator();

describe('Sandbox Plants', () => {
	it('Create posts {name, id, tag} with the Bearer token and outputs {name, tag}', async () => {
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { operation: 'create', name: '={{ $json.name }}', plantId: '={{ $json.id }}', additionalFields: { tag: 'shade' } },
			items: [{ name: 'Fern', id: 10 }],
		});
		expect(run.error).toBeUndefined();
		const [request] = emulator.requests;
		expect(request).toMatchObject({ api: 'plantsCreate', method: 'POST', path: '/sandbox/plants', body: { name: 'Fern', id: 10, tag: 'shade' } });
		expect(request.headers.authorization).toBe(`Bearer ${emulator.tokens.bearer}`);
		expect(run.items[0]).toEqual({ json: { name: 'Fern', tag: 'shade' }, pairedItem: { item: 0 } });
	});

	it('Create without a tag sends none', async () => {
		await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'create', name: 'Ivy', plantId: 11 }, items: [{}] });
		expect(emulator.requests[0].body).toEqual({ name: 'Ivy', id: 11 });
	});

	it('Get Many sends limit as a query parameter, and none for Return All', async () => {
		const limited = await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'getAll', returnAll: false, limit: 2 }, items: [{}] });
		expect(emulator.requests[0]).toMatchObject({ api: 'plantsList', method: 'GET', path: '/sandbox/plants', query: { limit: '2' } });
		expect(limited.items.map((item) => item.json)).toEqual([
			{ name: 'Monstera', tag: 'tropical' },
			{ name: 'Aloe vera', tag: 'succulent' },
		]);
		emulator.reset();
		const all = await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'getAll', returnAll: true }, items: [{}] });
		expect(emulator.requests[0].query).toEqual({});
		expect(all.items).toHaveLength(3);
		expect(all.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('Delete calls DELETE /plants/{id} and outputs {deleted: true, id}', async () => {
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'delete', plantId: 2 }, items: [{}] });
		expect(emulator.requests[0]).toMatchObject({ api: 'plantsDelete', method: 'DELETE', path: '/sandbox/plants/2', status: 204 });
		expect(run.items[0].json).toEqual({ deleted: true, id: 2 });
		expect(emulator.plants().map((plant) => plant.id)).toEqual([1, 3]);
	});

	it('the {error, message} body becomes a NodeApiError with the message and the code', async () => {
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'delete', plantId: 99 }, items: [{}] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(run.error?.message).toBe('Plant not found (code 404) [item 0]');
		expect((run.error as { httpCode?: string }).httpCode).toBe('404');
		const duplicate = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { operation: 'create', name: 'Again', plantId: 1 },
			items: [{}],
		});
		expect((duplicate.error as { httpCode?: string }).httpCode).toBe('409');
	});

	it('Continue On Fail: the failed item holds the error, the others go on', async () => {
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { operation: 'delete', plantId: '={{ $json.id }}' },
			items: [{ id: 1 }, { id: 99 }, { id: 3 }],
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			{ deleted: true, id: 1 },
			{ error: 'Plant not found (code 404)', message: 'The service answered HTTP 404: check the ID, and the base URL in the credential.' },
			{ deleted: true, id: 3 },
		]);
	});

	it.each([
		[{ operation: 'create', name: '={{ $json.missing }}', plantId: 5 }, /Name \(name\): must not be empty/],
		[{ operation: 'create', name: 'X', plantId: '={{ "abc" }}' }, /Plant ID \(plantId\): "abc" is not a whole number/],
		[{ operation: 'create', name: 'X', plantId: '={{ 1.5 }}' }, /Plant ID \(plantId\): "1.5" is not a whole number/],
		[{ operation: 'delete', plantId: '={{ "" }}' }, /Plant ID \(plantId\)/],
		// What an AI agent's $fromAI gives when it leaves a field out, or sends a list: said as that,
		// not as the text "undefined" (outside review).
		[{ operation: 'create', name: 'X', plantId: '={{ $json.missing }}' }, /Plant ID \(plantId\): is missing; give a whole number \[item 0\]/],
		[{ operation: 'create', name: 'X', plantId: '={{ null }}' }, /Plant ID \(plantId\): is missing; give a whole number/],
		[{ operation: 'create', name: 'X', plantId: '={{ [7] }}' }, /Plant ID \(plantId\): must be a whole number, not a list/],
		[{ operation: 'getAll', returnAll: false, limit: '={{ $json.missing }}' }, /Limit \(limit\): is missing; give a whole number/],
		[{ operation: 'getAll', returnAll: false, limit: '={{ 0 }}' }, /Limit \(limit\): must be at least 1, got 0/],
	])('bad input %j is an error before any request', async (parameters, message) => {
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: parameters, items: [{}] });
		expect(run.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(run.error?.message).toMatch(message);
		expect(emulator.requests).toHaveLength(0);
	});

	it('accepts a plain http sandbox URL anywhere (the sandbox is http by design)', async () => {
		const credentialData = { ...emulator.credentials.messagingBearerApi, sandboxBaseUrl: 'http://sandbox.example.invalid' };
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { operation: 'getAll', returnAll: true, options: { maxRetries: 0 } },
			items: [{}],
			credentialData,
		});
		// No https refusal: the request is attempted (and fails to resolve the .invalid host).
		expect(run.error?.message).toMatch(/Could not reach sandbox\.example\.invalid: the host name (was not found|could not be looked up)/);
	});

	it("an empty name typed in is the node's own error, naming the item and the field, before the run sends anything", async () => {
		const run = await runOn(emulator, { type: 'sandboxPlants', parameters: { operation: 'create', name: '', plantId: 5 }, items: [{}] });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toBe('Name (name): must not be empty [item 0]');
		expect(emulator.requests).toHaveLength(0);
	});
});
