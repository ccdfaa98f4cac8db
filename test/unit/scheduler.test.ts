/* eslint-disable @n8n/community-nodes/no-restricted-globals -- not shipped: test code, run by Node outside n8n (README: Lint) */
import { describe, expect, it } from 'vitest';

import { RequestScheduler, RunStoppedError } from '../../nodes/shared/transport/scheduler';

const pacing = (overrides: Partial<ConstructorParameters<typeof RequestScheduler>[0]> = {}) => ({
	maxConcurrent: 1,
	maxPerSecond: 0,
	maxPerMinute: 0,
	...overrides,
});

async function runTasks(scheduler: RequestScheduler, count: number, workMs: number) {
	const starts: number[] = [];
	let active = 0;
	let maxActive = 0;
	await Promise.all(
		Array.from({ length: count }, async (_, i) => {
			const release = await scheduler.acquire(i, { gated: false });
			starts[i] = Date.now();
			active++;
			maxActive = Math.max(maxActive, active);
			await new Promise((resolve) => setTimeout(resolve, workMs));
			active--;
			release();
		}),
	);
	return { starts, maxActive };
}

describe('RequestScheduler', () => {
	it('never has more than maxConcurrent under way, and starts them in the order they asked', async () => {
		const { starts, maxActive } = await runTasks(new RequestScheduler(pacing({ maxConcurrent: 3 })), 12, 10);
		expect(maxActive).toBe(3);
		const order = starts.map((at, i) => [at, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, i]) => i);
		expect(order).toEqual([...order].sort((a, b) => a - b));
	});

	it('never starts more than maxPerSecond in any one-second window, spaced evenly', async () => {
		const scheduler = new RequestScheduler(pacing({ maxConcurrent: 8, maxPerSecond: 20 }));
		const began = Date.now();
		const { starts } = await runTasks(scheduler, 30, 1);
		const sorted = [...starts].sort((a, b) => a - b);
		for (let i = 0; i < sorted.length; i++) {
			const inWindow = sorted.filter((at) => at >= sorted[i] && at < sorted[i] + 1000).length;
			expect(inWindow).toBeLessThanOrEqual(20);
		}
		// 30 requests at 20/s need a little over 1.45 s, and not much more.
		const elapsed = Date.now() - began;
		expect(elapsed).toBeGreaterThanOrEqual(1400);
		expect(elapsed).toBeLessThan(2500);
	});

	it('holds gated requests until the gate opens; ungated ones pass', async () => {
		const scheduler = new RequestScheduler(pacing({ maxConcurrent: 4 }));
		const arrivals: number[] = [];
		scheduler.onGateArrival = (i) => arrivals.push(i);
		scheduler.holdGate();
		let sendStarted = false;
		const send = scheduler.acquire(0, { gated: true }).then((release) => {
			sendStarted = true;
			release();
		});
		const read = await scheduler.acquire(1, { gated: false });
		read();
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(sendStarted).toBe(false);
		expect(arrivals).toEqual([0]);
		scheduler.openGate();
		await send;
		expect(sendStarted).toBe(true);
	});

	it('rejects everyone still waiting when stopped, and nothing starts after', async () => {
		const scheduler = new RequestScheduler(pacing({ maxConcurrent: 1 }));
		const first = await scheduler.acquire(0, { gated: false });
		const second = scheduler.acquire(1, { gated: false });
		scheduler.holdGate();
		const third = scheduler.acquire(2, { gated: true });
		scheduler.stop(new RunStoppedError());
		await expect(second).rejects.toBeInstanceOf(RunStoppedError);
		await expect(third).rejects.toBeInstanceOf(RunStoppedError);
		first();
		await expect(scheduler.acquire(3, { gated: false })).rejects.toBeInstanceOf(RunStoppedError);
	});

	it('pauses every request until the time the service asked for', async () => {
		const scheduler = new RequestScheduler(pacing({ maxConcurrent: 4 }));
		const began = Date.now();
		scheduler.pauseUntil(began + 300);
		const { starts } = await runTasks(scheduler, 4, 1);
		for (const at of starts) expect(at - began).toBeGreaterThanOrEqual(295);
	});
});
