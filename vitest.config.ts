import { defineConfig } from 'vitest/config';

export default defineConfig({
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
