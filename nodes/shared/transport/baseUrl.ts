/** Where a base URL may point. The messaging APIs require https except on loopback. */
export type BaseUrlPolicy = 'httpsOrLoopback' | 'any';

/** `empty`: none was given (an optional one, such as Send Template's Templates Base URL, may be left out). */
export type BaseUrlCheck = { ok: true; baseUrl: string } | { ok: false; problem: string; empty?: true };

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOSTS.test(hostname);
}

/**
 * A base URL as users paste it (with or without a trailing slash), ready to have a request
 * path appended: `https://host/api:AbC1/` -> `https://host/api:AbC1`.
 */
export function normalizeBaseUrl(raw: unknown, policy: BaseUrlPolicy): BaseUrlCheck {
	const value = typeof raw === 'string' ? raw.trim() : '';
	if (value === '') return { ok: false, problem: 'is empty', empty: true };
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return { ok: false, problem: `"${value}" is not a URL (expected e.g. https://api.example.com/api:AbC123)` };
	}
	// "https://user:pass@host": the HTTP layer would sign in with those (Basic) in place of the
	// credential's key; quoted without them, a password must not reach an error message.
	if (url.username !== '' || url.password !== '') {
		return { ok: false, problem: `"${url.protocol}//${url.host}${url.pathname}" must not hold a user name or password before the host ("…@"): the credential's key is how the node signs in` };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { ok: false, problem: `"${value}" must start with https://` };
	}
	if (policy === 'httpsOrLoopback' && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		return {
			ok: false,
			problem: `"${value}" uses plain http://; the service requires https:// (plain http is only allowed for localhost)`,
		};
	}
	// The raw text: URL() drops a bare trailing ? or #, and a path appended after one would become a query.
	if (/[?#]/.test(value)) {
		return { ok: false, problem: `"${value}" must not contain ? or #` };
	}
	return { ok: true, baseUrl: value.replace(/\/+$/, '') };
}
