import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, ILoadOptionsFunctions } from 'n8n-workflow';

import type { BaseUrlPolicy } from './baseUrl';

/**
 * The service's API groups: which credential signs them, which of its fields hold their base URL
 * and their key, and which of the account's limits their requests count toward (`limitGroup`).
 * The direct send and the template send both send the account's messages, and its limits count
 * messages (spec 8; which operations a limit covers is not shown): so they share one, and what
 * the node learns of it (outside review: with one window over both, a bulk direct send took every
 * place as it reopened, and a template send beside it failed at Max Wait with none sent).
 */
export const SERVICE_APIS = {
	send: { limitGroup: 'messages', credentialType: 'messagingBearerApi', baseUrlField: 'sendBaseUrl', baseUrlLabel: 'Send Base URL', urlPolicy: 'httpsOrLoopback', keyField: 'accessToken', keyLabel: 'Access Token' },
	templateSend: { limitGroup: 'messages', credentialType: 'messagingBearerApi', baseUrlField: 'templateSendBaseUrl', baseUrlLabel: 'Template Send Base URL', urlPolicy: 'httpsOrLoopback', keyField: 'accessToken', keyLabel: 'Access Token' },
	templates: { limitGroup: 'templates', credentialType: 'messagingBearerApi', baseUrlField: 'templatesBaseUrl', baseUrlLabel: 'Templates Base URL', urlPolicy: 'httpsOrLoopback', keyField: 'accessToken', keyLabel: 'Access Token' },
	dashboard: { limitGroup: 'dashboard', credentialType: 'messagingAuthorizationKeyApi', baseUrlField: 'dashboardUrl', baseUrlLabel: 'Dashboard URL', urlPolicy: 'httpsOrLoopback', keyField: 'apiKey', keyLabel: 'API Key' },
	alternative: { limitGroup: 'alternative', credentialType: 'messagingXApiKeyApi', baseUrlField: 'apiUrl', baseUrlLabel: 'API URL', urlPolicy: 'httpsOrLoopback', keyField: 'apiKey', keyLabel: 'API Key' },
	// The sandbox is plain http by design.
	sandbox: { limitGroup: 'sandbox', credentialType: 'messagingBearerApi', baseUrlField: 'sandboxBaseUrl', baseUrlLabel: 'Sandbox Base URL', urlPolicy: 'any', keyField: 'accessToken', keyLabel: 'Access Token' },
} as const satisfies Record<string, { limitGroup: string; credentialType: string; baseUrlField: string; baseUrlLabel: string; urlPolicy: BaseUrlPolicy; keyField: string; keyLabel: string }>;

export type ServiceApi = keyof typeof SERVICE_APIS;

export interface ServiceRequest {
	api: ServiceApi;
	method: IHttpRequestMethods;
	/** Appended to the API's base URL, e.g. `/send`. */
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** The endpoint's success answer as the spec gives it; any other 2xx answer is a failure. */
	isSuccess: (body: unknown) => boolean;
}

/** Who sends: a node's execution, or an editor call (the template picker, the variable fields). */
export type RequestContext = IExecuteFunctions | ILoadOptionsFunctions;
