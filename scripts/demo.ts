/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: a developer script, run by Node outside n8n (README: Lint) */
/**
 * `npm run demo`: builds the package if needed, starts the service emulator on 127.0.0.1,
 * runs the example workflows through n8n's real execution engine (n8n-core), and prints
 * every request the emulator received and every item the Messaging nodes output.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { startEmulator } from '../test/emulator';
import type { Emulator } from '../test/emulator';
import { configureHarness, runWorkflow } from '../test/harness';

const root = join(__dirname, '..');

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
	}
	return newest;
}

function buildIfNeeded(): void {
	const built = join(root, 'dist', 'nodes', 'Messaging', 'Messaging.node.js');
	const sources = Math.max(newestMtime(join(root, 'nodes')), newestMtime(join(root, 'credentials')), newestMtime(join(root, 'icons')));
	if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
	console.log('Building the package (npm run build)...');
	const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
	if (result.status !== 0) process.exit(result.status ?? 1);
}

// What the triggers and the Code node of each example would emit in a real n8n.
const EXAMPLES: Array<{ file: string; story: string; inputs: Record<string, IDataObject[]> }> = [
	{
		file: 'form-submission-template-confirmation.json',
		story: 'A visitor books an appointment in an n8n form; the Messaging node sends the template confirmation.',
		inputs: { 'Booking Form': [{ Name: 'Ada Lovelace', Phone: '+44 20 7946 0958', Appointment: 'Friday 10:30' }] },
	},
	{
		file: 'crm-webhook-direct-message-attachment.json',
		story: 'The CRM posts "deal won" to a webhook; the Messaging node sends a message with the invoice attached.',
		inputs: {
			'CRM Webhook': [
				{
					body: {
						contact: { firstName: 'Grace', phone: '+1 (415) 555-0123' },
						deal: { id: 'D-1001', invoiceUrl: 'https://files.example.com/invoices/D-1001.pdf' },
					},
				},
			],
		},
	},
	{
		file: 'daily-schedule-appointment-reminders.json',
		story:
			"Every evening, tomorrow's appointments get a reminder template. One contact has no usable phone number: that item goes to the error output with the reason, and the others are sent.",
		inputs: {
			'Every Day at 17:00': [{}],
			"Get Tomorrow's Appointments": [
				{ name: 'Ada Lovelace', phone: '+44 20 7946 0958', time: 'tomorrow 09:00' },
				{ name: 'Grace Hopper', phone: '+1 (415) 555-0123', time: 'tomorrow 11:30' },
				{ name: 'Walk-in Guest', phone: 'ask at reception', time: 'tomorrow 13:00' },
				{ name: 'Alan Turing', phone: '0044 20 7946 0999', time: 'tomorrow 15:15' },
			],
		},
	},
];

/** Shows which header carried the secret without showing the secret. */
function authHeader(headers: IncomingHttpHeaders): string {
	if (headers['x-api-key']) return 'X-API-Key: ***';
	const authorization = headers.authorization;
	if (!authorization) return '(no auth header)';
	return authorization.startsWith('Bearer ') ? 'Authorization: Bearer ***' : 'Authorization: *** (raw key)';
}

function printRequests(emulator: Emulator, from: number): void {
	for (const request of emulator.requests.slice(from)) {
		console.log(`    → ${request.method} ${request.path}  [${authHeader(request.headers)}]  ${request.status} ${request.outcome}`);
		// A GET has no body: nothing to show.
		if (request.body !== undefined) console.log(`      ${JSON.stringify(request.body)}`);
	}
}

async function main(): Promise<void> {
	buildIfNeeded();
	const emulator = await startEmulator();
	console.log(`Service emulator on ${emulator.url}\n`);
	configureHarness({ expressionEngine: 'vm' });
	let failed = false;
	try {
		for (const example of EXAMPLES) {
			const workflow = JSON.parse(readFileSync(join(root, 'examples', example.file), 'utf8'));
			console.log(`■ ${workflow.name}  (examples/${example.file})`);
			console.log(`  ${example.story}`);
			const before = emulator.requests.length;
			const run = await runWorkflow({ workflow, credentials: { ...emulator.credentials }, stubOutputs: example.inputs });
			console.log('  Requests the service received:');
			printRequests(emulator, before);
			for (const node of workflow.nodes.filter((n: { type: string }) => n.type.startsWith('n8n-nodes-messaging.'))) {
				const result = run.nodes[node.name];
				if (!result) continue;
				console.log(`  Output of "${node.name}":`);
				result.outputs.forEach((items, output) => {
					for (const item of items) {
						console.log(`    ${output === 1 ? '[error output] ' : ''}${JSON.stringify(item.json)}`);
					}
				});
			}
			if (run.error) {
				failed = true;
				console.log(`  The run failed: ${run.error.message}`);
			}
			console.log('');
		}
		const duplicates = emulator.duplicates();
		console.log(`Delivered: ${emulator.deliveries.length} messages, duplicates: ${duplicates.length}.`);
	} finally {
		await emulator.close();
	}
	process.exit(failed ? 1 : 0);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
