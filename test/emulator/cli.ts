/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Run the emulator on its own: `npm run emulator -- [--port N] [--latency MS] [--seed N]`
 * (or `npx tsx test/emulator/cli.ts ...`). Prints the URL and credential values ready to
 * paste into n8n, then serves until SIGINT/SIGTERM.
 *
 * Faults are switched through the control API, e.g.
 *   curl -X POST URL/__emulator/faults -d '{"script":["reset-after","redirect-307"],"retryAfter":"soon"}'
 * (every switch: the table at the top of faults.ts); what followed a redirect: GET URL/__emulator/trap.
 */
import { startEmulator } from './index';

function numberFlag(args: string[], name: string): number | undefined {
	const at = args.indexOf(`--${name}`);
	const inline = args.find((a) => a.startsWith(`--${name}=`));
	const raw = inline ? inline.slice(name.length + 3) : at >= 0 ? args[at + 1] : undefined;
	if (raw === undefined) return undefined;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 0) {
		console.error(`--${name} needs a whole number >= 0, got '${raw}'`);
		process.exit(2);
	}
	return value;
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const emulator = await startEmulator({
		port: numberFlag(args, 'port') ?? 0,
		latencyMs: numberFlag(args, 'latency'),
		seed: numberFlag(args, 'seed'),
	});

	const { credentials } = emulator;
	console.log(`Messaging service emulator listening on ${emulator.url}`);
	console.log('');
	console.log('Credential messagingBearerApi:');
	console.log(JSON.stringify(credentials.messagingBearerApi, null, 2));
	console.log('Credential messagingAuthorizationKeyApi:');
	console.log(JSON.stringify(credentials.messagingAuthorizationKeyApi, null, 2));
	console.log('Credential messagingXApiKeyApi:');
	console.log(JSON.stringify(credentials.messagingXApiKeyApi, null, 2));
	console.log('');
	console.log(`Control API: GET ${emulator.url}/__emulator/state, POST .../faults, .../account, .../reset`);
	console.log(`Redirect trap: ${emulator.trapUrl} (what reached it: GET ${emulator.url}/__emulator/trap, clear: DELETE)`);
	console.log('Faults: POST .../faults {"script": [...], "p...": 0.1, "retryAfter": "...", ...}; see test/emulator/faults.ts');
	console.log('Press Ctrl+C to stop.');

	const stop = (signal: string) => {
		console.log(`\n${signal}: stopping emulator`);
		void emulator.close().then(() => process.exit(0));
	};
	process.once('SIGINT', () => stop('SIGINT'));
	process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
	console.error('emulator failed to start:', error);
	process.exit(1);
});
