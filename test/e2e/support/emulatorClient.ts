/**
 * The emulator's HTTP control API (test/emulator/control.ts), for test files that run in a
 * vitest worker while the emulator itself runs in the global setup's process.
 */
import type { AccountPatch, FaultsPatch, PlantRecord, RequestRecord, TemplatePatch, TemplateRecord } from '../../emulator/types';

export interface EmulatorStateAnswer {
	requestCount: number;
	requests: RequestRecord[];
	deliveries: number;
	duplicates: unknown[];
	account: Record<string, unknown>;
	faults: Record<string, unknown>;
	plants: PlantRecord[];
}

export class EmulatorClient {
	constructor(readonly url: string) {}

	private async call<T>(method: 'GET' | 'POST', name: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url}/__emulator/${name}`, {
			method,
			headers: body !== undefined ? { 'content-type': 'application/json' } : {},
			body: body !== undefined ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(10_000),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`emulator ${method} ${name} -> ${response.status}: ${text}`);
		return JSON.parse(text) as T;
	}

	state = () => this.call<EmulatorStateAnswer>('GET', 'state');
	reset = () => this.call<{ ok: true }>('POST', 'reset', {});
	setAccount = (patch: AccountPatch & { notOnPlatform?: string[] }) => this.call('POST', 'account', patch);
	setFaults = (patch: FaultsPatch) => this.call('POST', 'faults', patch);
	/** What reached the second origin that the emulator's redirects point at. */
	trap = () => this.call<{ url: string; requests: Array<{ method: string; path: string; headers: Record<string, string>; body: string }> }>('GET', 'trap');
	/** Changes a template as the dashboard would (reset() brings back the seeds). */
	setTemplate = (patch: TemplatePatch) => this.call<TemplateRecord>('POST', 'templates', patch);

	async requests(): Promise<RequestRecord[]> {
		return (await this.state()).requests;
	}

	/** Requests that reached a real API (not unknown paths), in arrival order. */
	async apiRequests(): Promise<RequestRecord[]> {
		return (await this.requests()).filter((r) => r.api !== 'unknown');
	}
}
