import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The credential fields that hold a secret. */
const SECRET_FIELDS = ['accessToken', 'apiKey'];

/** Shorter values would blank out ordinary words; no real token or key is this short. */
const MIN_SECRET_LENGTH = 6;

export function secretsOf(credentials: ICredentialDataDecryptedObject): string[] {
	return secretValues(SECRET_FIELDS.map((field) => credentials[field]));
}

/** The values worth scrubbing: text long enough to be a real token or key. */
export function secretValues(values: unknown[]): string[] {
	return values
		.filter((value): value is string => typeof value === 'string' && value.trim().length >= MIN_SECRET_LENGTH)
		.map((value) => value.trim());
}

/** Whether any text in a service answer contains one of the secrets. */
function containsSecret(value: unknown, secrets: readonly string[]): boolean {
	if (typeof value === 'string') return secrets.some((secret) => value.includes(secret));
	if (typeof value === 'object' && value !== null) return Object.values(value).some((element) => containsSecret(element, secrets));
	return false;
}

/**
 * A service answer with every secret of the credential replaced: a service (or a proxy) that
 * echoes the key it received must not put it into an error, an output item or a log. Copied
 * only when a secret occurs; an answer without one (nearly every answer) is returned as it is.
 */
export function scrubSecrets(value: unknown, secrets: readonly string[]): unknown {
	if (secrets.length === 0 || !containsSecret(value, secrets)) return value;
	return replaceSecrets(value, secrets);
}

function replaceSecrets(value: unknown, secrets: readonly string[]): unknown {
	if (typeof value === 'string') {
		return secrets.reduce((text, secret) => (text.includes(secret) ? text.split(secret).join('[redacted]') : text), value);
	}
	if (Array.isArray(value)) return value.map((element) => replaceSecrets(element, secrets));
	if (typeof value === 'object' && value !== null) {
		return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, replaceSecrets(element, secrets)]));
	}
	return value;
}
