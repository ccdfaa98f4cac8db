import { createRequire } from 'node:module';

import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
	resolve: {
		// One n8n-workflow for tests, n8n-core and dist/: its CommonJS build. Otherwise vitest
		// loads the ESM build for test files and `instanceof NodeApiError` fails across the two.
		alias: [{ find: /^n8n-workflow$/, replacement: require.resolve('n8n-workflow') }],
	},
	test: {
		include: ['test/**/*.test.ts'],
		exclude: ['test/e2e/**', 'node_modules/**', 'dist/**'],
		// Engine tests start loopback servers; two cores, so keep workers few.
		pool: 'forks',
		maxWorkers: 2,
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});
