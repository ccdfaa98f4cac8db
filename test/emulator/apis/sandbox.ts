/**
 * Sandbox plants (Bearer; errors `{error: <status>, message}`), a plain store:
 * - POST   /sandbox/plants      {name, id, tag?} -> 200 {name, tag}; 400 bad body; 409 id taken
 * - GET    /sandbox/plants?limit -> 200 [{name, tag}], the first `limit` in insertion order
 * - DELETE /sandbox/plants/:id  -> 204 no body; 404 unknown id
 * Both Bearer tokens may use it (the read-only restriction is about sending messages).
 */
import { ApiError } from '../errors';
import type { PlantRecord } from '../types';
import { isNonEmptyString } from '../validation';
import { requireBearer, requireJsonObject, type ApiContext, type ApiResult } from './shared';

/** The public view of a plant: the id is an input only (spec part 2.7). */
const view = ({ name, tag }: PlantRecord) => ({ name, tag });

export function createPlant(ctx: ApiContext): ApiResult {
	requireBearer(ctx);
	const { name, id, tag } = requireJsonObject(ctx);
	if (!isNonEmptyString(name)) throw new ApiError(400, 'INVALID_REQUEST', "'name' must be a non-empty string");
	if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
		throw new ApiError(400, 'INVALID_REQUEST', "'id' must be an integer");
	}
	if (tag !== undefined && typeof tag !== 'string') throw new ApiError(400, 'INVALID_REQUEST', "'tag' must be a string");
	if (ctx.state.plants.has(id)) throw new ApiError(409, 'CONFLICT', `A plant with id ${id} already exists`);
	const plant: PlantRecord = tag === undefined ? { id, name } : { id, name, tag };
	ctx.state.plants.set(id, plant);
	return { status: 200, body: view(plant), outcome: 'ok' };
}

export function listPlants(ctx: ApiContext): ApiResult {
	requireBearer(ctx);
	const raw = ctx.query.limit;
	if (raw !== undefined && !/^[1-9]\d{0,8}$/.test(raw)) {
		throw new ApiError(400, 'INVALID_REQUEST', "'limit' must be a positive integer");
	}
	const plants = [...ctx.state.plants.values()];
	const limited = raw === undefined ? plants : plants.slice(0, Number(raw));
	return { status: 200, body: limited.map(view), outcome: 'ok' };
}

export function deletePlant(ctx: ApiContext): ApiResult {
	requireBearer(ctx);
	const raw = ctx.params.id;
	if (!/^-?\d{1,15}$/.test(raw)) throw new ApiError(400, 'INVALID_REQUEST', 'Plant id must be an integer');
	const id = Number(raw);
	if (!ctx.state.plants.delete(id)) throw new ApiError(404, 'NOT_FOUND', 'Plant not found');
	return { status: 204, outcome: 'ok' };
}
