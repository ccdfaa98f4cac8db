import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

/**
 * A credential type's `authenticate` that sets its one header itself, with the value `valueOf`
 * reads from the decrypted credential.
 *
 * A function, not a generic `authenticate`: n8n would evaluate a generic one's value as an
 * expression on every request, about 0.4 ms of CPU each in n8n 2.x's isolated-vm engine; it
 * calls this function directly, through the same httpRequestWithAuthentication (so the HTTP
 * Request node's predefined-credential mode works too).
 *
 * Assign it to an own property (`authenticate = setsHeader(...)`), never write it as a method:
 * n8n lists a credential type as usable by the HTTP Request node (and gives the node its Custom
 * API Call option) only when `authenticate` is an own property of the loaded instance; without
 * that, n8n 2.41's editor takes Operation for the credential's auth field and hides the node's
 * Resource and Operation selectors.
 */
export function setsHeader(header: string, valueOf: (credentials: ICredentialDataDecryptedObject) => string) {
	return async (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> => {
		requestOptions.headers = { ...requestOptions.headers, [header]: valueOf(credentials) };
		return requestOptions;
	};
}

/**
 * The key as the service takes it, from what the user pasted: without the spaces or line breaks
 * around it, and without a "Bearer " they copied with it (the node writes the scheme itself where
 * the API takes one). Sent as pasted, "  key" or "Bearer key" went out as "Bearer   key" or
 * "Bearer Bearer key", and the 401 that came back told the user to replace a good key (outside review).
 */
export function keyOf(value: unknown): string {
	return String(value ?? '')
		.trim()
		.replace(/^bearer\s+/i, '');
}

/**
 * Why the key cannot go in an HTTP header as the service needs it, or undefined: a header carries
 * plain ASCII, and a line break or a letter outside it (a key retyped in another keyboard layout,
 * an emoji) was dropped on the way, so the service saw another key and the user was told to
 * replace theirs (outside review). The character itself is not quoted: it is part of a secret.
 */
export function keyProblem(value: unknown): string | undefined {
	const key = keyOf(value);
	if (/[\r\n]/.test(key)) return 'contains a line break';
	if (/[^\x20-\x7e]/.test(key)) return 'contains a character an HTTP header cannot carry (only plain ASCII letters, digits and signs: not a non-Latin letter, an emoji or a control character)';
	return undefined;
}
