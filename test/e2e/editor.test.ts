/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * The editor, in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core;
 * install it with scripts/e2e-install-chromium.sh): open a workflow whose Messaging node is
 * on Message → Send Template with its credential preselected, open the Template list (the
 * emulator's templates appear, each with its text, the ones that cannot be sent marked), pick
 * the 2-variable appointment reminder (Body 1 and Body 2 appear, each label with the words
 * around its placeholder), fill them, press "Execute step", and check what the service received.
 * Screenshots go to test/e2e/.work/screenshots/ (git-ignored); with E2E_UPDATE_SCREENSHOTS=1
 * they replace the README's docs/editor-*.png.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RequestRecord } from '../emulator/types';
import { manualTrigger, MESSAGING, chain, useE2e } from './support/harness';
import { REPO_ROOT } from './support/n8n';
import { chromiumPath } from './support/prerequisites';
import type { WorkflowNode } from './support/rest';

const e2e = useE2e();
const { ctx } = e2e;
const CHROMIUM = chromiumPath();
// A normal run must leave the work tree clean: the tracked pictures change only when asked.
const SCREENSHOTS = process.env.E2E_UPDATE_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs') : join(ctx.workDir, 'screenshots');
const APPOINTMENT_REMINDER = '3f1c2a9e-7b4d-4e8a-9c61-2d5e8f0a1b01';
const TEMPLATE_NAMES = ['appointment_reminder', 'order_confirmation', 'welcome_message', 'recordatorio_pago', 'spring_sale', 'feature_announcement'];

let context: BrowserContext | undefined;
let userDataDir: string | undefined;

beforeAll(async () => {
	if (!existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: run bash scripts/e2e-install-chromium.sh (Debian chromium + fonts-liberation), or set E2E_CHROMIUM`);
	}
	userDataDir = mkdtempSync(join(tmpdir(), 'n8n-nodes-messaging-chromium-'));
	context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
	});
	const [name, value] = ctx.cookie.split('=');
	await context.addCookies([{ name, value, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' }]);
	mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
	await context?.close().catch(() => {});
	if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function templateSends(): Promise<RequestRecord[]> {
	return (await e2e.emulator.apiRequests()).filter((r) => r.api === 'templateSend');
}

async function shoot(page: Page, file: string): Promise<void> {
	await page.mouse.move(5, 895); // no hover effects in the picture
	await page.waitForTimeout(300);
	await page.screenshot({ path: join(SCREENSHOTS, file) });
}

test('Send Template in the editor: template list, variables, Execute step', async () => {
	await e2e.emulator.reset();
	// A new workflow per run: n8n gives the write lock of a workflow to one editor session.
	const trigger = manualTrigger();
	const messaging: WorkflowNode = {
		name: 'Messaging',
		type: MESSAGING,
		typeVersion: 1,
		position: [300, 0],
		parameters: {
			resource: 'message',
			operation: 'sendTemplate',
			phoneNumber: '+14155550123',
			template: { __rl: true, mode: 'list', value: '' },
		},
		credentials: { messagingBearerApi: ctx.credentials.messagingBearerApi },
	};
	const workflow = await e2e.rest.createWorkflow({
		name: 'Appointment reminder (editor e2e)',
		nodes: [trigger, messaging],
		connections: chain([trigger, messaging]),
		settings: { executionOrder: 'v1' },
	});

	const page = await context!.newPage();
	const consoleErrors: string[] = [];
	page.on('pageerror', (error) => consoleErrors.push(error.message));
	try {
		await page.goto(`${ctx.baseUrl}/workflow/${workflow.id}`);
		const node = page.locator('[data-test-id="canvas-node"][data-node-name="Messaging"]');
		await node.waitFor({ timeout: 60_000 });
		// The canvas says what the node does, in words.
		await expect.poll(async () => await node.innerText()).toContain('Send Template: Message');
		await node.dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.waitFor();

		// The credential is preselected, and only the Bearer one is asked for (operation sendTemplate).
		const credentialSelect = ndv.locator('[data-test-id="node-credentials-select"]');
		await expect.poll(async () => await credentialSelect.locator('input').first().inputValue().catch(() => '')).toBe(
			ctx.credentials.messagingBearerApi.name,
		);
		expect(await credentialSelect.count()).toBe(1);
		expect(await ndv.locator('[data-test-id="credentials-label"]').innerText()).toMatch(/Messaging Bearer Token API/);
		// n8n hides a node's parameters that it takes for the credential's auth field; the
		// Resource and Operation selectors must stay, showing the saved choice.
		const resourceSelect = ndv.locator('[data-test-id="parameter-input-resource"] input').first();
		const operationSelect = ndv.locator('[data-test-id="parameter-input-operation"] input').first();
		await expect.poll(async () => await resourceSelect.isVisible()).toBe(true);
		expect(await resourceSelect.inputValue()).toBe('Message');
		expect(await operationSelect.isVisible()).toBe(true);
		expect(await operationSelect.inputValue()).toBe('Send Template');

		// The template list comes from the emulator through the node's listSearch method.
		const rlcInput = ndv.locator('[data-test-id="resource-locator-template"] [data-test-id="rlc-input"]');
		await expect.poll(async () => await rlcInput.isEnabled(), { timeout: 20_000 }).toBe(true);
		await rlcInput.click();
		const items = page.locator('[data-test-id="rlc-item"]');
		await items.first().waitFor({ timeout: 20_000 });
		const names = await items.allInnerTexts();
		for (const template of TEMPLATE_NAMES) expect(names.join('\n')).toContain(template);
		// Each entry shows the template's text, placeholders as {1}, {2}; approved ones first,
		// the others marked as not sendable.
		expect(names).toContain('appointment_reminder (en) — Hello {1}, this is a reminder of your appointment on {2}.');
		expect(names).toContain('spring_sale (en) — REJECTED, cannot be sent: Spring sale! Get {1} off everything this week.');
		expect(names.find((name) => name.startsWith('feature_announcement'))).toMatch(/^feature_announcement \(en_US\) — PENDING, cannot be sent yet: Hi \{1\}/);
		const firstUnsendable = names.findIndex((name) => /cannot be sent/.test(name));
		expect(firstUnsendable).toBe(4);
		expect(names.slice(firstUnsendable).every((name) => /cannot be sent/.test(name))).toBe(true);
		await expect.poll(async () => await items.filter({ hasText: 'appointment_reminder' }).isVisible()).toBe(true);
		await shoot(page, 'editor-template-list.png');

		// Picking the reminder loads its variables (resource mapper): Body 1, Body 2.
		await items.filter({ hasText: 'appointment_reminder' }).click();
		const body1 = ndv.locator('[data-test-id="parameter-input-body1"]').locator('input, textarea').first();
		const body2 = ndv.locator('[data-test-id="parameter-input-body2"]').locator('input, textarea').first();
		await body1.waitFor({ timeout: 20_000 });
		await body2.waitFor();
		const mapper = ndv.locator('[data-test-id="resource-mapper-container"]');
		// Each variable's label names it and says where it goes in the template's text, whole: n8n
		// cuts a label that does not fit its column (and shows nothing more on hover).
		const labels = (
			await mapper.locator('[data-test-id="input-label"] label').evaluateAll((elements) =>
				elements.map((label) => ({
					// The label's words; the Fixed/Expression switch beside them is not part of it.
					text: (label.textContent ?? '').replace(/\s+/g, ' ').replace(/ ?Fixed ?Expression$/, '').trim(),
					cut: [label, ...Array.from(label.querySelectorAll('*'))].some((element) => element.scrollWidth > element.clientWidth + 1),
				})),
			)
		).filter(({ text }) => text !== 'Fixed' && text !== 'Expression'); // n8n 1.x: the switch's options are labels of their own
		console.log(`variable labels: ${JSON.stringify(labels)}`);
		expect(labels.map(({ text }) => text)).toEqual(['Variables', 'Body 1: Hello {1}, this is…', 'Body 2: …on {2}.']);
		expect(labels.filter(({ cut }) => cut)).toEqual([]);
		expect(await ndv.locator('[data-test-id="parameter-input-media"]').count()).toBe(0);

		// Executed with Body 2 empty: what the user is told names the field as its label reads.
		await body1.fill('Ada Lovelace');
		await page.waitForTimeout(300);
		await ndv.locator('[data-test-id="node-execute-button"]').click();
		const told = page.locator('.el-notification, [data-test-id="output-panel"]');
		await expect
			.poll(async () => (await told.allInnerTexts()).join('\n'), { timeout: 30_000 })
			.toMatch(/Body 2: …on \{2\}\./);
		console.log(`empty variable: ${(await told.allInnerTexts()).join(' | ').replace(/\s+/g, ' ').slice(0, 400)}`);
		expect(await templateSends()).toEqual([]);
		await shoot(page, 'editor-empty-variable.png');
		await page.locator('.el-notification .el-notification__closeBtn').evaluateAll((buttons) => buttons.forEach((button) => (button as unknown as { click(): void }).click()));

		await body2.fill('Friday 10:30');
		await page.waitForTimeout(300);
		await shoot(page, 'editor-template-variables.png');

		// Execute step: the node runs on the server and the service gets the template send.
		await ndv.locator('[data-test-id="node-execute-button"]').click();
		const output = ndv.locator('[data-test-id="output-panel"]');
		await output.locator('[data-test-id="node-run-status-success"]').waitFor({ timeout: 60_000 });
		await expect.poll(async () => (await templateSends()).length, { timeout: 20_000 }).toBe(1);
		const [send] = await templateSends();
		expect(send.headers.authorization).toBe(`Bearer ${ctx.tokens.bearer}`);
		expect(send.body).toEqual({
			template: APPOINTMENT_REMINDER,
			variables: { body1: 'Ada Lovelace', body2: 'Friday 10:30' },
			phone_number: '+14155550123',
		});
		expect(send.status).toBe(200);

		await output.locator('[data-test-id="radio-button-json"]').click();
		await expect.poll(async () => await output.innerText()).toMatch(/wamid\./);
		const shown = (await output.innerText()).replace(/\s+/g, ' ');
		expect(shown).toMatch(/"success": ?true/);
		expect(shown).toContain(APPOINTMENT_REMINDER);
		expect(shown).not.toContain(ctx.tokens.bearer);
		// Hide the "Node executed successfully" toast, which would cover the output.
		await page
			.locator('.el-notification, [role="alert"]')
			.evaluateAll((nodes) => nodes.forEach((n) => ((n as unknown as { style: { display: string } }).style.display = 'none')));
		await shoot(page, 'editor-node-output.png');
		expect(consoleErrors.filter((m) => /messaging/i.test(m))).toEqual([]);
	} catch (error) {
		await page.screenshot({ path: join(ctx.workDir, 'editor-failure.png') }).catch(() => {});
		throw error;
	} finally {
		await page.close();
	}
});
