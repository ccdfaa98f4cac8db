/**
 * Local emulator of the messaging notification service (spec:
 * ../shared/spec/messaging-service-interface.md), for unit, engine, e2e tests and the
 * benchmark. One loopback server carries every API under its own prefix:
 *
 *   POST   /api:snd7f3a/send                                 direct send      Bearer
 *   POST   /api:tsd91bc/send_template_message_by_api         template send    Bearer
 *   GET    /api:tpl2d4e/get_templates                        list templates   Bearer
 *   POST   /dashboard/api/messaging/messages/v2.0.0/send     dashboard send   Authorization: <key>
 *   POST   /alt/v1/messages                                  alternative send X-API-Key
 *   POST|GET /sandbox/plants, DELETE /sandbox/plants/:id     sandbox          Bearer
 *   /__emulator/*                                            control API (see control.ts)
 *
 * A second loopback server, the trap (trap.ts), is what the redirect faults point at.
 * Faults and their switches: see the table at the top of faults.ts.
 *
 * Usage:
 *   const emulator = await startEmulator();
 *   // credentials for n8n: emulator.credentials.messagingBearerApi, ...
 *   emulator.setFaults({ script: ['429', 'ok'] });
 *   emulator.setFaults({ script: ['reset-after', 'redirect-307'], retryAfter: 'soon' });
 *   ...; expect(emulator.duplicates()).toEqual([]); expect(emulator.trapRequests).toEqual([]);
 *   await emulator.close();
 */
import { FaultController } from './faults';
import { PREFIX, TEMPLATE_VARIABLES, TEMPLATES, TOKENS } from './fixtures';
import { listenOnLoopback } from './http';
import { createEmulatorServer } from './server';
import { EmulatorState } from './state';
import { startTrap } from './trap';
import type { Emulator, EmulatorCredentials, StartOptions } from './types';

export type * from './types';
export { TOKENS } from './fixtures';

export async function startEmulator(options: StartOptions = {}): Promise<Emulator> {
	const state = new EmulatorState();
	const faults = new FaultController(options.latencyMs ?? 0, options.seed ?? 1);
	const trap = await startTrap();
	const reset = () => {
		state.resetAll();
		faults.reset();
		trap.clear();
	};
	const { server, close } = createEmulatorServer({ state, faults, trap, reset });

	const port = await listenOnLoopback(server, options.port ?? 0).catch(async (error: unknown) => {
		await trap.close(); // e.g. the port is taken: leave nothing listening behind
		throw error;
	});
	const url = `http://127.0.0.1:${port}`;

	const credentials: EmulatorCredentials = {
		messagingBearerApi: {
			accessToken: TOKENS.bearer,
			sendBaseUrl: url + PREFIX.send,
			templateSendBaseUrl: url + PREFIX.templateSend,
			templatesBaseUrl: url + PREFIX.templates,
			sandboxBaseUrl: url + PREFIX.sandbox,
		},
		messagingAuthorizationKeyApi: { apiKey: TOKENS.dashboardKey, dashboardUrl: url + PREFIX.dashboard },
		messagingXApiKeyApi: { apiKey: TOKENS.alternativeKey, apiUrl: url + PREFIX.alternative },
	};

	return {
		url,
		port,
		credentials,
		tokens: TOKENS,
		account: state.account,
		templates: TEMPLATES,
		templateVariables: TEMPLATE_VARIABLES,
		requests: state.requests,
		deliveries: state.deliveries,
		trapUrl: trap.url,
		trapRequests: trap.requests,
		clearTrap: () => trap.clear(),
		get faults() {
			return faults.settings;
		},
		plants: () => [...state.plants.values()].map((plant) => ({ ...plant })),
		setFaults: (patch) => faults.set(patch),
		resetFaults: () => faults.reset(),
		setAccount: (patch) => state.applyAccountPatch(patch),
		setTemplate: (patch) => state.setTemplate(patch),
		resetAccount: () => state.resetAccount(),
		setAttachment: (attachmentUrl, info) => void state.attachments.set(attachmentUrl, { ...info }),
		deliveryCounts: () => state.deliveryCounts(),
		duplicates: () => state.duplicates(),
		maxRequestsInWindow: (windowMs, filter) => state.maxRequestsInWindow(windowMs, filter),
		reset,
		close: async () => {
			await Promise.all([close(), trap.close()]);
		},
	};
}
