import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { assistantRoutes } from '../../src/cli/compose/mcp-surface.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { freePort } from '../../src/dev/free-port.js';
import { createTeam, deleteTeam, randomSuffix } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { ReleaseSession } from '../../src/session/flow/release-session.js';
import { TokenStore } from '../../src/session/tokens/token-store.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { startWebServer } from '../../src/web/server/server.js';
import { deleteNamespace, freshNamespace, testEnv } from './fixtures.js';
import { signInAtProvider, type HttpBrowser, type Page } from './http-browser.js';
import { TestClientAuth } from './mcp-oauth-client.js';
import { memoryLogger } from './notify-fixtures.js';
import { startTestOidcProvider } from './oidc-provider.js';

/**
 * The web server as `helmcrew web` builds it with `/mcp` and its OAuth server (assistantRoutes),
 * on real parts: oidc-provider for sign-in (Ana by a verified email, Gus by the group oncall-<suffix>),
 * Redis, the API server's Teams (Ana may list, status, history and suspend in a fresh namespace
 * holding the HelmRelease `unicorn`; the on-call group only status) and the one release session.
 * Its helpers play the MCP SDK's client and the person at the consent page.
 */
export async function startOAuthWeb() {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const suffix = randomSuffix();
  const ana = `ana-${suffix}@example.org`;
  const teamNames = [`oauth-${suffix}`, `oauth-read-${suffix}`];
  const keyspace = `{oauthtest-${suffix}}`;
  const audit = memoryLogger('web');
  const clients: Client[] = [];
  const namespace = await freshNamespace(kubeConfig, 'oauth');
  await applyHelmRelease(
    kubeConfig,
    helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1h' }),
  );
  await createTeam(kube, teamNames[0]!, {
    members: { emails: [ana] },
    permissions: [{ namespaces: [namespace], verbs: ['list', 'status', 'history', 'suspend'] }],
  });
  await createTeam(kube, teamNames[1]!, { members: { groups: [`oncall-${suffix}`] }, permissions: [{ namespaces: [namespace], verbs: ['status'] }] });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const provider = await startTestOidcProvider({ redirectUri: `${base}/auth/callback` });
  provider.addAccount({ id: `ana-${suffix}`, email: ana, emailVerified: true });
  provider.addAccount({ id: `gus-${suffix}`, groups: [`oncall-${suffix}`] });
  const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
  const tokens = new TokenStore(redis, keyspace);
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
  const web = await startWebServer(config, {
    redis,
    teams: async () => (await teams.list()).items.map(teamPolicy),
    log,
    pages: assistantRoutes({ rest, redis, keyspace, session, api: parts.api, webUrl: base, log: audit.log }),
  });

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
  return {
    suffix,
    ana,
    namespace,
    base,
    mcpUrl,
    redis,
    tokens,
    keyspace,
    audit,
    formOf,
    answer,
    async connect(auth: TestClientAuth) {
      const client = new Client({ name: 'helmcrew-oauth-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
      clients.push(client);
      return client;
    },
    tokenRequest: (form: Record<string, string>) =>
      fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) }),
    /** The SDK's whole flow as `browser`'s person: 401 → discovery → registration → consent → code → tokens. */
    async authorize(browser: HttpBrowser, decision: string, login = `ana-${suffix}`) {
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
    },
    async stop() {
      for (const client of clients) await client.close().catch(() => undefined);
      await web.close();
      await provider.stop();
      redis.disconnect();
      await Promise.all(teamNames.map((name) => deleteTeam(kube, name)));
      await deleteNamespace(kubeConfig, namespace);
    },
  };
}

export type OAuthWeb = Awaited<ReturnType<typeof startOAuthWeb>>;
