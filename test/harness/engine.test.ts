/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/node-connection-type-literal, @n8n/community-nodes/node-usable-as-tool, no-console -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';

import {
	activeExpressionEngine,
	loadPackage,
	n8nWorkflow,
	runNode,
	runWorkflow,
	type LoadedPackage,
} from './index';
import {
	FIXTURE_NODE_TYPE,
	VALID_TOKEN,
	loadFixturePackage,
	startEchoServer,
	type EchoServer,
} from './fixtures';

let server: EchoServer;
let pkg: LoadedPackage;
let credentials: { harnessFixtureApi: { baseUrl: string; token: string } };

beforeAll(async () => {
	server = await startEchoServer();
	pkg = loadFixturePackage();
	credentials = { harnessFixtureApi: { baseUrl: server.baseUrl, token: VALID_TOKEN } };
});

afterAll(async () => {
	await server?.close();
});

beforeEach(() => {
	server.requests.length = 0;
});

const echoRequests = () => server.requests.filter((r) => r.path === '/echo');

describe('runNode through WorkflowExecute', () => {
	test('generic authenticate expression builds the auth header; parameter expressions run per item', async () => {
		const result = await runNode({
			node: { type: 'harnessFixture', parameters: { label: '=item-{{ $json.n * 10 }}' } },
			items: [{ n: 1 }, { n: 2 }, { n: 3 }],
			credentials,
			package: pkg,
		});

		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(activeExpressionEngine()).toBe('vm');

		const seen = echoRequests();
		expect(seen).toHaveLength(3);
		for (const request of seen) {
			expect(request.headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
			// property default applied by getDecrypted, sent by the generic authenticate
			expect(request.headers['x-api-version']).toBe('v1');
		}
		expect(seen.map((r) => r.body)).toEqual([
			{ n: 1, label: 'item-10' },
			{ n: 2, label: 'item-20' },
			{ n: 3, label: 'item-30' },
		]);
		expect(result.items.map((item) => item.json.label)).toEqual(['item-10', 'item-20', 'item-30']);
		expect(result.items[0].json.authorization).toBe(`Bearer ${VALID_TOKEN}`);
	});

	test('a node error fails the run and keeps the NodeApiError instance', async () => {
		const result = await runNode({
			node: { type: FIXTURE_NODE_TYPE, parameters: {} },
			items: [{ n: 1 }, { n: -5 }, { n: 3 }],
			credentials,
			package: pkg,
		});

		expect(result.run.status).toBe('error');
		const error = result.run.error;
		expect(error).toBeInstanceOf(n8nWorkflow.NodeApiError);
		expect(error).toBe(result.error);
		const apiError = error as InstanceType<typeof n8nWorkflow.NodeApiError>;
		expect(apiError.name).toBe('NodeApiError');
		expect(apiError.httpCode).toBe('422');
		expect(apiError.context.itemIndex).toBe(1);
		expect(`${apiError.message} ${apiError.description}`).toContain('n must be >= 0, got -5');
		// the engine stops at the failing item
		expect(echoRequests()).toHaveLength(2);
		expect(result.items).toEqual([]);
	});

	test('continueOnFail puts { error } on the regular output and the run goes on', async () => {
		const result = await runWorkflow({
			package: pkg,
			credentials,
			workflow: {
				nodes: [
					{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
					{
						name: 'Fixture',
						type: FIXTURE_NODE_TYPE,
						parameters: {},
						continueOnFail: true,
						credentials: { harnessFixtureApi: { id: '1', name: 'Fixture account' } },
					},
					{ name: 'After', type: 'n8n-nodes-base.noOp', parameters: {} },
				],
				connections: {
					Start: { main: [[{ node: 'Fixture', type: 'main', index: 0 }]] },
					Fixture: { main: [[{ node: 'After', type: 'main', index: 0 }]] },
				},
			},
			stubOutputs: { Start: [{ n: 1 }, { n: -1 }, { n: 3 }] },
		});

		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		expect(result.executionOrder).toEqual(['Start', 'Fixture', 'After']);
		const fixture = result.nodes.Fixture;
		expect(fixture.outputs).toHaveLength(1);
		expect(fixture.items.map((item) => item.json.n)).toEqual([1, undefined, 3]);
		expect(fixture.items[1].json.error).toEqual(expect.any(String));
		expect(fixture.items[1].json).toEqual({ error: fixture.items[1].json.error });
		expect(result.nodes.After.items).toHaveLength(3);
	});

	test("onError 'continueErrorOutput' routes the failed item to output 1", async () => {
		const result = await runNode({
			node: { type: 'CUSTOM.harnessFixture', parameters: {}, onError: 'continueErrorOutput' },
			items: [{ n: 1 }, { n: -1 }, { n: 3 }],
			credentials,
			package: pkg,
		});

		expect(result.run.error).toBeUndefined();
		expect(result.outputs).toHaveLength(2);
		const [success, failed] = result.outputs;
		expect(success.map((item) => item.json.n)).toEqual([1, 3]);
		expect(success.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(failed).toHaveLength(1);
		// the engine merges the paired input item into the error item
		expect(failed[0].json).toMatchObject({ n: -1, error: expect.any(String) });
		expect(failed[0].pairedItem).toEqual({ item: 1 });
	});

	test('pairedItem: output item i points at input item i', async () => {
		const items = Array.from({ length: 25 }, (_, n) => ({ n }));
		const result = await runNode({
			node: { type: FIXTURE_NODE_TYPE, parameters: { label: '={{ $json.n }}' } },
			items,
			credentials,
			package: pkg,
		});

		expect(result.items).toHaveLength(25);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.n).toBe(i);
			// a whole-value expression keeps its type, as in n8n
			expect(item.json.label).toBe(i);
		});
	});
});

describe('workflow JSON with nodes from other packages', () => {
	test('a manualTrigger → Set → package node workflow runs with stub outputs', async () => {
		const workflow = {
			name: 'Manual',
			nodes: [
				{
					id: 'a1',
					name: "When clicking 'Execute workflow'",
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'a2',
					name: 'Edit Fields',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: { assignments: { assignments: [] } },
				},
				{
					id: 'a3',
					name: 'Fixture',
					type: FIXTURE_NODE_TYPE,
					typeVersion: 1,
					position: [400, 0],
					parameters: { label: "={{ $('Edit Fields').item.json.who }}" },
					credentials: { harnessFixtureApi: { id: 'cred-1', name: 'Fixture account' } },
				},
				{
					id: 'a4',
					name: 'Sticky Note',
					type: 'n8n-nodes-base.stickyNote',
					typeVersion: 1,
					position: [0, 300],
					parameters: { content: 'ignored' },
				},
			],
			connections: {
				"When clicking 'Execute workflow'": {
					main: [[{ node: 'Edit Fields', type: 'main', index: 0 }]],
				},
				'Edit Fields': { main: [[{ node: 'Fixture', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};

		const result = await runWorkflow({
			workflow,
			credentials,
			package: pkg,
			stubOutputs: {
				'Edit Fields': [
					{ n: 7, who: 'ada' },
					{ n: 8, who: 'grace' },
				],
			},
		});

		expect(result.error).toBeUndefined();
		expect(result.executionOrder).toEqual(["When clicking 'Execute workflow'", 'Edit Fields', 'Fixture']);
		expect(result.nodes["When clicking 'Execute workflow'"].items).toEqual([{ json: {}, pairedItem: { item: 0 } }]);
		expect(result.nodes.Fixture.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ n: 7, label: 'ada' }),
			expect.objectContaining({ n: 8, label: 'grace' }),
		]);
		// the caller's JSON is not mutated
		expect(workflow.nodes[2].parameters).toEqual({ label: "={{ $('Edit Fields').item.json.who }}" });
	});

	test('a formTrigger feeding a package node runs with stub outputs', async () => {
		const result = await runWorkflow({
			package: pkg,
			credentials,
			workflow: {
				nodes: [
					{
						name: 'On form submission',
						type: 'n8n-nodes-base.formTrigger',
						typeVersion: 2.2,
						parameters: { formTitle: 'Sign up', formFields: { values: [{ fieldLabel: 'n' }] } },
						webhookId: 'b7c5f3f0-0000-4000-8000-000000000000',
					},
					{
						name: 'Fixture',
						type: 'harnessFixture',
						parameters: { label: '=form {{ $json.n }}' },
						credentials: { harnessFixtureApi: { id: 'x', name: 'x' } },
					},
				],
				connections: {
					'On form submission': { main: [[{ node: 'Fixture', type: 'main', index: 0 }]] },
				},
			},
			stubOutputs: { 'On form submission': [{ n: 42, submittedAt: '2025-01-01T00:00:00.000Z' }] },
		});

		expect(result.error).toBeUndefined();
		expect(result.nodes.Fixture.items).toHaveLength(1);
		expect(result.nodes.Fixture.items[0].json).toMatchObject({ n: 42, label: 'form 42' });
		expect(echoRequests()[0].headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
	});
});

describe('engine behaviour the harness passes through', () => {
	test('pin data replaces a node run, as in the editor', async () => {
		const result = await runWorkflow({
			package: pkg,
			credentials,
			workflow: {
				nodes: [
					{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
					{ name: 'Fixture', type: FIXTURE_NODE_TYPE, parameters: {} },
				],
				connections: { Start: { main: [[{ node: 'Fixture', type: 'main', index: 0 }]] } },
				pinData: { Fixture: [{ json: { pinned: true } }] },
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.nodes.Fixture.items.map((item) => item.json)).toEqual([{ pinned: true }]);
		expect(echoRequests()).toHaveLength(0);
	});

	test('a missing required parameter fails the run before it starts (WorkflowHasIssuesError)', async () => {
		class NeedsParameter implements INodeType {
			description: INodeTypeDescription = {
				displayName: 'Needs Parameter',
				name: 'needsParameter',
				group: ['transform'],
				version: 1,
				description: '',
				defaults: { name: 'Needs Parameter' },
				inputs: ['main'],
				outputs: ['main'],
				properties: [{ displayName: 'To', name: 'to', type: 'string', required: true, default: '' }],
			};

			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				throw new n8nWorkflow.NodeOperationError(this.getNode(), 'must not run');
			}
		}
		const result = await runNode({
			node: { type: 'needsParameter', parameters: {} },
			items: [{ n: 1 }],
			credentials: {},
			package: loadPackage({ allowMissing: true, nodes: [new NeedsParameter()] }),
		});
		expect(result.run.status).toBe('error');
		expect(result.error).toBe(result.run.error);
		expect(result.error?.name).toBe('WorkflowHasIssuesError');
		expect(result.runs).toEqual([]);
	});

	test('a NodeOperationError keeps its class and item index', async () => {
		class Fails implements INodeType {
			description: INodeTypeDescription = {
				displayName: 'Fails',
				name: 'fails',
				group: ['transform'],
				version: [1, 2],
				description: '',
				defaults: { name: 'Fails' },
				inputs: ['main'],
				outputs: ['main'],
				properties: [],
			};

			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				throw new n8nWorkflow.NodeOperationError(this.getNode(), 'Bad phone number', {
					itemIndex: 0,
					description: 'Use E.164',
				});
			}
		}
		const result = await runNode({
			node: { type: 'fails', parameters: {} },
			items: [{ n: 1 }],
			credentials: {},
			package: loadPackage({ allowMissing: true, nodes: [new Fails()] }),
		});
		expect(result.error).toBeInstanceOf(n8nWorkflow.NodeOperationError);
		expect(result.error).toMatchObject({ message: 'Bad phone number', description: 'Use E.164' });
		expect(result.run.data.data.resultData.lastNodeExecuted).toBe('Fails');
		// typeVersion defaults to the newest version
		expect((result.error as InstanceType<typeof n8nWorkflow.NodeOperationError>).node.typeVersion).toBe(2);
	});
});

describe('harness plumbing', () => {
	test('a credential that was not given fails the node with a clear error', async () => {
		const result = await runNode({
			node: { type: FIXTURE_NODE_TYPE, parameters: {}, credentials: ['harnessFixtureApi'] },
			items: [{ n: 1 }],
			credentials: {},
			package: pkg,
		});
		expect(result.error?.message).toMatch(/does not exist for type "harnessFixtureApi"/);
		expect(result.run.status).toBe('error');
	});

	test('loadPackage without allowMissing asks for a build when dist files are missing', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'harness-pkg-'));
		try {
			writeFileSync(
				path.join(dir, 'package.json'),
				JSON.stringify({
					name: 'n8n-nodes-example',
					version: '1.0.0',
					n8n: { nodes: ['dist/nodes/X/X.node.js'], credentials: [] },
				}),
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
		expect(pkg.resolveNodeTypeName('harnessFixture')).toBe(FIXTURE_NODE_TYPE);
		expect(pkg.resolveNodeTypeName('CUSTOM.harnessFixture')).toBe(FIXTURE_NODE_TYPE);
		expect(pkg.resolveNodeTypeName(FIXTURE_NODE_TYPE)).toBe(FIXTURE_NODE_TYPE);
		expect(pkg.resolveNodeTypeName('n8n-nodes-base.set')).toBeUndefined();
		expect(pkg.getSupportedNodes('harnessFixtureApi')).toEqual([FIXTURE_NODE_TYPE]);
	});

	test('bulk: 2,000 items through one node in one run (legacy expression engine for speed)', async () => {
		const items = Array.from({ length: 2000 }, (_, n) => ({ n }));
		const started = Date.now();
		const result = await runNode({
			node: { type: FIXTURE_NODE_TYPE, parameters: { label: '={{ $json.n }}' } },
			items,
			credentials,
			package: pkg,
			expressionEngine: 'legacy',
		});
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2000);
		expect(result.items[1999].pairedItem).toEqual({ item: 1999 });
		expect(result.items[1999].json.label).toBe(1999);
		expect(echoRequests()).toHaveLength(2000);
		// the configured engine is back after the run
		expect(activeExpressionEngine()).toBe('vm');
		console.log(`bulk: 2000 items in ${elapsed} ms`);
	});
});
