/**
 * "Stop wasting calls" (README): when the service says the credits are exhausted, the
 * subscription expired or the token is wrong, no later item can succeed, so they fail at once
 * with the same reason instead of each calling the service. And without Continue On Fail the
 * first failure ends the run: later items are not sent.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { bulkItems, directSendParameters, errorText, pairingProblems, phoneOf, runOn, sendRequests } from './support';
import { useEmulator } from '../emulator/use';

const emulator = useEmulator({ seed: 3 });

interface HaltCase {
	name: string;
	reason: RegExp;
	setUp(): void;
	credentials?: () => Record<string, IDataObject>;
}

/** Bearer credential data with another token (read when the test runs: the emulator starts in beforeAll). */
const withToken = (token: () => string) => () => ({
	messagingBearerApi: { ...emulator.credentials.messagingBearerApi, accessToken: token() },
});

const HALTING: HaltCase[] = [
	{ name: 'credits at 0', reason: /insufficient credits/i, setUp: () => emulator.setAccount({ credits: 0 }) },
	{ name: 'subscription expired', reason: /subscription expired/i, setUp: () => emulator.setAccount({ subscriptionExpired: true }) },
	{ name: 'an invalid token (401)', reason: /authentication failed.*invalid api token/i, setUp: () => undefined, credentials: withToken(() => 'not-the-token') },
	{ name: 'a token that may not send (403)', reason: /forbidden/i, setUp: () => undefined, credentials: withToken(() => emulator.tokens.forbiddenBearer) },
];

describe('fail fast with Continue On Fail: one call, every item carries the reason', () => {
	it.each(HALTING)('$name: 50 items, the service sees exactly 1 send', async (halt) => {
		halt.setUp();
		const run = await runOn(emulator, {
			parameters: directSendParameters(),
			items: bulkItems(50),
			continueOnFail: true,
			credentials: halt.credentials?.(),
		});
		expect(run.error).toBeUndefined();
		expect(pairingProblems(run.items, 50)).toEqual([]);
		expect(sendRequests(emulator)).toHaveLength(1);
		expect(emulator.deliveries).toHaveLength(0);
		const reasons = run.items.map((item) => errorText(item) ?? `no error: ${JSON.stringify(item.json)}`);
		expect(reasons.filter((reason) => !halt.reason.test(reason))).toEqual([]);
		// No secret in any item.
		expect(JSON.stringify(run.items)).not.toContain('not-the-token');
		expect(JSON.stringify(run.items)).not.toContain(emulator.tokens.bearer);
	});

	it('with 16 in flight: only the requests already under way reach the service', async () => {
		emulator.setAccount({ credits: 0 });
		emulator.setFaults({ latencyMs: 20 });
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 16 }), items: bulkItems(50), continueOnFail: true });
		expect(pairingProblems(run.items, 50)).toEqual([]);
		expect(sendRequests(emulator).length).toBeLessThanOrEqual(16);
		expect(run.items.every((item) => /insufficient credits/i.test(errorText(item) ?? ''))).toBe(true);
	});

	it('items that will not be sent do not wait for pacing: credits at 0, 20 items paced at 1 per minute end at once', async () => {
		emulator.setAccount({ credits: 0 });
		// Paced, the 19 after the first would take 19 minutes: ending at all shows they did not wait.
		const run = await runOn(emulator, { parameters: directSendParameters({ maxPerMinute: 1 }), items: bulkItems(20), continueOnFail: true });
		expect(pairingProblems(run.items, 20)).toEqual([]);
		expect(run.items.every((item) => /insufficient credits/i.test(errorText(item) ?? ''))).toBe(true);
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('credits running out mid-run: the items before were delivered, the rest fail without a call', async () => {
		emulator.setAccount({ credits: 5 });
		// One at a time, so that exactly one call finds the balance empty (Auto may have more under way).
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 1 }), items: bulkItems(20), continueOnFail: true });
		expect(pairingProblems(run.items, 20)).toEqual([]);
		expect(run.items.slice(0, 5).map((item) => item.json.to)).toEqual([0, 1, 2, 3, 4].map(phoneOf));
		expect(run.items.slice(5).every((item) => /insufficient credits/i.test(errorText(item) ?? ''))).toBe(true);
		expect(sendRequests(emulator)).toHaveLength(6);
		expect(emulator.deliveries).toHaveLength(5);
	});

	it('a failure about one recipient does not stop the others', async () => {
		const items = bulkItems(6);
		items[1] = { ...items[1], phone: '+15550000000' }; // not on the platform
		const run = await runOn(emulator, { parameters: directSendParameters(), items, continueOnFail: true });
		expect(errorText(run.items[1])).toMatch(/no active account/i);
		expect(run.items.filter((item) => item.json.success === true)).toHaveLength(5);
		expect(sendRequests(emulator)).toHaveLength(6);
	});
});

describe('without Continue On Fail the run fails with the reason and later items are not sent', () => {
	it.each(HALTING)('$name', async (halt) => {
		halt.setUp();
		const run = await runOn(emulator, { parameters: directSendParameters(), items: bulkItems(50), credentials: halt.credentials?.() });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.message).toMatch(halt.reason);
		expect(run.run.status).toBe('error');
		expect(sendRequests(emulator)).toHaveLength(1);
	});

	it('an item-level failure (recipient not on the platform) at item 3 of 20: items 4.. are never sent', async () => {
		const items = bulkItems(20);
		items[3] = { ...items[3], phone: '+15550000000' };
		// One at a time: with more under way, the requests started before item 3's answer finish too.
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 1 }), items });
		expect(run.error?.message).toMatch(/no active account/i);
		expect((run.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(3);
		expect(sendRequests(emulator).map((request) => (request.body as { phone: string }).phone)).toEqual([
			phoneOf(0),
			phoneOf(1),
			phoneOf(2),
			'+15550000000',
		]);
	});

	it('with 8 in flight: nothing new starts after the first failure', async () => {
		emulator.setFaults({ latencyMs: 15 });
		const items = bulkItems(40);
		items[10] = { ...items[10], phone: '+15550000000' };
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 8 }), items });
		expect(run.error?.message).toMatch(/no active account/i);
		const requests = sendRequests(emulator);
		const failed = requests.findIndex((request) => request.outcome === 'rejected');
		// Counted, not timed: after the failing request arrived, at most 7 others were under way, and
		// while its answer was on the way at most 7 more could start; nothing starts once it is read.
		expect(requests.length - failed - 1).toBeLessThanOrEqual(14);
		expect(requests.length).toBeLessThan(40);
	});

	it('bad input in a batch of deletes: nothing is deleted (deletes are not held like sends, the checks still come first)', async () => {
		const items = Array.from({ length: 200 }, (_, index) => ({ plantId: index + 1 }));
		items[199] = { plantId: 'abc' } as never;
		const run = await runOn(emulator, {
			type: 'sandboxPlants',
			parameters: { resource: 'plant', operation: 'delete', plantId: '={{ $json.plantId }}', options: { maxConcurrent: 4 } },
			items,
		});
		expect(run.error?.name).toBe('NodeOperationError');
		expect((run.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(199);
		expect(emulator.requests).toHaveLength(0);
		expect(emulator.plants().map((plant) => plant.id)).toEqual([1, 2, 3]);
	});

	it('bad input in any item stops the run before anything is sent', async () => {
		const items = bulkItems(30);
		items[29] = { ...items[29], phone: '12345' };
		const run = await runOn(emulator, { parameters: directSendParameters({ maxConcurrent: 4 }), items });
		expect(run.error?.name).toBe('NodeOperationError');
		expect((run.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(29);
		expect(emulator.requests).toHaveLength(0);
	});
});
