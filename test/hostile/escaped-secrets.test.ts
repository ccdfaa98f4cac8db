/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- not shipped: test code, run by Node outside n8n; a test token (README: Lint) */
/**
 * A service (or whatever answers in its place) that echoes the key in a form no list of text forms
 * holds: JSON escapes that parsing turns back into the key (\u0052, PHP's \/), and headers that
 * end up in an error's words. Found by an outside review; each failed before the fix.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { runOn } from '../emulator/use';
import { credentialsAt, json, useServers } from './servers';

const TOKEN = 'Review-Token-0123456789';
const SLASH_KEY = 'Key+With/Special=Chars99';
const serve = useServers();

const credentialsFor = (url: string, key = TOKEN) => credentialsAt(url, key);

async function runSend(url: string, { key = TOKEN, continueOnFail = false, options = {} as IDataObject } = {}) {
	return await runOn(
		{ credentials: credentialsFor(url, key) },
		{ parameters: { resource: 'message', operation: 'send', phone: '+14155550100', text: 'hello', options }, items: [{}], continueOnFail },
	);
}

const everything = (run: Awaited<ReturnType<typeof runSend>>) =>
	JSON.stringify({ message: run.error?.message, description: (run.error as { description?: string })?.description, error: run.error, items: run.items, run: run.run });

// \u0052 = 'R'
const U_ESCAPED = '\\u0052eview-Token-0123456789';

describe('a key echoed in a form only parsing reveals, or in a header', () => {
	it('401 body with the token JSON-escaped as \\u0052…: not in the error', async () => {
		const { url } = await serve((_req, res) => json(res, 401, `{"message":"Message sending failed | Reason: bad key ${U_ESCAPED}"}`));
		const run = await runSend(url);
		expect(run.error?.message).toBeDefined();
		expect(everything(run)).not.toContain(TOKEN);
	});

	it('401 body with a key containing "/" echoed PHP-style as "\\/": not in the error', async () => {
		const phpEscaped = SLASH_KEY.replace('/', '\\/');
		const { url } = await serve((_req, res) => json(res, 401, `{"message":"Message sending failed | Reason: bad key ${phpEscaped}"}`));
		const run = await runSend(url, { key: SLASH_KEY });
		expect(run.error?.message).toBeDefined();
		expect(everything(run)).not.toContain(SLASH_KEY);
	});

	it('200 success with includeRawResponse, token \\u-escaped in a field: not in the output item', async () => {
		const { url } = await serve((_req, res) => json(res, 200, `{"message":"Message sent successfully","debug":"${U_ESCAPED}"}`));
		const run = await runSend(url, { options: { includeRawResponse: true } });
		expect(run.error).toBeUndefined();
		expect(everything(run)).not.toContain(TOKEN);
	});

	it('template getAll: a record echoing the token \\u-escaped: not in the output items', async () => {
		const { url } = await serve((_req, res) =>
			json(res, 200, `[{"id":1,"name":"t ${U_ESCAPED}","status":"APPROVED","template_id":"11111111-1111-4111-8111-111111111111"}]`),
		);
		const run = await runOn({ credentials: credentialsFor(url) }, { parameters: { resource: 'template', operation: 'getAll', returnAll: true, options: {} }, items: [{}] });
		expect(run.error).toBeUndefined();
		expect(JSON.stringify(run.items)).not.toContain(TOKEN);
	});

	it('200 text answer whose content-type echoes the token: not in the error', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': `text/${TOKEN}` });
			res.end('<html>hi</html>');
		});
		const run = await runSend(url, { continueOnFail: true });
		expect(everything(run)).not.toContain(TOKEN);
	});

	it('302 whose Location host is the token: not in the error', async () => {
		const { url } = await serve((_req, res) => {
			res.writeHead(302, { location: `http://${TOKEN}.example.com/x` });
			res.end();
		});
		const run = await runSend(url, { continueOnFail: true });
		expect(everything(run).toLowerCase()).not.toContain(TOKEN.toLowerCase());
	});

	it.each([
		['Go html/template ("+" as &#43;)', SLASH_KEY, SLASH_KEY.replace('+', '&#43;')],
		['decimal entities', SLASH_KEY, 'Key&#43;With&#47;Special&#61;Chars99'],
		['hex entities', SLASH_KEY, 'Key&#x2b;With&#x2f;Special&#x3d;Chars99'],
		['hex bytes', TOKEN, Buffer.from(TOKEN).toString('hex')],
		['hex bytes, capitals', TOKEN, Buffer.from(TOKEN).toString('hex').toUpperCase()],
	])('400 page echoing the key as %s: not in the error', async (_form, key, echoed) => {
		const { url } = await serve((_req, res) => json(res, 400, { message: `Message sending failed | Reason: bad key ${echoed}` }));
		const run = await runSend(url, { key, continueOnFail: true });
		expect(String(run.items[0].json.error)).toMatch(/bad key \[redacted\]/);
		expect(everything(run)).not.toContain(echoed);
	});

	it('credential test: 401 with the token \\u-escaped', async () => {
		const { callCredentialTest } = await import('../harness');
		const { url } = await serve((_req, res) => json(res, 401, `{"message":"Message sending failed | Reason: bad key ${U_ESCAPED}"}`));
		const result = await callCredentialTest({ nodeType: 'messaging', credentialType: 'messagingXApiKeyApi', data: { apiKey: TOKEN, apiUrl: url } });
		expect(result.message).not.toContain(TOKEN);
	});
});
