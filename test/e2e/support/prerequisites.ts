/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * What `npm run test:e2e` needs from the machine, checked in a second before anything slow
 * (the first n8n install takes minutes): Chromium for the editor test and, while n8n is not
 * installed yet, room for it. Each problem names the command or setting that fixes it.
 */
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const EDITOR_TEST = join(REPO_ROOT, 'test', 'e2e', 'editor.test.ts');
/** n8n 2.41 with its dependencies takes about 3 GB; a little more for npm's cache. */
const N8N_INSTALL_BYTES = 4 * 1024 ** 3;

/** Chromium for the editor test: Debian's package unless E2E_CHROMIUM names another binary. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
	return env.E2E_CHROMIUM || '/usr/bin/chromium';
}

/** vitest options whose value is the next argument (so that value is not a file filter). */
const OPTIONS_WITH_VALUE = new Set(['-t', '--testNamePattern', '-c', '--config', '--reporter', '--project', '--shard', '--bail', '--retry', '--outputFile', '-r', '--root', '--dir', '--exclude']);

/**
 * Whether a vitest command line runs the editor test: it does unless file filters are given
 * and none of them matches its path (vitest filters are substrings of the file path).
 */
export function runsEditorTest(vitestArgs: readonly string[]): boolean {
	const filters: string[] = [];
	for (let i = 0; i < vitestArgs.length; i++) {
		const arg = vitestArgs[i];
		if (arg.startsWith('-')) {
			if (OPTIONS_WITH_VALUE.has(arg)) i++;
			continue;
		}
		filters.push(arg.replace(/^\.\//, ''));
	}
	return filters.length === 0 || filters.some((filter) => EDITOR_TEST.includes(filter));
}

/** The folder scripts/install-n8n.sh installs n8n into (its N8N_VERSION, N8N_INSTALL_DIR). */
export function n8nInstallDir(env: NodeJS.ProcessEnv = process.env): string {
	const script = readFileSync(join(REPO_ROOT, 'scripts', 'install-n8n.sh'), 'utf8');
	const version = /^N8N_VERSION="([^"]+)"/m.exec(script)?.[1];
	if (!version) throw new Error('scripts/install-n8n.sh no longer sets N8N_VERSION="..."');
	return env.N8N_INSTALL_DIR || join(env.HOME || homedir(), '.cache', 'n8n-nodes-messaging', `n8n-${version}`);
}

/** Free bytes on the file system that holds `path` (or would hold it, once created). */
function freeBytes(path: string): number {
	let existing = path;
	while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
	const stats = statfsSync(existing);
	return stats.bavail * stats.bsize;
}

/** Problems that would make the run fail, each with its fix; empty when all is well. */
export function e2eProblems(vitestArgs: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
	const problems: string[] = [];
	const chromium = chromiumPath(env);
	if (runsEditorTest(vitestArgs) && !existsSync(chromium)) {
		problems.push(
			env.E2E_CHROMIUM
				? `E2E_CHROMIUM=${chromium}: no such file. Point E2E_CHROMIUM at a Chromium binary, or unset it to use /usr/bin/chromium.`
				: `Chromium is missing (${chromium}), and the editor test drives it. Install Debian's chromium with:\n` +
						`    bash scripts/e2e-install-chromium.sh    (needs root or sudo)\n` +
						`  or set E2E_CHROMIUM to another Chromium binary, or run only other files, e.g. npm run test:e2e test/e2e/operations.test.ts`,
		);
	}
	const installDir = n8nInstallDir(env);
	if (!existsSync(join(installDir, '.complete'))) {
		const free = freeBytes(installDir);
		if (free < N8N_INSTALL_BYTES) {
			const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
			problems.push(
				`n8n is not installed yet and ${installDir} has ${gib(free)} GiB free; the install needs about ${gib(N8N_INSTALL_BYTES)} GiB. ` +
					'Free some space, or set N8N_INSTALL_DIR to a folder on a larger disk.',
			);
		}
	}
	return problems;
}
