import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { readFailure } from '../../shared/errors';
import { normalizeBaseUrl } from '../../shared/transport/baseUrl';

/**
 * Tests a key whose only endpoint sends messages, without sending one: it posts an empty
 * body. The service checks the key first, so 401/403 means the key is wrong, and a 400-class
 * refusal of the empty body means the key was accepted. No recipient, so nothing can go out.
 *
 * A credential-test context offers only n8n's deprecated `request` helper, and a declarative
 * test would call every 4xx a failure; so this one probe uses the runtime's fetch.
 */
async function probeSendEndpoint(this: ICredentialTestFunctions, probe: SendProbe): Promise<INodeCredentialTestResult> {
	let statusCode: number;
	let body: unknown;
	try {
		const response = await fetch(probe.url, {
			method: 'POST',
			headers: { ...probe.headers, 'Content-Type': 'application/json', Accept: 'application/json' },
			body: '{}',
			signal: AbortSignal.timeout(15_000),
		});
		statusCode = response.status;
		const text = await response.text();
		try {
			body = JSON.parse(text);
		} catch {
			body = text;
		}
	} catch (error) {
		const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
		return { status: 'Error', message: `Could not reach ${new URL(probe.url).host} (${cause})` };
	}
	const reason = readFailure(body, statusCode >= 400)?.reason;
	if (statusCode === 401 || statusCode === 403) {
		return { status: 'Error', message: `The key was refused (HTTP ${statusCode})${reason ? `: ${reason}` : ''}` };
	}
	if (statusCode === 404) return { status: 'Error', message: `Nothing answers at ${probe.url}; check the URL` };
	if (statusCode >= 500) return { status: 'Error', message: `The service failed (HTTP ${statusCode})${reason ? `: ${reason}` : ''}` };
	return { status: 'OK', message: 'Key accepted' };
}

interface SendProbe {
	url: string;
	headers: Record<string, string>;
}

function urlOf(raw: unknown, path: string): string | INodeCredentialTestResult {
	const check = normalizeBaseUrl(raw, 'httpsOrLoopback');
	return check.ok ? `${check.baseUrl}${path}` : { status: 'Error', message: `The URL ${check.problem}` };
}

export async function messagingAuthorizationKeyApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const url = urlOf(data.dashboardUrl, '/api/messaging/messages/v2.0.0/send');
	if (typeof url !== 'string') return url;
	return await probeSendEndpoint.call(this, { url, headers: { Authorization: String(data.apiKey ?? '') } });
}

export async function messagingXApiKeyApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const url = urlOf(data.apiUrl, '/v1/messages');
	if (typeof url !== 'string') return url;
	return await probeSendEndpoint.call(this, { url, headers: { 'X-API-Key': String(data.apiKey ?? '') } });
}
