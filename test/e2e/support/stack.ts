/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The whole e2e stack in one call, shared by the vitest global setup and `npm run dev`:
 * emulator + n8n (with the package and the three credentials) + owner + login.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../emulator';
import {
	freePort,
	importCredentials,
	locateN8n,
	n8nEnv,
	startN8n,
	type CredentialImport,
	type N8nServer,
} from './n8n';
import { DEFAULT_OWNER, N8nRest, type Owner } from './rest';

export interface CredentialRef {
	id: string;
	name: string;
}

export interface StackCredentials {
	messagingBearerApi: CredentialRef;
	messagingAuthorizationKeyApi: CredentialRef;
	messagingXApiKeyApi: CredentialRef;
}

/** Fixed ids, so workflow JSON (tests, examples) can point at them. */
export const CREDENTIAL_REFS: StackCredentials = {
	messagingBearerApi: { id: 'msgBearerE2e0001', name: 'Messaging Bearer (emulator)' },
	messagingAuthorizationKeyApi: { id: 'msgDashKeyE2e001', name: 'Messaging Dashboard Key (emulator)' },
	messagingXApiKeyApi: { id: 'msgXApiKeyE2e001', name: 'Messaging X-API-Key (emulator)' },
};

export function credentialImports(emulator: Pick<Emulator, 'credentials'>): CredentialImport[] {
	return (Object.keys(CREDENTIAL_REFS) as Array<keyof StackCredentials>).map((type) => ({
		id: CREDENTIAL_REFS[type].id,
		name: CREDENTIAL_REFS[type].name,
		type,
		data: { ...emulator.credentials[type] },
	}));
}

/** Node and credential types the package must add; a missing one means it did not load. */
export const EXPECTED_TYPES = {
	nodes: ['n8n-nodes-messaging.messaging', 'n8n-nodes-messaging.sandboxPlants'],
	credentials: ['messagingBearerApi', 'messagingAuthorizationKeyApi', 'messagingXApiKeyApi'],
};

/** Which of EXPECTED_TYPES the running server lacks (empty when the package loaded). */
export async function missingPackageTypes(rest: N8nRest): Promise<string[]> {
	const nodes = new Set((await rest.request<Array<{ name: string }>>('GET', '/types/nodes.json')).map((t) => t.name));
	const credentials = new Set((await rest.request<Array<{ name: string }>>('GET', '/types/credentials.json')).map((t) => t.name));
	return [
		...EXPECTED_TYPES.nodes.filter((name) => !nodes.has(name)).map((name) => `node type ${name}`),
		...EXPECTED_TYPES.credentials.filter((name) => !credentials.has(name)).map((name) => `credential type ${name}`),
	];
}

export interface StackOptions {
	/** Folder that becomes N8N_USER_FOLDER (wiped first when fresh is true). */
	userFolder: string;
	fresh: boolean;
	/** Puts the package into the user folder before n8n starts. */
	installPackage(userFolder: string): Promise<void>;
	logFile: string;
	echo?: boolean;
	owner?: Owner;
	emulatorPort?: number;
	n8nPort?: number;
	extraEnv?: Record<string, string>;
	log?: (line: string) => void;
}

export interface Stack {
	emulator: Emulator;
	n8n: N8nServer;
	rest: N8nRest;
	installDir: string;
	owner: Owner;
	credentials: StackCredentials;
	stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
	const log = options.log ?? (() => {});
	const owner = options.owner ?? DEFAULT_OWNER;
	const started = Date.now();
	const since = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

	const installDir = await locateN8n();
	log(`n8n install: ${installDir} (${since()})`);

	if (options.fresh) rmSync(options.userFolder, { recursive: true, force: true });
	mkdirSync(options.userFolder, { recursive: true });
	await options.installPackage(options.userFolder);
	log(`package installed into ${join(options.userFolder, '.n8n', 'nodes', 'node_modules')} (${since()})`);

	const emulator = await startEmulator({ port: options.emulatorPort ?? 0 });
	log(`emulator: ${emulator.url} (${since()})`);
	let n8n: N8nServer | undefined;
	try {
		const port = options.n8nPort ?? (await freePort());
		const env = n8nEnv({ userFolder: options.userFolder, port, brokerPort: await freePort(), extra: options.extraEnv });
		await importCredentials(installDir, env, credentialImports(emulator), join(options.userFolder, 'import'));
		log(`credentials imported (${since()})`);
		n8n = await startN8n({ installDir, env, port, logFile: options.logFile, echo: options.echo });
		log(`n8n ready at ${n8n.baseUrl} (${since()})`);

		const rest = new N8nRest(n8n.baseUrl, installDir);
		await rest.setupOwner(owner);
		await rest.login(owner);
		log(`owner ${owner.email} logged in (${since()})`);

		const server = n8n;
		return {
			emulator,
			n8n: server,
			rest,
			installDir,
			owner,
			credentials: CREDENTIAL_REFS,
			stop: async () => {
				await server.stop().catch(() => {});
				await emulator.close().catch(() => {});
			},
		};
	} catch (error) {
		await n8n?.stop().catch(() => {});
		await emulator.close().catch(() => {});
		throw error;
	}
}
