/* eslint-disable @typescript-eslint/no-explicit-any -- not shipped: the emulator tests read answers of any JSON shape */
/**
 * Plain-fetch helpers for the emulator's own tests.
 */
import type { Emulator } from './index';

export interface Answer {
	status: number;
	headers: Headers;
	/** Parsed JSON, the text when it is not JSON, undefined when empty. */
	body: any;
}

export interface CallOptions {
	method?: string;
	headers?: Record<string, string>;
	/** Serialised with Content-Type: application/json. */
	json?: unknown;
	/** Sent as is (no Content-Type unless given in headers). */
	raw?: string;
	signal?: AbortSignal;
}

export async function call(url: string, options: CallOptions = {}): Promise<Answer> {
	const headers = { ...options.headers };
	let body: string | undefined = options.raw;
	if (options.json !== undefined) {
		body = JSON.stringify(options.json);
		headers['content-type'] ??= 'application/json';
	}
	const response = await fetch(url, {
		method: options.method ?? (body === undefined ? 'GET' : 'POST'),
		headers,
		body,
		signal: options.signal,
	});
	const text = await response.text();
	let parsed: unknown = undefined;
	if (text !== '') {
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = text;
		}
	}
	return { status: response.status, headers: response.headers, body: parsed };
}

/** Ready-made calls with the right credentials; `headers` overrides them. */
/** A client of `emulator`'s APIs; it reads the emulator's addresses and keys at each call, so it may be made before the emulator starts. */
export function clientFor(emulator: Emulator) {
	const pick = (base: Record<string, string>, override?: Record<string, string>) => override ?? base;
	const bearer = () => ({ authorization: `Bearer ${emulator.tokens.bearer}` });
	return {
		get bearer() {
			return bearer();
		},
		send: (json: unknown, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.sendBaseUrl}/send`, { json, headers: pick(bearer(), headers) }),
		sendTemplate: (json: unknown, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.templateSendBaseUrl}/send_template_message_by_api`, {
				json,
				headers: pick(bearer(), headers),
			}),
		listTemplates: (headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.templatesBaseUrl}/get_templates`, { headers: pick(bearer(), headers) }),
		dashboard: (json: unknown, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingAuthorizationKeyApi.dashboardUrl}/api/messaging/messages/v2.0.0/send`, {
				json,
				headers: pick({ authorization: emulator.tokens.dashboardKey }, headers),
			}),
		alternative: (json: unknown, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingXApiKeyApi.apiUrl}/v1/messages`, {
				json,
				headers: pick({ 'x-api-key': emulator.tokens.alternativeKey }, headers),
			}),
		createPlant: (json: unknown, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.sandboxBaseUrl}/plants`, { json, headers: pick(bearer(), headers) }),
		listPlants: (query = '', headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.sandboxBaseUrl}/plants${query}`, { headers: pick(bearer(), headers) }),
		deletePlant: (id: string | number, headers?: Record<string, string>) =>
			call(`${emulator.credentials.messagingBearerApi.sandboxBaseUrl}/plants/${id}`, { method: 'DELETE', headers: pick(bearer(), headers) }),
		control: (name: string, json?: unknown) => call(`${emulator.url}/__emulator/${name}`, { json }),
	};
}

export const PHONE = '+14155550123';
export const MB = 1024 * 1024;
