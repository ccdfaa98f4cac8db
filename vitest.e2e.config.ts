import { defineConfig } from 'vitest/config';

/**
 * End-to-end tests against a real n8n 2.41 server (`npm run test:e2e`). The global setup
 * packs and installs the package, starts the service emulator and n8n, and stops both
 * afterwards. One worker, one file at a time: the tests share that server and emulator.
 */
export default defineConfig({
	test: {
		include: ['test/e2e/**/*.test.ts'],
		exclude: ['node_modules/**', 'dist/**', 'test/e2e/.work/**'],
		globalSetup: ['test/e2e/globalSetup.ts'],
		pool: 'forks',
		maxWorkers: 1,
		fileParallelism: false,
		sequence: { concurrent: false },
		testTimeout: 120_000,
		hookTimeout: 180_000,
		teardownTimeout: 60_000,
		reporters: ['default'],
	},
});
