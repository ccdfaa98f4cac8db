/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * `npm run test:e2e [args]`: checks the machine first (Chromium, room for the first n8n
 * install; support/prerequisites.ts), so a missing piece fails in a second with the command
 * that fixes it instead of after minutes of installing n8n; then
 * `vitest run -c vitest.e2e.config.ts [args]`, whose global setup packs the package (`npm pack`
 * builds it first). Extra arguments go to vitest (a file, `-t name`, ...).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { e2eProblems } from './support/prerequisites';

const root = join(__dirname, '..', '..');
const args = process.argv.slice(2);

const problems = e2eProblems(args);
if (problems.length > 0) {
	console.error(`test:e2e cannot run on this machine yet:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
	process.exit(1);
}

const vitest = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '-c', 'vitest.e2e.config.ts', ...args], {
	cwd: root,
	stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => vitest.kill(signal));
vitest.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
