import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanStore } from '../../src/session/execute/plan-store.js';
import { hashToken } from '../../src/session/tokens/token-store.js';
import { HttpBrowser } from '../support/http-browser.js';
import { startOAuthWeb, type OAuthWeb } from '../support/oauth-web.js';

/**
 * OAuth 2.1 for `/mcp` on real parts (test/support/oauth-web.ts: the web server with `/mcp` and its
 * authorization server, oidc-provider, Redis, the Teams and the release session). The MCP SDK's own
 * client gets a 401, discovers, registers and is sent to the consent page; the test plays the person
 * (an HTTP browser with a real web session) and hands the code back to the SDK. Refusals:
 * mcp-oauth-refusals.test.ts.
 */
describe('assistants through OAuth (MCP)', () => {
  let web: OAuthWeb;
  let base: string, namespace: string, ana: string, suffix: string, keyspace: string;
  const anaBrowser = new HttpBrowser();
  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

  beforeAll(async () => {
    web = await startOAuthWeb();
    ({ base, namespace, ana, suffix, keyspace } = web);
  }, 120_000);
  afterAll(async () => web?.stop());

  it('publishes where the tokens come from: the resource’s metadata and its authorization server’s', async () => {
    const resource = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(resource).toMatchObject({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['read', 'propose'],
      bearer_methods_supported: ['header'],
    });
    const server = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    const none = await fetch(web.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('the SDK’s client signs in through the web as Ana, lists the tools and reads a release as her; she may propose, not apply', async () => {
    const { auth, consent, back } = await web.authorize(anaBrowser, 'allow-propose');
    // The consent page names the client (escaped: its name is the client's to choose), where it goes, the scope and the person.
    expect(consent.body).toContain('Test &lt;script&gt;alert(1)&lt;&#x2F;script&gt; assistant');
    expect(consent.body).not.toContain('<script>');
    expect(consent.body).toContain(`as <strong>${ana}</strong>`);
    expect(consent.body).toContain('propose changes in your name');
    expect(back.searchParams.get('state')).toBe('state-42');
    expect(back.searchParams.get('iss')).toBe(base);
    expect(auth.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read propose', refresh_token: expect.stringMatching(/^hcrt_/) });
    const client = await web.connect(auth);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('propose_change');
    const status = textOf(await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } }));
    expect(status).toMatch(new RegExp(`^<untrusted-data>\\n${namespace}/unicorn: chart unicorn 1.0.0 declared`));
    const proposed = await client.callTool({ name: 'propose_change', arguments: { verb: 'suspend', namespace, name: 'unicorn', reason: 'quiet night' } });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const { planId } = proposed.structuredContent as { planId: string };
    expect(await new PlanStore(web.redis, keyspace, 600).peek(planId)).toMatchObject({
      awaitingApproval: true,
      requester: { id: `oidc:${ana}`, slackUser: '', via: 'assistant' },
    });
    // The Team did not grant rollback: the scope is only an upper bound.
    const rollback = await client.callTool({ name: 'propose_change', arguments: { verb: 'rollback', namespace, name: 'unicorn', reason: 'go back' } });
    expect(rollback.isError).toBe(true);
    expect(textOf(rollback)).toMatch(/Refused: you may not rollback/);
    // The token is stored as a hash, as Ana's, issued to this client; every audit line says so, never the token.
    const verdict = await web.tokens.verdict(auth.saved!.access_token);
    expect(verdict).toMatchObject({
      kind: 'ok',
      record: { user: '', person: { id: `oidc:${ana}`, email: ana }, client: { name: 'Test <script>alert(1)</script> assistant' } },
    });
    const lines = web.audit.lines.join('');
    expect(lines).toContain('"origin":"oauth client \\"Test <script>alert(1)</script> assistant\\"');
    expect(lines).toContain('issued an assistant token through OAuth');
    expect(lines).not.toContain(auth.saved!.access_token);
    expect(lines).not.toContain(auth.saved!.refresh_token);
    expect(await web.redis.keys(`*${auth.saved!.access_token}*`)).toEqual([]);
  });

  it('a person in a Team by the provider’s groups gets a token matched by those groups', async () => {
    const gus = new HttpBrowser();
    const { auth } = await web.authorize(gus, 'allow-read', `gus-${suffix}`);
    const client = await web.connect(auth);
    const status = await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect((await client.callTool({ name: 'release_history', arguments: { namespace, name: 'unicorn' } })).isError).toBe(true);
  });

  it('Allow reading only: the token may not propose', async () => {
    const { auth } = await web.authorize(anaBrowser, 'allow-read');
    expect(auth.saved?.scope).toBe('read');
    const client = await web.connect(auth);
    const refused = await client.callTool({ name: 'propose_change', arguments: { verb: 'suspend', namespace, name: 'unicorn', reason: 'quiet night' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('needs a "propose" token. Nothing changed. Authorize again and ask the person to allow proposing.');
  });

  it('a code used twice is refused, and the token it issued is revoked; helmcrew token revoke works on OAuth tokens too', async () => {
    const { auth, code } = await web.authorize(anaBrowser, 'allow-read');
    const client = await web.connect(auth);
    expect((await client.callTool({ name: 'list_freezes', arguments: {} })).isError).toBeFalsy();
    const again = await web.tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: auth.verifier,
      client_id: auth.info!.client_id,
      redirect_uri: auth.redirectUrl,
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    expect((await web.tokens.verdict(auth.saved!.access_token)).kind).toBe('revoked');
    await expect(client.callTool({ name: 'list_freezes', arguments: {} })).rejects.toThrow();
    // A second token, revoked by its id as `helmcrew token revoke <id>` does.
    const second = await web.authorize(anaBrowser, 'allow-read');
    const verdict = await web.tokens.verdict(second.auth.saved!.access_token);
    expect(await web.tokens.revoke(verdict.kind === 'ok' ? verdict.record.id : 'none')).toMatchObject({
      client: { name: 'Test <script>alert(1)</script> assistant' },
    });
    const after = await fetch(web.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${second.auth.saved!.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="token [0-9a-f]{12} was revoked"/);
    // Revoking the access token ends its refresh token too.
    const refreshed = await web.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: second.auth.saved!.refresh_token!,
      client_id: second.auth.info!.client_id,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('was revoked') });
  });

  it('the SDK refreshes by itself when its access token is refused; refresh tokens rotate, and a replayed one ends the whole sign-in', async () => {
    const { auth } = await web.authorize(anaBrowser, 'allow-propose');
    const first = auth.saved!;
    expect(first.refresh_token).toMatch(/^hcrt_/);
    // An hour passes for the access token (its record says it expired): the SDK refreshes and carries on.
    const key = `${keyspace}:mcp:token:${hashToken(first.access_token)}`;
    await web.redis.set(key, JSON.stringify({ ...(JSON.parse((await web.redis.get(key))!) as object), expiresAt: Date.now() - 1 }), 'KEEPTTL');
    expect((await web.tokens.verdict(first.access_token)).kind).toBe('expired');
    const client = await web.connect(auth);
    expect((await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } })).isError).toBeFalsy();
    const second = auth.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // By hand, narrowed to read: a third pair; the second refresh token is spent.
    const narrowed = await web.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token!,
      client_id: auth.info!.client_id,
      scope: 'read',
    });
    expect(narrowed.status).toBe(200);
    const third = (await narrowed.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(third.scope).toBe('read');
    expect((await web.tokens.verdict(third.access_token)).kind).toBe('ok');
    // The spent one again: everything of this sign-in is revoked, the live refresh token too.
    const replayed = await web.tokenRequest({ grant_type: 'refresh_token', refresh_token: second.refresh_token!, client_id: auth.info!.client_id });
    expect(await replayed.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
    expect((await web.tokens.verdict(second.access_token)).kind).toBe('revoked');
    expect((await web.tokens.verdict(third.access_token)).kind).toBe('revoked');
    const live = await web.tokenRequest({ grant_type: 'refresh_token', refresh_token: third.refresh_token, client_id: auth.info!.client_id });
    expect(await live.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
