import type { ICredentialDataDecryptedObject, ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { keyOf, keyProblem } from '../../credentials/headerAuthentication';
import { kindOfFailure, readFailure, readFailureOfSuccess } from './errors';
import { LIST_ANSWER_MAX_BYTES, parseScrubbed, readBody, UnreadableBody } from './transport/answer';
import { SERVICE_APIS, type ServiceApi } from './transport/apis';
import { normalizeBaseUrl } from './transport/baseUrl';
import { keySecrets } from './transport/secrets';

interface Probe {
	method: 'GET' | 'POST';
	url: string;
	headers: Record<string, string>;
	/** The API group probed: how its answers say they failed. */
	api: ServiceApi;
	/** Scrubbed from anything the service says back. */
	secret: unknown;
	/** A send endpoint probed with an empty body: its refusal of the body (a 4xx that is not about the key or the rate) means the key passed. */
	bodyRefusalMeansKeyAccepted: boolean;
	/** A read: the endpoint's success answer (a list), which alone shows the key was accepted. */
	isSuccess?: (body: unknown) => boolean;
}

/** A send's answer to an empty body is small; a list of templates may run to megabytes (as the node reads it). */
const SEND_PROBE_MAX_BYTES = 1024 * 1024;
const PROBE_TIMEOUT_MS = 15_000;

/** What kept an answer from being read, in the words the test result shows. */
function unread(read: Exclude<Awaited<ReturnType<typeof readBody>>, { type: 'read' }>): string {
	if (read.type === 'tooLarge') return `larger than ${Math.round(read.maxBytes / 1024 / 1024)} MB, not read`;
	if (read.type === 'ended') return `it did not finish answering within ${PROBE_TIMEOUT_MS / 1000} s`;
	return 'the connection broke off during the answer';
}

/**
 * Asks the service whether it accepts a credential, without sending a message.
 *
 * A credential-test context offers only n8n's deprecated `request` helper, and a declarative
 * test can neither apply the https rule before the secret leaves nor tell "the key was
 * accepted, the empty body was not" from a failure; so these probes use the runtime's fetch
 * and set the one auth header themselves.
 */
async function probe(this: ICredentialTestFunctions, { method, url, headers, api, secret, bodyRefusalMeansKeyAccepted, isSuccess }: Probe): Promise<INodeCredentialTestResult> {
	// As a run says it: a key no header can carry is no key to test (fetch refused it, and the test blamed the host).
	const unsendable = keyProblem(secret);
	if (unsendable) return { status: 'Error', message: `Not tested: the key ${unsendable}. Paste it again, copied from the API section of your account dashboard.` };
	const host = new URL(url).host;
	const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
	let statusCode: number;
	let body: unknown;
	let notRead: string | undefined;
	try {
		const response = await fetch(url, {
			method,
			headers: { ...headers, Accept: 'application/json', ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
			body: method === 'POST' ? '{}' : undefined,
			// A redirect would carry the key to whatever host it names.
			redirect: 'manual',
			signal,
		});
		statusCode = response.status;
		// Within the same 15 s, at most what the node itself reads; scrubbed before it is read.
		const read = await readBody(response.body, method === 'GET' ? LIST_ANSWER_MAX_BYTES : SEND_PROBE_MAX_BYTES, signal, response.headers.get('content-type'));
		if (read.type !== 'read') notRead = unread(read);
		const parsed = read.type === 'read' ? parseScrubbed(read.text, keySecrets([secret])) : undefined;
		body = typeof parsed === 'object' && parsed !== null && !(parsed instanceof UnreadableBody) ? parsed : undefined;
	} catch (error) {
		// The request went, and no answer came within the test's time: "Could not reach" would send the user to the network.
		if (signal.aborted) return { status: 'Error', message: `No answer from ${host} within ${PROBE_TIMEOUT_MS / 1000} s; check the URL, or try again later` };
		const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
		return { status: 'Error', message: `Could not reach ${host} (${cause})` };
	}
	if (statusCode >= 300 && statusCode < 400) {
		return { status: 'Error', message: `${host} answered HTTP ${statusCode}, a redirect; redirects are not followed. Check the URL.` };
	}
	// Only the service's own reason, never a raw body, and never a secret it may have echoed.
	const failure = body === undefined ? undefined : statusCode >= 400 ? readFailure(body, true) : readFailureOfSuccess(api, body);
	const reason = failure?.reason;
	const because = reason ? `: ${reason}` : '';
	const kind = failure && kindOfFailure(failure, statusCode);
	if (statusCode === 401 || statusCode === 403) return { status: 'Error', message: `The key was refused (HTTP ${statusCode})${because}` };
	// Refused for rate (a 429, or the spec's reason in any status) before the key was looked at, or
	// refused in words about the key: neither says the key passed.
	if (statusCode === 429 || kind === 'rateLimit') {
		return { status: 'Error', message: `Not tested: the service is rate-limiting requests (HTTP ${statusCode})${because}; try again in a minute` };
	}
	if (kind === 'authentication') return { status: 'Error', message: `The key was refused (HTTP ${statusCode})${because}` };
	const endpoint = url.split('?')[0];
	// An empty body to the template send refused as naming no template the service has ("Template
	// not found"; spec 4.2 does not show that error's status): it read the key, then looked for one.
	if (statusCode === 404 && bodyRefusalMeansKeyAccepted && api === 'templateSend' && reason !== undefined && /\btemplate\b/i.test(reason)) return { status: 'OK', message: 'Key accepted' };
	// A 404 in the service's own words is its reason (spec 4.3, 4.4: the statuses of their errors are not shown).
	if (statusCode === 404) return { status: 'Error', message: reason ? `${endpoint} answered HTTP 404: ${reason}; check the URL` : `Nothing answers at ${endpoint}; check the URL` };
	// Not a refusal of the empty body: nothing at this URL takes the request (a website's page, a path
	// that moved), so no key was looked at.
	if (statusCode === 405 || statusCode === 410) {
		return { status: 'Error', message: `Not tested: ${endpoint} does not take this request (HTTP ${statusCode})${because}; check the URL` };
	}
	if (statusCode >= 500) return { status: 'Error', message: `The service failed (HTTP ${statusCode})${because}` };
	if (statusCode >= 400 && !bodyRefusalMeansKeyAccepted) return { status: 'Error', message: `HTTP ${statusCode}${because}` };
	if (notRead) return { status: 'Error', message: `Unexpected answer from ${host} (HTTP ${statusCode}): ${notRead}` };
	if (body === undefined) return { status: 'Error', message: `Unexpected answer from ${host} (HTTP ${statusCode}, not JSON); check the URL` };
	if (statusCode < 300 && failure) {
		// The dashboard's and the alternative API's error statuses are not shown (spec 4.4, 4.5): a
		// 200 {success: false} refusing the empty body, not the key, shows the key passed, as a 400 does.
		if (bodyRefusalMeansKeyAccepted) return { status: 'OK', message: 'Key accepted' };
		return { status: 'Error', message: `The service refused the request (HTTP ${statusCode})${because}` };
	}
	if (statusCode < 300 && isSuccess && !isSuccess(body)) {
		return { status: 'Error', message: `Unexpected answer from ${host} (HTTP ${statusCode}, JSON of another shape than a list); check the URL` };
	}
	return { status: 'OK', message: 'Key accepted' };
}

/** The URL a probe of `api` calls, from its base URL field by the rule requests go by, or the test's error naming the field. */
function urlOf(data: ICredentialDataDecryptedObject, api: ServiceApi, path: string): string | INodeCredentialTestResult {
	const { baseUrlField, baseUrlLabel, urlPolicy } = SERVICE_APIS[api];
	const check = normalizeBaseUrl(data[baseUrlField], urlPolicy);
	return check.ok ? `${check.baseUrl}${path}` : { status: 'Error', message: `${baseUrlLabel} ${check.problem}` };
}

const present = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/** The Bearer credential's API groups, in the order a failure is reported, and how each is probed (their fields and labels: SERVICE_APIS). */
const BEARER_PROBES = [
	{ api: 'templates', path: '/get_templates', method: 'GET' },
	{ api: 'send', path: '/send', method: 'POST' },
	{ api: 'templateSend', path: '/send_template_message_by_api', method: 'POST' },
	{ api: 'sandbox', path: '/plants?limit=1', method: 'GET' },
] as const;

/**
 * Bearer token: every base URL that is set, at once (outside review: a mistyped Template Send
 * Base URL passed the test, because only the Templates Base URL was called). Lists are read
 * (templates; one sandbox plant); a send endpoint gets an empty body, which no message can come
 * of, and whose key is checked first (spec 4.1's 401/403). Any URL that fails fails the test,
 * and the message names it.
 */
export async function messagingBearerApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const set = BEARER_PROBES.filter((how) => present(data[SERVICE_APIS[how.api].baseUrlField]));
	if (set.length === 0) return { status: 'Error', message: 'Set a base URL (Send, Template Send, Templates or Sandbox) to test the token' };
	// Every URL's form is checked before the token goes anywhere.
	const probes: Array<(typeof BEARER_PROBES)[number] & { url: string }> = [];
	for (const how of set) {
		const url = urlOf(data, how.api, how.path);
		if (typeof url !== 'string') return url;
		probes.push({ ...how, url });
	}
	// The sandbox may be plain http anywhere (the contract); the test sends the token only where the
	// messaging APIs' rule lets requests go (https, or plain http on loopback).
	const tested = probes.filter((how) => normalizeBaseUrl(data[SERVICE_APIS[how.api].baseUrlField], 'httpsOrLoopback').ok);
	if (tested.length === 0) {
		return {
			status: 'Error',
			message: `Not tested: the Sandbox Base URL is plain http on ${new URL(probes[0].url).host}, and the test would send your token unencrypted. The Sandbox Plants node still uses it as configured.`,
		};
	}
	const results = await Promise.all(
		tested.map(
			async ({ url, method, api }) =>
				await probe.call(this, {
					method,
					url,
					headers: { Authorization: `Bearer ${keyOf(data.accessToken)}` },
					api,
					secret: data.accessToken,
					// A send refuses the empty body once it accepted the key; a list must come back as one (spec 4.3, 4.6).
					bodyRefusalMeansKeyAccepted: method === 'POST',
					isSuccess: method === 'GET' ? Array.isArray : undefined,
				}),
		),
	);
	const failed = results.findIndex((result) => result.status !== 'OK');
	if (failed === -1) return { status: 'OK', message: 'Key accepted' };
	// One answer for all (a refused token says so at every URL) needs no URL named.
	if (tested.length === 1 || results.every((result) => result.message === results[failed].message)) return results[failed];
	return { status: 'Error', message: `${SERVICE_APIS[tested[failed].api].baseUrlLabel}: ${results[failed].message}` };
}

/** Dashboard key: its only endpoint sends, so it gets an empty body no message can come of. */
export async function messagingAuthorizationKeyApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const url = urlOf(data, 'dashboard', '/api/messaging/messages/v2.0.0/send');
	if (typeof url !== 'string') return url;
	return await probe.call(this, {
		method: 'POST',
		url,
		headers: { Authorization: keyOf(data.apiKey) },
		api: 'dashboard',
		secret: data.apiKey,
		bodyRefusalMeansKeyAccepted: true,
	});
}

/** X-API-Key: likewise an empty-body probe of its send endpoint. */
export async function messagingXApiKeyApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const url = urlOf(data, 'alternative', '/v1/messages');
	if (typeof url !== 'string') return url;
	return await probe.call(this, {
		method: 'POST',
		url,
		headers: { 'X-API-Key': keyOf(data.apiKey) },
		api: 'alternative',
		secret: data.apiKey,
		bodyRefusalMeansKeyAccepted: true,
	});
}
