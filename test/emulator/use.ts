import { afterAll, beforeAll, beforeEach } from 'vitest';

import { startEmulator } from './index';
import type { Emulator, StartOptions } from './types';

/**
 * The one emulator fixture: an emulator for the test file, started before its tests, reset
 * before each one (unless `resetEachTest: false`), closed after them. What it returns stands for
 * the running emulator: read it inside tests and hooks.
 */
export function useEmulator(options: StartOptions & { resetEachTest?: boolean } = {}): Emulator {
	const { resetEachTest = true, ...startOptions } = options;
	let running: Emulator | undefined;
	beforeAll(async () => {
		running = await startEmulator(startOptions);
	});
	if (resetEachTest) beforeEach(() => running?.reset());
	afterAll(async () => {
		await running?.close();
	});
	return new Proxy({} as Emulator, {
		get(_, key) {
			if (!running) throw new Error('The emulator starts before the tests: read it inside a test or a hook');
			const value: unknown = Reflect.get(running, key, running);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(running) : value;
		},
	});
}
