/**
 * INodeTypes over the loaded package, plus a stub type standing in for every node that is not
 * this package's (triggers, Code, Set, IF, ...). A stub emits the items given for it in
 * `stubOutputs` (keyed by node name) or passes its first input through when none are given.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';

import type { LoadedPackage } from './package-loader';
import { n8nWorkflow } from './runtime';

export const STUB_NODE_TYPE = 'n8n-harness.stub';

/** Creates the stub type for one run; it reads the items for a node by the node's name. */
export function createStubNodeType(stubOutputs: Record<string, IDataObject[]> = {}): INodeType {
	return {
		description: {
			displayName: 'Harness Stub',
			name: STUB_NODE_TYPE,
			group: ['transform'],
			version: 1,
			description: 'Stands in for a node that is not part of the package under test',
			defaults: { name: 'Stub' },
			inputs: [n8nWorkflow.NodeConnectionTypes.Main],
			outputs: [n8nWorkflow.NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const nodeName = this.getNode().name;
			const input = this.getInputData();
			const given = stubOutputs[nodeName];
			if (given === undefined) {
				return [input];
			}
			const lastInput = Math.max(0, input.length - 1);
			return [
				given.map((json, index) => ({
					json: structuredClone(json),
					pairedItem: { item: Math.min(index, lastInput) },
				})),
			];
		},
	};
}

export class HarnessNodeTypes implements INodeTypes {
	constructor(
		readonly pkg: LoadedPackage,
		private readonly stub: INodeType = createStubNodeType(),
	) {}

	isStub(type: string): boolean {
		return !this.pkg.isPackageNodeType(type);
	}

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.isStub(type) ? this.stub : this.pkg.getNodeType(type);
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return this.isStub(type) ? this.stub : this.pkg.getNodeTypeVersion(type, version);
	}

	getKnownTypes() {
		return this.pkg.knownNodes;
	}
}
