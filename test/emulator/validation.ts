/**
 * Checks on request values: phone numbers and direct-send attachments (spec part 2.8).
 */

const E164 = /^\+[1-9]\d{6,14}$/;

export function isE164(value: unknown): value is string {
	return typeof value === 'string' && E164.test(value);
}

export function isNonEmptyString(value: unknown): value is string {
	return typeof value === 'string' && value.trim() !== '';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MB = 1024 * 1024;

/** Spec part 2.8; `.jpg` is accepted as the common spelling of `.jpeg`. */
const MEDIA_BY_EXTENSION: ReadonlyMap<string, { kind: string; maxBytes: number }> = new Map(
	[
		{ kind: 'image', maxBytes: 5 * MB, extensions: ['jpeg', 'jpg', 'png'] },
		{ kind: 'video', maxBytes: 16 * MB, extensions: ['mp4', '3gp'] },
		{ kind: 'document', maxBytes: 100 * MB, extensions: ['pdf', 'doc', 'xls', 'ppt', 'txt'] },
		{ kind: 'audio', maxBytes: 16 * MB, extensions: ['mp3', 'aac', 'm4a', 'ogg'] },
	].flatMap(({ kind, maxBytes, extensions }) =>
		extensions.map((ext) => [ext, { kind, maxBytes }] as const),
	),
);

/** Lower-case extension of the last path segment, or '' when there is none. */
function extensionOf(pathOrName: string): string {
	const lastSegment = pathOrName.slice(pathOrName.lastIndexOf('/') + 1);
	const dot = lastSegment.lastIndexOf('.');
	return dot > 0 ? lastSegment.slice(dot + 1).toLowerCase() : '';
}

/** Parse the attachment URL; undefined when it is not an absolute http(s) URL. */
export function parseAttachmentUrl(value: unknown): URL | undefined {
	if (typeof value !== 'string') return undefined;
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Condition 3: the service fetches the file itself, so it must be on the public internet.
 * Loopback, private ranges, the reserved `.invalid` TLD and any `/private/` path count as
 * not public.
 */
export function isPublicUrl(url: URL): boolean {
	const host = url.hostname.toLowerCase();
	if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.invalid')) return false;
	if (host === '[::1]' || host === '0.0.0.0') return false;
	if (/^(127|10)\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host)) {
		return false;
	}
	return !url.pathname.includes('/private/');
}

/**
 * Condition 9: the type comes from the URL's extension, or, when the URL path has none,
 * from `filename`. A size is known only when a test declared one with setAttachment.
 */
export function isAcceptedMedia(url: URL, filename: unknown, bytes: number | undefined): boolean {
	const ext = extensionOf(url.pathname) || (typeof filename === 'string' ? extensionOf(filename) : '');
	const media = MEDIA_BY_EXTENSION.get(ext);
	if (!media) return false;
	return bytes === undefined || bytes <= media.maxBytes;
}
