/* eslint-disable @n8n/community-nodes/no-restricted-imports -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * What the harness adds of its own, checked on this package: everything else it does (the
 * engine, credentials, editor methods, credential tests) is exercised by the product's tests
 * in test/nodes, and a harness that broke it would fail them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { loadPackage, runNode } from './index';

describe('harness plumbing', () => {
	test('a credential that was not given fails the node with a clear error', async () => {
		const result = await runNode({
			node: { type: 'messaging', parameters: { resource: 'template', operation: 'getAll' }, credentials: ['messagingBearerApi'] },
			items: [{}],
			credentials: {},
		});
		expect(result.error?.message).toMatch(/does not exist for type "messagingBearerApi"/);
		expect(result.run.status).toBe('error');
	});

	test('loadPackage without allowMissing asks for a build when dist files are missing', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'harness-pkg-'));
		try {
			writeFileSync(
				path.join(dir, 'package.json'),
				JSON.stringify({ name: 'n8n-nodes-example', version: '1.0.0', n8n: { nodes: ['dist/nodes/X/X.node.js'], credentials: [] } }),
			);
			expect(() => loadPackage({ packageDir: dir })).toThrow(/npm run build/);
			const tolerant = loadPackage({ packageDir: dir, allowMissing: true });
			expect(tolerant.missing).toEqual(['dist/nodes/X/X.node.js']);
			expect(tolerant.nodeTypeNames).toEqual([]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('node type names resolve with the package prefix, CUSTOM. and bare', () => {
		const pkg = loadPackage();
		for (const name of ['messaging', 'CUSTOM.messaging', 'n8n-nodes-messaging.messaging']) {
			expect(pkg.resolveNodeTypeName(name)).toBe('n8n-nodes-messaging.messaging');
		}
		expect(pkg.resolveNodeTypeName('n8n-nodes-base.set')).toBeUndefined();
	});
});
