/**
 * The route table: every API of the service under its own prefix of one server, so the
 * base URLs look like the spec's (`http://127.0.0.1:PORT/api:snd7f3a` + `/send`).
 *
 * Paths match exactly: a doubled or trailing slash is a 404, which catches base URLs
 * joined carelessly in the node.
 */
import type { ErrorStyle } from '../errors';
import { PREFIX } from '../fixtures';
import type { ApiName } from '../types';
import { directSend } from './directSend';
import { createPlant, deletePlant, listPlants } from './sandbox';
import type { ApiHandler } from './shared';
import { listTemplates, sendTemplate } from './templates';
import { alternativeSend, dashboardSend } from './textSends';

export interface Route {
	api: ApiName;
	method: 'GET' | 'POST' | 'DELETE';
	/** Exact path, or a pattern whose single group is the `id` parameter. */
	path: string | RegExp;
	/** Send APIs are subject to the rate limit and the success-false fault. */
	isSend: boolean;
	style: ErrorStyle;
	handle: ApiHandler;
}

const ROUTES: readonly Route[] = [
	{ api: 'send', method: 'POST', path: `${PREFIX.send}/send`, isSend: true, style: 'direct', handle: directSend },
	{
		api: 'templateSend',
		method: 'POST',
		path: `${PREFIX.templateSend}/send_template_message_by_api`,
		isSend: true,
		style: 'code',
		handle: sendTemplate,
	},
	{
		api: 'templates',
		method: 'GET',
		path: `${PREFIX.templates}/get_templates`,
		isSend: false,
		style: 'code',
		handle: listTemplates,
	},
	{
		api: 'dashboard',
		method: 'POST',
		path: `${PREFIX.dashboard}/api/messaging/messages/v2.0.0/send`,
		isSend: true,
		style: 'dashboard',
		handle: dashboardSend,
	},
	{
		api: 'alternative',
		method: 'POST',
		path: `${PREFIX.alternative}/v1/messages`,
		isSend: true,
		style: 'code',
		handle: alternativeSend,
	},
	{ api: 'plantsCreate', method: 'POST', path: `${PREFIX.sandbox}/plants`, isSend: false, style: 'sandbox', handle: createPlant },
	{ api: 'plantsList', method: 'GET', path: `${PREFIX.sandbox}/plants`, isSend: false, style: 'sandbox', handle: listPlants },
	{
		api: 'plantsDelete',
		method: 'DELETE',
		path: /^\/sandbox\/plants\/([^/]+)$/,
		isSend: false,
		style: 'sandbox',
		handle: deletePlant,
	},
];

/** Error shape for a path nobody routes: that of the API family whose prefix it carries. */
const FAMILY_STYLES: ReadonlyArray<[string, ErrorStyle]> = [
	[`${PREFIX.send}/`, 'direct'],
	[`${PREFIX.templateSend}/`, 'code'],
	[`${PREFIX.templates}/`, 'code'],
	[`${PREFIX.dashboard}/`, 'dashboard'],
	[`${PREFIX.alternative}/`, 'code'],
	[`${PREFIX.sandbox}/`, 'sandbox'],
];

export type RouteMatch =
	| { kind: 'route'; route: Route; params: Record<string, string> }
	| { kind: 'method-not-allowed'; api: ApiName; style: ErrorStyle; allow: string }
	| { kind: 'not-found'; style: ErrorStyle };

/** `path` is already percent-decoded by the server. */
export function matchRoute(method: string, path: string): RouteMatch {
	const onPath: Array<{ route: Route; params: Record<string, string> }> = [];
	for (const route of ROUTES) {
		if (typeof route.path === 'string') {
			if (route.path === path) onPath.push({ route, params: {} });
		} else {
			const m = route.path.exec(path);
			if (m) onPath.push({ route, params: { id: m[1] } });
		}
	}
	const hit = onPath.find(({ route }) => route.method === method);
	if (hit) return { kind: 'route', ...hit };
	if (onPath.length) {
		const first = onPath[0].route;
		return { kind: 'method-not-allowed', api: first.api, style: first.style, allow: onPath.map((r) => r.route.method).join(', ') };
	}
	const family = FAMILY_STYLES.find(([prefix]) => path.startsWith(prefix));
	return { kind: 'not-found', style: family ? family[1] : 'code' };
}

/** The API a request was meant for, also when the method was wrong (`unknown`: no route). */
export function apiOf(match: RouteMatch): ApiName {
	return match.kind === 'route' ? match.route.api : match.kind === 'method-not-allowed' ? match.api : 'unknown';
}
