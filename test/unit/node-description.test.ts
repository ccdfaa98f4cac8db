/* eslint-disable @n8n/community-nodes/no-dangerous-functions -- not shipped: test code, run by Node outside n8n; it evaluates the subtitle expression (README: Lint) */
/**
 * The recipe of README "Adding an operation": an operation is one file (its fields, its Operation
 * entry, its API group, prepare) and its entry in the resource's list; the credential the editor
 * shows for it, and the subtitle, follow from it. Checked on the built nodes as n8n loads them.
 */
import type { INodeCredentialDescription, INodeType } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { resources as messagingResources } from '../../nodes/Messaging/actions/resources';
import * as send from '../../nodes/Messaging/actions/message/send.operation';
import { shownForApisOf, subtitleOf } from '../../nodes/shared/nodeDescription';
import type { ResourceOperations } from '../../nodes/shared/router';
import { SERVICE_APIS } from '../../nodes/shared/transport';
import * as plant from '../../nodes/SandboxPlants/actions/plant';
import { loadPackage } from '../harness';

/** The credentials n8n's editor shows when `operation` is chosen. */
const shownFor = (credentials: INodeCredentialDescription[], operation: string) =>
	credentials.filter((credential) => {
		const show = credential.displayOptions?.show?.operation;
		return show === undefined || (show as string[]).includes(operation);
	});

describe("every operation's credential follows from its API group", () => {
	const pkg = loadPackage();
	it.each([
		['messaging', messagingResources],
		['sandboxPlants', { plant: plant.operations }],
	] as Array<[string, Record<string, ResourceOperations>]>)('%s: exactly one credential is shown for each operation, the one its API takes', (node, resources) => {
		const fullType = pkg.resolveNodeTypeName(node)!;
		const description = pkg.getNodeTypeVersion(fullType, 1).description;
		const credentials = description.credentials ?? [];
		for (const operations of Object.values(resources)) {
			for (const [value, operation] of Object.entries(operations)) {
				expect(shownFor(credentials, value).map((credential) => credential.name), value).toEqual([SERVICE_APIS[operation.api].credentialType]);
			}
		}
		// Every credential shown is tested by its own function, which the node offers.
		const tests = Object.keys((pkg.getNodeType(fullType) as INodeType).methods?.credentialTest ?? {});
		for (const credential of credentials) expect(tests).toContain(credential.testedBy);
	});

	it('an operation added as the README says gets its credential field with no other edit', () => {
		const sendViaDashboardCopy = { ...send, option: { ...send.option, name: 'Send Copy', value: 'sendCopy', action: 'Send a copy' }, api: 'dashboard' as const };
		const resources = { ...messagingResources, message: { ...messagingResources.message, sendCopy: sendViaDashboardCopy } };
		const credentials = ['messagingBearerApi', 'messagingAuthorizationKeyApi', 'messagingXApiKeyApi'].map((name) => ({ name, displayOptions: shownForApisOf(name, resources) }));
		expect(shownFor(credentials, 'sendCopy').map((credential) => credential.name)).toEqual(['messagingAuthorizationKeyApi']);
	});
});

describe('the subtitle on the canvas names the operation as its selector does', () => {
	const pkg = loadPackage();
	/** The subtitle for one choice, evaluated as plain JavaScript (it holds nothing else). */
	const subtitleFor = (subtitle: string, parameter: Record<string, string>) =>
		new Function('$parameter', `return ${subtitle.replace(/^=\{\{/, '').replace(/\}\}$/, '')};`)(parameter) as string;

	it.each([
		['messaging', messagingResources],
		['sandboxPlants', { plant: plant.operations }],
	] as Array<[string, Record<string, ResourceOperations>]>)('%s: written out as subtitleOf builds it from the operations', (node, resources) => {
		const subtitle = pkg.getNodeTypeVersion(pkg.resolveNodeTypeName(node)!, 1).description.subtitle!;
		expect(subtitle).toBe(subtitleOf(resources));
		for (const [resource, operations] of Object.entries(resources)) {
			for (const [operation, module] of Object.entries(operations)) {
				expect(subtitleFor(subtitle, { resource, operation })).toBe(`${module.option.name}: ${resource.slice(0, 1).toUpperCase()}${resource.slice(1)}`);
			}
		}
		expect(subtitleFor(subtitle, { resource: '__CUSTOM_API_CALL__', operation: '__CUSTOM_API_CALL__' })).toBe('Custom API Call');
	});

	it('reads "Send via Dashboard (V2): Message", not the operation value taken apart', () => {
		const subtitle = pkg.getNodeTypeVersion(pkg.resolveNodeTypeName('messaging')!, 1).description.subtitle!;
		expect(subtitleFor(subtitle, { resource: 'message', operation: 'sendDashboard' })).toBe('Send via Dashboard (V2): Message');
	});
});
