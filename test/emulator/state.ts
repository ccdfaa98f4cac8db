/**
 * Mutable service state: the account, the sandbox store, declared attachments, and what
 * the emulator observed (requests, deliveries).
 *
 * Collections are cleared in place on reset so references handed out earlier
 * (`emulator.requests`, `emulator.account`) stay live.
 */
import { randomBytes } from 'node:crypto';
import { defaultAccount, SEED_PLANTS, TEMPLATES, variableNamesOf } from './fixtures';
import type {
	Account,
	AccountPatch,
	AttachmentInfo,
	Delivery,
	DuplicateDelivery,
	PlantRecord,
	RequestRecord,
	SendApi,
	TemplatePatch,
	TemplateRecord,
} from './types';

/** Epoch milliseconds with sub-millisecond resolution and monotonic within a process. */
export const now = (): number => performance.timeOrigin + performance.now();

export class EmulatorState {
	readonly account: Account = defaultAccount();
	readonly requests: RequestRecord[] = [];
	readonly deliveries: Delivery[] = [];
	readonly plants = new Map<number, PlantRecord>();
	readonly attachments = new Map<string, AttachmentInfo>();
	/** The account's templates as list templates answers them now (the seeds, until a test changes one). */
	readonly templates: TemplateRecord[] = [...TEMPLATES];

	/** `${api}|${recipient}|${content}` -> count, kept up to date on every delivery. */
	private readonly countsByKey = new Map<string, number>();
	/** recipient -> deliveries over all send APIs (per-number and unique-number limits). */
	private readonly countsByRecipient = new Map<string, number>();
	private nextSeq = 1;
	private nextMessageId = 1;
	/** Makes message ids unique across emulator restarts (n8n may keep old results). */
	private readonly instanceId = randomBytes(3).toString('hex').toUpperCase();

	constructor() {
		this.seedPlants();
	}

	takeSeq(): number {
		return this.nextSeq++;
	}

	/** A fresh id for a delivered message, e.g. `wamid.HBgL3F9A2C000001`. */
	messageId(prefix: string): string {
		return `${prefix}${this.instanceId}${String(this.nextMessageId++).padStart(6, '0')}`;
	}

	/** Sequential number for the alternative send's `alt_<n>` ids. */
	counter(): number {
		return this.nextMessageId++;
	}

	deliveriesTo(recipient: string): number {
		return this.countsByRecipient.get(recipient) ?? 0;
	}

	get uniqueRecipients(): number {
		return this.countsByRecipient.size;
	}

	/** Record a delivered message and charge one credit. */
	deliver(api: SendApi, recipient: string, content: string, seq: number): void {
		this.deliveries.push({ api, recipient, content, at: now(), seq });
		const key = `${api}|${recipient}|${content}`;
		this.countsByKey.set(key, (this.countsByKey.get(key) ?? 0) + 1);
		this.countsByRecipient.set(recipient, this.deliveriesTo(recipient) + 1);
		this.account.credits -= 1;
	}

	deliveryCounts(): Map<string, number> {
		return new Map(this.countsByKey);
	}

	duplicates(): DuplicateDelivery[] {
		const result: DuplicateDelivery[] = [];
		for (const [key, count] of this.countsByKey) {
			if (count < 2) continue;
			// api and recipient never contain '|'; content may, so split only twice.
			const first = key.indexOf('|');
			const second = key.indexOf('|', first + 1);
			result.push({
				key,
				api: key.slice(0, first) as SendApi,
				recipient: key.slice(first + 1, second),
				content: key.slice(second + 1),
				count,
			});
		}
		return result;
	}

	/** Two pointers over arrival order (`at` is monotonic, so records are sorted). */
	maxRequestsInWindow(windowMs: number, filter?: (r: RequestRecord) => boolean): number {
		const times = filter ? this.requests.filter(filter).map((r) => r.at) : this.requests.map((r) => r.at);
		let best = 0;
		let left = 0;
		for (let right = 0; right < times.length; right++) {
			while (times[right] - times[left] >= windowMs) left++;
			best = Math.max(best, right - left + 1);
		}
		return best;
	}

	applyAccountPatch(patch: AccountPatch): void {
		const allowed = ['credits', 'subscriptionExpired', 'perNumberLimit', 'uniqueNumberLimit', 'notOnPlatform'];
		for (const key of Object.keys(patch)) {
			if (!allowed.includes(key)) throw new Error(`Unknown account field '${key}'`);
		}
		for (const key of ['credits', 'perNumberLimit', 'uniqueNumberLimit'] as const) {
			const value = patch[key];
			if (value === undefined) continue;
			if (typeof value !== 'number' || Number.isNaN(value)) throw new Error(`Account '${key}' must be a number`);
			this.account[key] = value;
		}
		if (patch.subscriptionExpired !== undefined) {
			if (typeof patch.subscriptionExpired !== 'boolean') {
				throw new Error("Account 'subscriptionExpired' must be a boolean");
			}
			this.account.subscriptionExpired = patch.subscriptionExpired;
		}
		if (patch.notOnPlatform !== undefined) {
			const numbers = typeof patch.notOnPlatform === 'string' ? null : [...patch.notOnPlatform];
			if (!numbers || numbers.some((n) => typeof n !== 'string')) {
				throw new Error("Account 'notOnPlatform' must be a list of phone numbers");
			}
			this.account.notOnPlatform.clear();
			for (const n of numbers) this.account.notOnPlatform.add(n);
		}
	}

	/**
	 * Changes a template the way the dashboard would (a new text, another status), or adds one
	 * when no template has the ID. `variable_counts` follows the new text unless given.
	 */
	setTemplate(patch: TemplatePatch): TemplateRecord {
		const strings = ['user_id', 'name', 'category', 'type', 'language', 'status', 'template_formate', 'template_id'];
		const numbers = ['id', 'variable_counts'];
		for (const [key, value] of Object.entries(patch)) {
			if (strings.includes(key) ? typeof value !== 'string' : numbers.includes(key) ? !Number.isInteger(value) : true) {
				throw new Error(`Template field '${key}' is unknown or of the wrong type`);
			}
		}
		if (typeof patch.template_id !== 'string' || patch.template_id === '') throw new Error("A template patch needs its 'template_id'");
		const index = this.templates.findIndex((t) => t.template_id === patch.template_id);
		const base: TemplateRecord =
			index >= 0
				? this.templates[index]
				: { ...TEMPLATES[0], id: Math.max(...this.templates.map((t) => t.id)) + 1, name: `template_${this.templates.length + 1}`, template_formate: '' };
		const record = { ...base, ...patch };
		if (patch.variable_counts === undefined) record.variable_counts = variableNamesOf(record.template_formate).length;
		if (index >= 0) this.templates[index] = record;
		else this.templates.push(record);
		return record;
	}

	resetAccount(): void {
		const defaults = defaultAccount();
		Object.assign(this.account, { ...defaults, notOnPlatform: this.account.notOnPlatform });
		this.account.notOnPlatform.clear();
		for (const n of defaults.notOnPlatform) this.account.notOnPlatform.add(n);
	}

	/** Everything back to a fresh start (fault settings live in FaultController). */
	resetAll(): void {
		this.resetAccount();
		this.requests.length = 0;
		this.deliveries.length = 0;
		this.countsByKey.clear();
		this.countsByRecipient.clear();
		this.attachments.clear();
		this.templates.splice(0, this.templates.length, ...TEMPLATES);
		this.seedPlants();
		this.nextSeq = 1;
	}

	private seedPlants(): void {
		this.plants.clear();
		for (const plant of SEED_PLANTS) this.plants.set(plant.id, { ...plant });
	}
}
