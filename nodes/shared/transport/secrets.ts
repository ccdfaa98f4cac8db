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

/**
 * A copy of a service answer with every secret of the credential replaced: a service (or a
 * proxy) that echoes the key it received must not put it into an error, an output item or a log.
 */
export function scrubSecrets(value: unknown, secrets: readonly string[]): unknown {
	if (secrets.length === 0) return value;
	if (typeof value === 'string') {
		return secrets.reduce((text, secret) => (text.includes(secret) ? text.split(secret).join('[redacted]') : text), value);
	}
	if (Array.isArray(value)) return value.map((element) => scrubSecrets(element, secrets));
	if (typeof value === 'object' && value !== null) {
		return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, scrubSecrets(element, secrets)]));
	}
	return value;
}
