import { describe, expect, it } from 'vitest';
import { e2eProblems, n8nInstallDir, runsEditorTest } from '../e2e/support/prerequisites';

describe('npm run test:e2e prerequisites', () => {
	it('needs Chromium only when the editor test is among the files run', () => {
		expect(runsEditorTest([])).toBe(true);
		expect(runsEditorTest(['editor'])).toBe(true);
		expect(runsEditorTest(['./test/e2e/editor.test.ts'])).toBe(true);
		expect(runsEditorTest(['test/e2e'])).toBe(true);
		expect(runsEditorTest(['test/e2e/operations.test.ts'])).toBe(false);
		// The value of -t is a test name, not a file filter.
		expect(runsEditorTest(['-t', 'editor', 'test/e2e/errors.test.ts'])).toBe(false);
	});

	it('names the fix when the Chromium binary is missing, and only when the editor test runs', () => {
		const env = { E2E_CHROMIUM: '/nonexistent/chromium', HOME: '/tmp' };
		const problems = e2eProblems([], env);
		expect(problems.filter((problem) => problem.includes('/nonexistent/chromium'))).toEqual([
			expect.stringContaining('Point E2E_CHROMIUM at a Chromium binary'),
		]);
		expect(e2eProblems(['test/e2e/operations.test.ts'], env).filter((problem) => problem.includes('chromium'))).toEqual([]);
	});

	it('looks for n8n where scripts/install-n8n.sh installs it', () => {
		expect(n8nInstallDir({ HOME: '/home/someone' })).toMatch(/^\/home\/someone\/\.cache\/n8n-nodes-messaging\/n8n-\d+\.\d+\.\d+$/);
		expect(n8nInstallDir({ HOME: '/home/someone', N8N_INSTALL_DIR: '/srv/n8n' })).toBe('/srv/n8n');
	});
});
