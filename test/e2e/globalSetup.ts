/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Global setup of `npm run test:e2e` (vitest.e2e.config.ts): packs the package, installs the
 * tarball where n8n's Community Nodes feature puts packages, starts the emulator (in this
 * process; n8n is a child process, so nothing blocks while n8n calls it), imports the three
 * credentials with `n8n import:credentials`, starts `n8n start`, creates the owner, logs in,
 * and hands the test files what they need through `provide`. The returned teardown stops n8n
 * and the emulator, also when tests failed; an exit hook kills n8n if this process dies.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { installTarball, packPackage, REPO_ROOT } from './support/n8n';
import { missingPackageTypes, startStack, type Stack, type StackCredentials } from './support/stack';
import type { Owner } from './support/rest';

export interface E2eContext {
	baseUrl: string;
	cookie: string;
	installDir: string;
	emulatorUrl: string;
	owner: Owner;
	credentials: StackCredentials;
	/** Credential data exactly as imported (secrets of the emulator, fake). */
	credentialData: Stack['emulator']['credentials'];
	tokens: Stack['emulator']['tokens'];
	workDir: string;
	n8nLog: string;
}

declare module 'vitest' {
	export interface ProvidedContext {
		e2e: E2eContext;
	}
}

export const WORK_DIR = join(REPO_ROOT, 'test', 'e2e', '.work');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	const started = Date.now();
	const log = (line: string) => console.log(`[e2e setup] ${line}`);
	mkdirSync(WORK_DIR, { recursive: true });
	const userFolder = join(WORK_DIR, 'n8n-user');
	const n8nLog = join(WORK_DIR, 'n8n.log');
	writeFileSync(n8nLog, '');

	log('packing the package (npm pack)');
	const tarball = await packPackage();
	log(`packed ${tarball}`);

	const stack = await startStack({
		userFolder,
		fresh: true,
		logFile: n8nLog,
		log,
		installPackage: async (folder) => {
			await installTarball(tarball, folder);
			rmSync(dirname(tarball), { recursive: true, force: true });
		},
	});
	log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s; n8n log: ${n8nLog}`);

	// Fail early and clearly when n8n did not load the package (every test would fail anyway).
	const missing = await missingPackageTypes(stack.rest).catch((error: Error) => [`(could not read the types: ${error.message})`]);
	if (missing.length > 0) {
		const logLines = stack.n8n.tail(400).split('\n').filter((line) => /n8n-nodes-messaging|package/i.test(line));
		await stack.stop();
		throw new Error(
			`n8n did not load the package n8n-nodes-messaging: missing ${missing.join(', ')}.\n` +
				`n8n log lines about it (${n8nLog}):\n${logLines.slice(-30).join('\n') || '(none)'}`,
		);
	}

	project.provide('e2e', {
		baseUrl: stack.n8n.baseUrl,
		cookie: stack.rest.authCookie,
		installDir: stack.installDir,
		emulatorUrl: stack.emulator.url,
		owner: stack.owner,
		credentials: stack.credentials,
		credentialData: stack.emulator.credentials,
		tokens: stack.emulator.tokens,
		workDir: WORK_DIR,
		n8nLog,
	});

	// n8n writes its web bundle into its user folder at every start (about 500 script files).
	// Nothing to debug from, and `npm run lint` lints the whole checkout (n8n-node's strict mode
	// fixes the ESLint config, so no folder can be ignored there): left here, it took lint from 13 s
	// to 90 s after an end-to-end run.
	const removeWebBundle = () => rmSync(join(userFolder, '.cache'), { recursive: true, force: true });
	const stopOnSignal = () =>
		void stack
			.stop()
			.then(removeWebBundle)
			.finally(() => process.exit(130));
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);

	return async () => {
		process.off('SIGINT', stopOnSignal);
		process.off('SIGTERM', stopOnSignal);
		await stack.stop();
		removeWebBundle();
		log('n8n and the emulator stopped');
	};
}
