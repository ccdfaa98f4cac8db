import { describe, expect, it } from 'vitest';

import type { Emulator } from '../emulator';
import { APPOINTMENT_REMINDER, mapperValue, runMessaging, runSandbox, useEmulator } from './setup';

const emulator = useEmulator();

/** Everything a user or a log could see of a run: output items, the error and all its fields. */
function visibleText(run: { items: unknown[]; outputs: unknown[][]; error?: Error; run: { error?: Error } }): string {
	const errors = [run.error, run.run.error].filter(Boolean) as Error[];
	const errorText = errors.map((error) => {
		const fields: Record<string, unknown> = {};
		for (const key of Object.getOwnPropertyNames(error)) fields[key] = (error as unknown as Record<string, unknown>)[key];
		return JSON.stringify(fields, (_, value) => (typeof value === 'bigint' ? String(value) : value)) + String(error.stack);
	});
	return JSON.stringify(run.outputs) + JSON.stringify(run.items) + errorText.join('\n');
}

const OPERATIONS = [
	{ resource: 'message', operation: 'send', phone: '={{ $json.phone }}', text: 'hello' },
	{
		resource: 'message',
		operation: 'sendTemplate',
		phoneNumber: '={{ $json.phone }}',
		template: { __rl: true, mode: 'id', value: APPOINTMENT_REMINDER },
		variables: mapperValue({ body1: 'a', body2: 'b' }),
	},
	{ resource: 'message', operation: 'sendDashboard', to: '={{ $json.phone }}', text: 'hello' },
	{ resource: 'message', operation: 'sendAlternative', to: '={{ $json.phone }}', message: 'hello' },
	{ resource: 'template', operation: 'getAll', returnAll: true },
];

const secretField: Record<string, string> = {
	send: 'accessToken',
	sendTemplate: 'accessToken',
	getAll: 'accessToken',
	sendDashboard: 'apiKey',
	sendAlternative: 'apiKey',
};
const credentialOf: Record<string, keyof Emulator['credentials']> = {
	send: 'messagingBearerApi',
	sendTemplate: 'messagingBearerApi',
	getAll: 'messagingBearerApi',
	sendDashboard: 'messagingAuthorizationKeyApi',
	sendAlternative: 'messagingXApiKeyApi',
};

describe('no token or key in any output item, error message or description', () => {
	const scenarios: Array<[string, (emu: Emulator) => void, Record<string, unknown>]> = [
		['success', () => {}, {}],
		['service refusal', (emu) => emu.setAccount({ credits: 0 }), {}],
		['server error', (emu) => emu.setFaults({ script: ['5xx-after', '5xx-after', '5xx-after'] }), { options: { maxRetries: 1 } }],
		['200 with failure', (emu) => emu.setFaults({ script: ['success-false'] }), {}],
		['dropped connection', (emu) => emu.setFaults({ script: ['reset', 'reset'] }), { options: { maxRetries: 1 } }],
		['timeout', (emu) => emu.setFaults({ script: ['hang', 'hang'] }), { options: { timeoutSeconds: 1, maxRetries: 1 } }],
	];

	for (const parameters of OPERATIONS) {
		for (const [name, arrange, extra] of scenarios) {
			it(`${parameters.operation}: ${name}`, async () => {
				const emu = emulator();
				const secret = String(emu.credentials[credentialOf[parameters.operation]][secretField[parameters.operation] as never]);
				for (const continueOnFail of [true, false]) {
					emu.reset();
					arrange(emu);
					const run = await runMessaging(emu, { ...parameters, ...extra }, [{ phone: '+14155550123' }], { continueOnFail });
					expect(emu.requests.length).toBeGreaterThan(0);
					// Listing templates is neither charged nor subject to the send faults.
					if (name !== 'success' && !continueOnFail && (parameters.operation !== 'getAll' || /server|dropped|timeout/.test(name))) {
						expect(run.error).toBeDefined();
					}
					expect(visibleText(run)).not.toContain(secret);
				}
			}, 20_000);
		}

		it(`${parameters.operation}: wrong key, with and without Continue On Fail`, async () => {
			const emu = emulator();
			const type = credentialOf[parameters.operation];
			const wrong = 'sk_live_WRONG_3b9f2e71c4';
			const credentialData = { ...emu.credentials[type], [secretField[parameters.operation]]: wrong };
			for (const continueOnFail of [true, false]) {
				const run = await runMessaging(emu, parameters, [{ phone: '+14155550123' }], { credentialData, continueOnFail });
				expect(visibleText(run)).toMatch(/refused|Unauthori[sz]ed|Authentication|invalid/i);
				expect(visibleText(run)).not.toContain(wrong);
			}
		});
	}

	it('Sandbox Plants: failure and success', async () => {
		const emu = emulator();
		const secret = emu.credentials.messagingBearerApi.accessToken;
		for (const parameters of [
			{ operation: 'getAll', returnAll: true },
			{ operation: 'delete', plantId: 404 },
			{ operation: 'create', name: 'Fern', plantId: 1 },
		]) {
			for (const continueOnFail of [true, false]) {
				const run = await runSandbox(emu, parameters, [{}], { continueOnFail });
				expect(visibleText(run)).not.toContain(secret);
			}
		}
	});
});
