import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantRoutes } from '../../src/cli/compose/mcp-surface.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { freePort } from '../../src/dev/free-port.js';
import { createTeam, deleteTeam, randomSuffix } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { PlanStore } from '../../src/session/execute/plan-store.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { ReleaseSession } from '../../src/session/flow/release-session.js';
import { TokenStore } from '../../src/session/tokens/token-store.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { startWebServer, type RunningWebServer } from '../../src/web/server/server.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { HttpBrowser, signInAtProvider, type Page } from '../support/http-browser.js';
import { registerByHand, TestClientAuth } from '../support/mcp-oauth-client.js';
import { memoryLogger } from '../support/notify-fixtures.js';
import { startTestOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

/**
 * OAuth 2.1 for `/mcp` on real parts: the web server as `helmcrew web` builds it with `/mcp` and
 * its authorization server mounted (assistantRoutes), oidc-provider for the person's sign-in, Redis,
 * the API server's Teams and the one release session. The MCP SDK's own client discovers, registers,
 * is sent to the consent page; the test plays the person (an HTTP browser with a real session) and
 * hands the code back to the SDK.
 */
describe('assistants through OAuth (MCP)', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const suffix = randomSuffix();
  const ana = `ana-${suffix}@example.org`;
  const team = `oauth-${suffix}`;
  const readers = `oauth-read-${suffix}`;
  const keyspace = `{oauthtest-${suffix}}`;
  const audit = memoryLogger('web');
  const clients: Client[] = [];
  let namespace: string;
  let provider: TestOidcProvider;
  let web: RunningWebServer;
  let base: string;
  let mcpUrl: URL;
  let redis: Redis;
  let tokens: TokenStore;
  const anaBrowser = new HttpBrowser();

  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  const connect = async (auth: TestClientAuth) => {
    const client = new Client({ name: 'helmcrew-oauth-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    clients.push(client);
    return client;
  };
  const formOf = (page: Page) => ({
    request: /name="request" value="([^"]+)"/.exec(page.body)![1]!,
    _csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!,
  });
  /** The person's answer on the consent page: the redirect back to the client, not followed. */
  const answer = async (browser: HttpBrowser, consent: Page, decision: string) => {
    const sent = await browser.request(`${base}/oauth/authorize`, { form: { ...formOf(consent), decision } });
    expect(sent.status).toBe(303);
    return new URL(sent.headers.get('location')!);
  };
  /** The SDK's whole flow as `browser`'s person: 401 → discovery → registration → consent → code → tokens. */
  const authorize = async (browser: HttpBrowser, decision: string, login = `ana-${suffix}`) => {
    const auth = new TestClientAuth(`http://127.0.0.1:${await freePort()}/callback`);
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const start = auth.authorizationUrl!.href;
    const first = await browser.request(start);
    const consent = first.status === 200 ? first : await signInAtProvider(browser, start, base, login);
    expect(consent.status).toBe(200);
    const back = await answer(browser, consent, decision);
    const code = back.searchParams.get('code')!;
    await transport.finishAuth(code);
    return { auth, consent, back, code };
  };

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'oauth');
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1h' }),
    );
    // Ana (by her verified email) may read and suspend here; the on-call group may only read.
    await createTeam(kube, team, { members: { emails: [ana] }, permissions: [{ namespaces: [namespace], verbs: ['list', 'status', 'history', 'suspend'] }] });
    await createTeam(kube, readers, { members: { groups: [`oncall-${suffix}`] }, permissions: [{ namespaces: [namespace], verbs: ['status'] }] });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    mcpUrl = new URL(`${base}/mcp`);
    provider = await startTestOidcProvider({ redirectUri: `${base}/auth/callback` });
    provider.addAccount({ id: `ana-${suffix}`, email: ana, emailVerified: true });
    provider.addAccount({ id: `gus-${suffix}`, groups: [`oncall-${suffix}`] });
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    tokens = new TokenStore(redis, keyspace);
    const log = createLogger('mcp-oauth-test', 'warn');
    const parts = releaseOperations(kube, log, 'helmcrew-oauth-test');
    const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: 30_000 });
    const rest = connectKube(env.kubeconfig);
    const config = readWebConfig({
      REDIS_URL: env.redisUrl,
      HELMCREW_QUEUE_PREFIX: keyspace,
      HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
      HELMCREW_WEB_URL: base,
      HELMCREW_OIDC_ISSUER_URL: provider.issuer,
      HELMCREW_OIDC_CLIENT_ID: provider.clientId,
      HELMCREW_OIDC_CLIENT_SECRET: provider.clientSecret,
      HELMCREW_OIDC_SCOPES: 'openid email profile groups',
      HELMCREW_WEB_LOGIN_RATE_LIMIT: '1000',
    });
    const teams = new TeamApi(slimKubeClients(rest));
    web = await startWebServer(config, {
      redis,
      teams: async () => (await teams.list()).items.map(teamPolicy),
      log,
      pages: assistantRoutes({ rest, redis, keyspace, session, api: parts.api, webUrl: base, log: audit.log }),
    });
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await web?.close();
    await provider?.stop();
    redis?.disconnect();
    await Promise.all([deleteTeam(kube, team), deleteTeam(kube, readers)]);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

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
    });
    const none = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('the SDK’s client signs in through the web as Ana, lists the tools and reads a release as her; she may propose, not apply', async () => {
    const { auth, consent, back } = await authorize(anaBrowser, 'allow-propose');
    // The consent page names the client (escaped: its name is the client's to choose), where it goes, the scope and the person.
    expect(consent.body).toContain('Test &lt;script&gt;alert(1)&lt;&#x2F;script&gt; assistant');
    expect(consent.body).not.toContain('<script>');
    expect(consent.body).toContain(`as <strong>${ana}</strong>`);
    expect(consent.body).toContain('propose changes in your name');
    expect(back.searchParams.get('state')).toBe('state-42');
    expect(back.searchParams.get('iss')).toBe(base);
    expect(auth.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read propose' });
    const client = await connect(auth);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('propose_change');
    const status = textOf(await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } }));
    expect(status).toMatch(new RegExp(`^<untrusted-data>\\n${namespace}/unicorn: chart unicorn 1.0.0 declared`));
    const proposed = await client.callTool({ name: 'propose_change', arguments: { verb: 'suspend', namespace, name: 'unicorn', reason: 'quiet night' } });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const { planId } = proposed.structuredContent as { planId: string };
    expect(await new PlanStore(redis, keyspace, 600).peek(planId)).toMatchObject({
      awaitingApproval: true,
      requester: { id: `oidc:${ana}`, slackUser: '', via: 'assistant' },
    });
    // The Team did not grant rollback: the scope is only an upper bound.
    const rollback = await client.callTool({ name: 'propose_change', arguments: { verb: 'rollback', namespace, name: 'unicorn', reason: 'go back' } });
    expect(rollback.isError).toBe(true);
    expect(textOf(rollback)).toMatch(/Refused: you may not rollback/);
    // The token is stored as a hash, as Ana's, issued to this client; every audit line says so, never the token.
    const verdict = await tokens.verdict(auth.saved!.access_token);
    expect(verdict).toMatchObject({
      kind: 'ok',
      record: { user: '', person: { id: `oidc:${ana}`, email: ana }, client: { name: 'Test <script>alert(1)</script> assistant' } },
    });
    const lines = audit.lines.join('');
    expect(lines).toContain('"origin":"oauth client \\"Test <script>alert(1)</script> assistant\\"');
    expect(lines).toContain('issued an assistant token through OAuth');
    expect(lines).not.toContain(auth.saved!.access_token);
    expect(await redis.keys(`*${auth.saved!.access_token}*`)).toEqual([]);
  });

  it('a person in a Team by the provider’s groups gets a token matched by those groups', async () => {
    const gus = new HttpBrowser();
    const { auth } = await authorize(gus, 'allow-read', `gus-${suffix}`);
    const client = await connect(auth);
    const status = await client.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect((await client.callTool({ name: 'release_history', arguments: { namespace, name: 'unicorn' } })).isError).toBe(true);
  });

  it('Allow reading only: the token may not propose', async () => {
    const { auth } = await authorize(anaBrowser, 'allow-read');
    expect(auth.saved?.scope).toBe('read');
    const client = await connect(auth);
    const refused = await client.callTool({ name: 'propose_change', arguments: { verb: 'suspend', namespace, name: 'unicorn', reason: 'quiet night' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('needs a "propose" token');
  });

  it('a code used twice is refused, and the token it issued is revoked; helmcrew token revoke works on OAuth tokens too', async () => {
    const { auth, code } = await authorize(anaBrowser, 'allow-read');
    const client = await connect(auth);
    expect((await client.callTool({ name: 'list_freezes', arguments: {} })).isError).toBeFalsy();
    const again = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: auth.verifier,
        client_id: auth.info!.client_id,
        redirect_uri: auth.redirectUrl,
      }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    expect((await tokens.verdict(auth.saved!.access_token)).kind).toBe('revoked');
    await expect(client.callTool({ name: 'list_freezes', arguments: {} })).rejects.toThrow();
    // A second token, revoked by its id as `helmcrew token revoke <id>` does.
    const second = await authorize(anaBrowser, 'allow-read');
    const verdict = await tokens.verdict(second.auth.saved!.access_token);
    expect(await tokens.revoke(verdict.kind === 'ok' ? verdict.record.id : 'none')).toMatchObject({
      client: { name: 'Test <script>alert(1)</script> assistant' },
    });
    const after = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${second.auth.saved!.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="token [0-9a-f]{12} was revoked"/);
  });

  it('a wrong code_verifier gets invalid_grant, and the code is spent', async () => {
    const hand = await registerByHand(base);
    const consent = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    expect(consent.status).toBe(200);
    const code = (await answer(anaBrowser, consent, 'allow-read')).searchParams.get('code')!;
    const wrong = await hand.exchange(code, oidc.randomPKCECodeVerifier());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('PKCE') });
    const late = await hand.exchange(code, hand.verifier);
    expect(await late.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('Deny sends access_denied back to the client, with its state; no code', async () => {
    const hand = await registerByHand(base);
    const consent = await anaBrowser.request(`${base}/oauth/authorize?${hand.query}`);
    const back = await answer(anaBrowser, consent, 'deny');
    expect(`${back.origin}${back.pathname}`).toBe(hand.redirectUri);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('by-hand');
    expect(back.searchParams.get('code')).toBeNull();
    // The consent request is taken once: answering it again allows nothing.
    const again = await anaBrowser.request(`${base}/oauth/authorize`, { form: { ...formOf(consent), decision: 'allow-read' } });
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
    const forged = await anaBrowser.request(`${base}/oauth/authorize`, { form: { request: formOf(consent).request, decision: 'allow-read' } });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('an expired token gets a 401 whose challenge points at the metadata and says invalid_token', async () => {
    const expired = (await tokens.create('', 'read', 60_000, Date.now() - 120_000, { person: { id: `oidc:${ana}`, email: ana } })).token;
    const answerTo = await fetch(mcpUrl, {
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
