import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../support/http-browser.js';
import { registerByHand } from '../support/mcp-oauth-client.js';
import { startOAuthWeb, type OAuthWeb } from '../support/oauth-web.js';

/**
 * What the assistants' OAuth refuses, on the real parts of mcp-oauth.test.ts: a wrong PKCE verifier,
 * Deny, a redirect URI never registered, plain PKCE, a plain-http redirect off loopback, a consent
 * POST without its CSRF token, an expired token at `/mcp`, too many registrations.
 */
describe('assistants through OAuth (MCP): refusals', () => {
  let web: OAuthWeb;
  let base: string, ana: string;
  const anaBrowser = new HttpBrowser();

  beforeAll(async () => {
    web = await startOAuthWeb();
    ({ base, ana } = web);
    // Ana signs in once; every consent page below is hers.
    await web.authorize(anaBrowser, 'allow-read');
  }, 120_000);
  afterAll(async () => web?.stop());

  it('a wrong code_verifier gets invalid_grant, and the code is spent', async () => {
    const hand = await registerByHand(base);
    const consent = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    expect(consent.status).toBe(200);
    const code = (await web.answer(anaBrowser, consent, 'allow-read')).searchParams.get('code')!;
    const wrong = await hand.exchange(code, oidc.randomPKCECodeVerifier());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('PKCE') });
    const late = await hand.exchange(code, hand.verifier);
    expect(await late.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('Deny sends access_denied back to the client, with its state; no code', async () => {
    const hand = await registerByHand(base);
    const consent = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    const back = await web.answer(anaBrowser, consent, 'deny');
    expect(`${back.origin}${back.pathname}`).toBe(hand.redirectUri);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('by-hand');
    expect(back.searchParams.get('code')).toBeNull();
    // The consent request is taken once: answering it again allows nothing.
    const again = await anaBrowser.request(`${base}/oauth/authorize`, { form: { ...web.formOf(consent), decision: 'allow-read' } });
    expect(again.status).toBe(400);
  });

  it('a redirect URI the client did not register is refused on a page, never redirected to', async () => {
    const hand = await registerByHand(base);
    hand.query.set('redirect_uri', 'http://127.0.0.1:1/elsewhere');
    const page = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.body).toContain('not one this client registered');
    // plain PKCE goes back to the (registered) client as an error.
    const plain = await registerByHand(base);
    plain.query.set('code_challenge_method', 'plain');
    const back = await anaBrowser.request(`${base}/oauth/authorize?${plain.query}`);
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('registration refuses a plain-http redirect URI off loopback, and a POST to the consent without the CSRF token changes nothing', async () => {
    const refused = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://assistant.example.org/cb'], client_name: 'x' }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const hand = await registerByHand(base);
    const consent = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    const forged = await anaBrowser.request(`${base}/oauth/authorize`, { form: { request: web.formOf(consent).request, decision: 'allow-read' } });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('an expired token gets a 401 whose challenge points at the metadata and says invalid_token', async () => {
    const expired = (await web.tokens.create('', 'read', 60_000, Date.now() - 120_000, { person: { id: `oidc:${ana}`, email: ana } })).token;
    const answerTo = await fetch(web.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${expired}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(answerTo.status).toBe(401);
    const challenge = answerTo.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toMatch(/error="invalid_token", error_description="token [0-9a-f]{12} expired at /);
  });

  // Last: it spends this address's registrations for the minute.
  it('registration is rate-limited per address (30 a minute), answered as OAuth JSON, not a page', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const sent = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [] }),
      });
      if (sent.status === 429) limited = sent;
      else expect(sent.status).toBe(400);
    }
    expect(limited?.headers.get('content-type')).toContain('application/json');
    expect(await limited?.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('too many requests') });
  });
});
