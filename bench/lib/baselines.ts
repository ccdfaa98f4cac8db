/* eslint-disable @n8n/community-nodes/node-connection-type-literal, @n8n/community-nodes/node-usable-as-tool -- not shipped: test code, run by Node outside n8n (README: Lint) */
/**
 * Two floors under any node that sends these messages in n8n, to tell the Messaging node's own
 * cost from n8n's (see bench/README.md):
 *  - expressions only: evaluates the same two parameters per item through n8n's getNodeParameter
 *    (`phone = {{ $json.phone }}`, `text = {{ $json.text }}`: the same isolated-vm evaluations,
 *    data proxies and schema checks) and nothing else: "the expressions the workflow contains";
 *  - minimal sender: the same, then per item one POST through n8n's httpRequestWithAuthentication
 *    with the messagingBearerApi credential, a fixed number in flight, nothing checked, no
 *    output: what n8n itself costs a node that sends these requests.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { loadPackage, runNode, type ExpressionEngine, type LoadedPackage } from '../../test/harness';
import type { BenchItem, RunOutcome } from './contenders';

class ExpressionsOnly implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Expressions Only',
		name: 'expressionsOnly',
		group: ['transform'],
		version: 1,
		description: 'Evaluates phone and text per item, nothing else',
		defaults: { name: 'Expressions Only' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Phone', name: 'phone', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		let evaluated = 0;
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			if (this.getNodeParameter('phone', itemIndex) !== '' && this.getNodeParameter('text', itemIndex) !== '') evaluated++;
		}
		return [[{ json: { evaluated } }]];
	}
}

class MinimalSender implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Minimal Sender',
		name: 'minimalSender',
		group: ['output'],
		version: 1,
		description: 'Evaluates phone and text per item and posts them, nothing else',
		defaults: { name: 'Minimal Sender' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'messagingBearerApi', required: true }],
		properties: [
			{ displayName: 'Phone', name: 'phone', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'In Flight', name: 'inFlight', type: 'number', default: 16 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const bodies = items.map((_, itemIndex) => ({ phone: this.getNodeParameter('phone', itemIndex), text: this.getNodeParameter('text', itemIndex) }) as IDataObject);
		const credentials = await this.getCredentials('messagingBearerApi');
		const url = `${String(credentials.sendBaseUrl)}/send`;
		let next = 0;
		let sent = 0;
		const worker = async () => {
			while (next < bodies.length) {
				const body = bodies[next++];
				// The credential read once and handed over, as the Messaging node does (otherwise n8n reads and resolves it per request).
				await this.helpers.httpRequestWithAuthentication.call(this, 'messagingBearerApi', { method: 'POST', url, body, json: true }, {
					credentialsDecrypted: { id: '', name: '', type: 'messagingBearerApi', data: credentials },
				});
				sent++;
			}
		};
		await Promise.all(Array.from({ length: this.getNodeParameter('inFlight', 0) as number }, worker));
		return [[{ json: { sent } }]];
	}
}

let pkg: LoadedPackage | undefined;
const baselines = () => (pkg ??= loadPackage({ nodes: [new ExpressionsOnly(), new MinimalSender()] }));

export async function runMinimalSender(bearer: IDataObject, items: BenchItem[], inFlight: number, expressionEngine: ExpressionEngine): Promise<RunOutcome> {
	const result = await runNode({
		node: { type: 'minimalSender', parameters: { phone: '={{ $json.phone }}', text: '={{ $json.text }}', inFlight } },
		items,
		credentials: { messagingBearerApi: bearer as never },
		package: baselines(),
		expressionEngine,
	});
	return { succeeded: Number(result.items[0]?.json.sent ?? 0), error: result.error?.message };
}

export async function runExpressionsOnly(items: BenchItem[], expressionEngine: ExpressionEngine): Promise<RunOutcome> {
	const result = await runNode({
		node: { type: 'expressionsOnly', parameters: { phone: '={{ $json.phone }}', text: '={{ $json.text }}' } },
		items,
		credentials: {},
		package: baselines(),
		expressionEngine,
	});
	// "succeeded" = items whose two parameters evaluated to non-empty text.
	return { succeeded: Number(result.items[0]?.json.evaluated ?? 0), error: result.error?.message };
}
