import { describe, expect, it } from 'vitest';
import { call, clientFor } from './testClient';
import { useEmulator } from './use';

const emulator = useEmulator();
const api = clientFor(emulator);

const SEEDED = [
	{ name: 'Monstera', tag: 'tropical' },
	{ name: 'Aloe vera', tag: 'succulent' },
	{ name: 'Basil', tag: 'herb' },
];

describe('sandbox plants', () => {
	it('lists the three seeded plants as {name, tag}', async () => {
		const answer = await api.listPlants();
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual(SEEDED);
	});

	it('limit returns the first N; a bad limit is 400 {error, message}', async () => {
		expect((await api.listPlants('?limit=2')).body).toEqual(SEEDED.slice(0, 2));
		expect((await api.listPlants('?limit=50')).body).toEqual(SEEDED);
		for (const bad of ['0', '-1', 'abc', '1.5', '']) {
			const answer = await api.listPlants(`?limit=${bad}`);
			expect(answer.status, bad).toBe(400);
			expect(answer.body).toEqual({ error: 400, message: "'limit' must be a positive integer" });
		}
	});

	it('create answers {name, tag} and the plant is listed', async () => {
		const answer = await api.createPlant({ name: 'Fern', id: 10, tag: 'shade' });
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({ name: 'Fern', tag: 'shade' });
		expect((await api.createPlant({ name: 'Cactus', id: 11 })).body).toEqual({ name: 'Cactus' });
		expect((await api.listPlants()).body).toEqual([...SEEDED, { name: 'Fern', tag: 'shade' }, { name: 'Cactus' }]);
		expect(emulator.plants().map((p) => p.id)).toEqual([1, 2, 3, 10, 11]);
	});

	it.each([
		[{ id: 10 }],
		[{ name: '', id: 10 }],
		[{ name: 'Fern' }],
		[{ name: 'Fern', id: '10' }],
		[{ name: 'Fern', id: 1.5 }],
		[{ name: 'Fern', id: 10, tag: 7 }],
	])('create 400 for %j', async (body) => {
		const answer = await api.createPlant(body);
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ error: 400, message: expect.any(String) });
	});

	it('create 400 for a non-JSON body, 409 for a taken id', async () => {
		const notJson = await call(`${emulator.credentials.messagingBearerApi.sandboxBaseUrl}/plants`, {
			raw: 'name=Fern',
			headers: { ...api.bearer, 'content-type': 'application/json' },
		});
		expect(notJson.status).toBe(400);
		expect(notJson.body.error).toBe(400);
		const taken = await api.createPlant({ name: 'Twin', id: 2 });
		expect(taken.status).toBe(409);
		expect(taken.body).toEqual({ error: 409, message: 'A plant with id 2 already exists' });
	});

	it('delete answers 204 with no body, then 404 {error:404, message:"Plant not found"}', async () => {
		const answer = await api.deletePlant(2);
		expect(answer.status).toBe(204);
		expect(answer.body).toBeUndefined();
		expect((await api.listPlants()).body).toEqual([SEEDED[0], SEEDED[2]]);
		const again = await api.deletePlant(2);
		expect(again.status).toBe(404);
		expect(again.body).toEqual({ error: 404, message: 'Plant not found' });
		expect((await api.deletePlant('abc')).status).toBe(400);
	});

	it('needs a Bearer token (the read-only one is fine); 401 in the sandbox shape', async () => {
		expect((await api.listPlants('', { authorization: `Bearer ${emulator.tokens.forbiddenBearer}` })).status).toBe(200);
		for (const headers of [{}, { authorization: 'Bearer nope' }, { 'x-api-key': emulator.tokens.bearer }] as Record<string, string>[]) {
			const answer = await api.listPlants('', headers);
			expect(answer.status).toBe(401);
			expect(answer.body).toEqual({ error: 401, message: expect.stringMatching(/^Authentication failed/) });
		}
		expect((await api.deletePlant(1, {})).status).toBe(401);
		expect((await api.createPlant({ name: 'X', id: 9 }, {})).status).toBe(401);
	});

	it('405 for a method the path does not take, in the sandbox shape', async () => {
		const answer = await call(`${emulator.url}/sandbox/plants/1`, { method: 'GET', headers: api.bearer });
		expect(answer.status).toBe(405);
		expect(answer.headers.get('allow')).toBe('DELETE');
		expect(answer.body).toEqual({ error: 405, message: expect.any(String) });
	});
});
