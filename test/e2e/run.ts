/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Runs the end-to-end suite: `vitest run -c vitest.e2e.config.ts [args]`. It exists so the
 * `test:e2e` script can stay `npm run build && tsx test/e2e/run.ts`; calling vitest directly
 * with that config is the same thing. Extra arguments go to vitest (a file, `-t name`, ...).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', '-c', 'vitest.e2e.config.ts', ...process.argv.slice(2)], {
	cwd: root,
	stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
