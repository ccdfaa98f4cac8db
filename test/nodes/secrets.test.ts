import { describe, expect, it } from 'vitest';

import type { Emulator, ScriptStep } from '../emulator';
import { APPOINTMENT_REMINDER, mapperValue, runOn, useEmulator, visibleText } from './setup';

const emulator = useEmulator();

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
	const scenarios: Array<[string, ScriptStep[] | ((emu: Emulator) => void), Record<string, unknown>]> = [
		['success', [], {}],
		['service refusal', (emu) => emu.setAccount({ credits: 0 }), {}],
		['server error', ['5xx-after', '5xx-after', '5xx-after'], { options: { maxRetries: 1 } }],
		['200 with failure', ['success-false'], {}],
		['dropped connection', ['reset', 'reset'], { options: { maxRetries: 1 } }],
		['timeout', ['hang', 'hang'], { options: { timeoutSeconds: 1, maxRetries: 1 } }],
		// The service quotes the token or key it received in its error text.
		['echoed key', ['echo-key'], {}],
		['redirect', ['redirect-307'], {}],
	];
	/** The faults hit the operation's own request: Send Template first reads the account's templates. */
	const arrange = (emu: Emulator, operation: string, faults: ScriptStep[] | ((emu: Emulator) => void)) => {
		if (typeof faults === 'function') faults(emu);
		else if (faults.length > 0) emu.setFaults({ script: operation === 'sendTemplate' ? ['ok', ...faults] : faults });
	};

	for (const parameters of OPERATIONS) {
		for (const [name, faults, extra] of scenarios) {
			it(`${parameters.operation}: ${name}`, async () => {
				const emu = emulator;
				const secret = String(emu.credentials[credentialOf[parameters.operation]][secretField[parameters.operation] as never]);
				for (const continueOnFail of [true, false]) {
					emu.reset();
					arrange(emu, parameters.operation, faults);
					const run = await runOn(emu, { parameters: { ...parameters, ...extra }, items: [{ phone: '+14155550123' }], continueOnFail });
					expect(emu.requests.length).toBeGreaterThan(0);
					// Listing templates is neither charged nor subject to the send faults.
					if (name !== 'success' && !continueOnFail && (parameters.operation !== 'getAll' || /server|dropped|timeout|echoed|redirect/.test(name))) {
						expect(run.error).toBeDefined();
					}
					// The echoed key is in the service's text, and was scrubbed out of it.
					if (name === 'echoed key') expect(visibleText(run)).toContain('[redacted]');
					expect(visibleText(run)).not.toContain(secret);
					expect(emu.trapRequests).toEqual([]);
				}
			}, 20_000);
		}

		it(`${parameters.operation}: wrong key, with and without Continue On Fail`, async () => {
			const emu = emulator;
			const type = credentialOf[parameters.operation];
			const wrong = 'sk_live_WRONG_3b9f2e71c4';
			const credentialData = { ...emu.credentials[type], [secretField[parameters.operation]]: wrong };
			for (const continueOnFail of [true, false]) {
				const run = await runOn(emu, { parameters: parameters, items: [{ phone: '+14155550123' }], credentialData, continueOnFail });
				expect(visibleText(run)).toMatch(/refused|Unauthori[sz]ed|Authentication|invalid/i);
				expect(visibleText(run)).not.toContain(wrong);
			}
		});
	}

	it.each(OPERATIONS.map((parameters) => [parameters.operation, parameters] as const))(
		'%s: a key with `/`, `+` and `=` quoted back as an HTML page escapes it is scrubbed too',
		async (operation, parameters) => {
			const emu = emulator;
			const type = credentialOf[operation];
			const odd = 'sk_live/Ab+cD9=ef12345678';
			emu.reset();
			emu.setFaults({ script: ['echo-key-html'] });
			const run = await runOn(emu, { parameters, items: [{ phone: '+14155550123' }], credentialData: { ...emu.credentials[type], [secretField[operation]]: odd } });
			expect(emu.requests[0].outcome).toBe('echo-key');
			// Send Template's run reads the account's templates first: that read quotes the key, and a run
			// sends without them (the send's own refusal is what shows).
			if (operation !== 'sendTemplate') expect(visibleText(run)).toContain('[redacted]');
			expect(visibleText(run)).not.toContain('Ab&#43;cD9');
			expect(visibleText(run)).not.toContain(odd);
		},
	);

	it('Sandbox Plants: failure and success', async () => {
		const emu = emulator;
		const secret = emu.credentials.messagingBearerApi.accessToken;
		for (const parameters of [
			{ operation: 'getAll', returnAll: true },
			{ operation: 'delete', plantId: 404 },
			{ operation: 'create', name: 'Fern', plantId: 1 },
		]) {
			for (const continueOnFail of [true, false]) {
				const run = await runOn(emu, { type: 'sandboxPlants', parameters: parameters, items: [{}], continueOnFail });
				expect(visibleText(run)).not.toContain(secret);
			}
		}
	});
});
