/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Seed data: credentials, the account's templates, the sandbox plants and the default
 * account limits. Fixed values, so tests and saved n8n credentials can rely on them.
 */
import type { Account, EmulatorTokens, PlantRecord, TemplateRecord } from './types';

/** Distinct, recognisable fake secrets (they must never show up in node output). */
export const TOKENS: Readonly<EmulatorTokens> = Object.freeze({
	bearer: 'emu_bearer_9f8e7d6c5b4a',
	forbiddenBearer: 'emu_bearer_readonly_1a2b3c4d5e',
	dashboardKey: 'emu_dashkey_4c3b2a1f0e9d',
	alternativeKey: 'emu_xkey_7a6b5c4d3e2f',
});

/** Path prefixes; the `/api:<group>` segments mimic the spec's opaque group ids. */
export const PREFIX = {
	send: '/api:snd7f3a',
	templateSend: '/api:tsd91bc',
	templates: '/api:tpl2d4e',
	dashboard: '/dashboard',
	alternative: '/alt',
	sandbox: '/sandbox',
	control: '/__emulator/',
} as const;

/**
 * Defaults are generous so a bulk test of 10,000 sends to one number never trips a limit
 * by accident; tests lower them to reach conditions 2, 5 and 8. (Finite numbers, so the
 * account survives JSON in the control API.)
 */
export function defaultAccount(): Account {
	return {
		credits: 1_000_000,
		subscriptionExpired: false,
		perNumberLimit: 1_000_000,
		uniqueNumberLimit: 1_000_000,
		notOnPlatform: new Set(['+15550000000']),
	};
}

const ACCOUNT_USER_ID = '5f0c6a1e-2b7d-4c9e-8a31-6d2f4b8e9c10';

/**
 * Convention for `template_formate` (the spec only shows the shape `[b:7]`):
 * - `[b:1]`, `[b:2]`, ... are body variables, named `body1`, `body2`, ... in `variables`;
 * - `[m:media]` is a media header, named `media` (a URL string);
 * - `[u:visit_website]` is the URL parameter of a dynamic button, named `visit_website`.
 * `variable_counts` counts every placeholder (bodies + media + visit_website).
 */
const PLACEHOLDER = /\[(b|m|u):([A-Za-z0-9_]+)\]/g;

/** Variable names of a format string, in order of first appearance. */
export function variableNamesOf(format: string): string[] {
	const names: string[] = [];
	for (const [, kind, name] of format.matchAll(PLACEHOLDER)) {
		const variable = kind === 'b' ? `body${name}` : name;
		if (!names.includes(variable)) names.push(variable);
	}
	return names;
}

type TemplateSeed = Omit<TemplateRecord, 'user_id' | 'type' | 'variable_counts'>;

const TEMPLATE_SEEDS: TemplateSeed[] = [
	{
		id: 101,
		name: 'appointment_reminder',
		category: 'UTILITY',
		language: 'en',
		status: 'APPROVED',
		template_formate: 'Hello [b:1], this is a reminder of your appointment on [b:2].',
		template_id: '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01',
	},
	{
		id: 102,
		name: 'order_confirmation',
		category: 'UTILITY',
		language: 'en_US',
		status: 'APPROVED',
		template_formate:
			'[m:media] Hi [b:1], your order [b:2] is confirmed. Total: [b:3]. Track it: [u:visit_website]',
		template_id: '8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c02',
	},
	{
		id: 103,
		name: 'welcome_message',
		category: 'MARKETING',
		language: 'en',
		status: 'APPROVED',
		template_formate: 'Welcome to our service! Reply STOP to unsubscribe.',
		template_id: 'c0ffee00-1234-4abc-8def-0123456789a3',
	},
	{
		id: 104,
		name: 'spring_sale',
		category: 'MARKETING',
		language: 'en',
		status: 'REJECTED',
		template_formate: 'Spring sale! Get [b:1] off everything this week.',
		template_id: 'deadbeef-5678-4bcd-9ef0-123456789a04',
	},
	{
		id: 105,
		name: 'recordatorio_pago',
		category: 'UTILITY',
		language: 'es',
		status: 'APPROVED',
		template_formate: 'Hola [b:1], su pago de [b:2] vence el [b:3].',
		template_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c05',
	},
	{
		id: 106,
		name: 'feature_announcement',
		category: 'MARKETING',
		language: 'en_US',
		status: 'PENDING',
		template_formate: 'Hi [b:1], our new feature is live. Learn more: [u:visit_website]',
		template_id: 'f6e5d4c3-b2a1-4f0e-9d8c-7b6a5f4e3d06',
	},
];

export const TEMPLATES: readonly TemplateRecord[] = Object.freeze(
	TEMPLATE_SEEDS.map((seed) =>
		Object.freeze({
			id: seed.id,
			user_id: ACCOUNT_USER_ID,
			name: seed.name,
			category: seed.category,
			type: 'text',
			language: seed.language,
			status: seed.status,
			variable_counts: variableNamesOf(seed.template_formate).length,
			template_formate: seed.template_formate,
			template_id: seed.template_id,
		}),
	),
);

/** template_id -> variable names the template send expects as keys of `variables`. */
export const TEMPLATE_VARIABLES: Readonly<Record<string, readonly string[]>> = Object.freeze(
	Object.fromEntries(
		TEMPLATES.map((t) => [t.template_id, Object.freeze(variableNamesOf(t.template_formate))]),
	),
);

export const SEED_PLANTS: readonly PlantRecord[] = Object.freeze([
	{ id: 1, name: 'Monstera', tag: 'tropical' },
	{ id: 2, name: 'Aloe vera', tag: 'succulent' },
	{ id: 3, name: 'Basil', tag: 'herb' },
]);
