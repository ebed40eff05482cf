import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { createTeam, deleteTeam, randomSuffix } from '../../src/dev/harness/index.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { renderLayout } from '../../src/web/render/layout.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { startWebServer, type RunningWebServer } from '../../src/web/server/server.js';
import { startBrowser, type TestBrowser } from '../support/browser.js';
import { testEnv } from '../support/fixtures.js';
import { startTestOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

/**
 * The web surface's sign-in on real parts: Chromium, oidc-provider, the fake Slack's Sign in with
 * Slack, Redis for sessions and the API server for Teams. A tiny page stands in for the release
 * pages: it shows who is signed in and counts POSTs, so "nothing happened" can be seen.
 */
describe('web sign-in', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const suffix = randomSuffix();
  const team = `web-${suffix}`;
  const slackUser = 'U0WEBBEA';
  const log = createLogger('web-test', 'warn');
  let redis: Redis;
  let provider: TestOidcProvider;
  let slack: FakeSlack;
  let web: RunningWebServer;
  let url: string;
  let browser: TestBrowser;
  let pokes = 0;

  const page = (app: FastifyInstance) => {
    app.get('/', async (request, reply) =>
      reply.type('text/html; charset=utf-8').send(
        renderLayout({
          title: 'Test page',
          signedIn: { name: request.web!.principal.name, via: request.web!.principal.via },
          csrfToken: request.web!.csrfToken,
          body: `<p id="who">signed in as ${request.web!.principal.name.replace(/[<&>"]/g, '')}</p><form method="post" action="/poke"><input type="hidden" name="_csrf" value="${request.web!.csrfToken}"><button id="poke" type="submit">Poke</button></form><p>pokes: ${pokes}</p>`,
        }),
      ),
    );
    app.post('/poke', async (_request, reply) => {
      pokes += 1;
      return reply.redirect('/', 303);
    });
  };

  const startWeb = async (extra: Record<string, string> = {}, port?: number) => {
    port ??= await freePort();
    const address = `http://127.0.0.1:${port}`;
    const config = readWebConfig({
      REDIS_URL: env.redisUrl,
      HELMCREW_QUEUE_PREFIX: `web-${suffix}`,
      HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
      HELMCREW_WEB_URL: address,
      HELMCREW_OIDC_ISSUER_URL: provider.issuer,
      HELMCREW_OIDC_CLIENT_ID: provider.clientId,
      HELMCREW_OIDC_CLIENT_SECRET: provider.clientSecret,
      HELMCREW_OIDC_SCOPES: 'openid email profile groups',
      HELMCREW_SLACK_OIDC_CLIENT_ID: 'slack-client',
      HELMCREW_SLACK_OIDC_CLIENT_SECRET: 'slack-secret',
      HELMCREW_SLACK_OIDC_ISSUER_URL: slack.origin,
      // Every sign-in of this file comes from one address; the limit has its own test below.
      HELMCREW_WEB_LOGIN_RATE_LIMIT: '1000',
      ...extra,
    });
    const teams = new TeamApi(slimKubeClients(connectKube(env.kubeconfig)));
    return startWebServer(config, { redis, teams: async () => (await teams.list()).items.map(teamPolicy), log, pages: [page] });
  };

  const signInWithProvider = async (login: string) => {
    await browser.driver.manage().deleteAllCookies();
    await browser.open(`${url}/`);
    await browser.click('form[action="/auth/login/oidc"] button');
    await browser.type('input[name=login]', login);
    await browser.type('input[name=password]', 'any');
    await browser.click('button[type=submit]');
    // oidc-provider's consent page.
    await browser.waitForText('Continue');
    await browser.click('button[type=submit]');
  };

  const sessionCookie = async () => `helmcrew-session=${await browser.cookie('helmcrew-session')}`;

  beforeAll(async () => {
    redis = new Redis(env.redisUrl);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // The provider needs the redirect URI before the server starts: both on this port.
    provider = await startTestOidcProvider({ redirectUri: `${url}/auth/callback` });
    provider.addAccount({ id: `ana-${suffix}`, email: `ana-${suffix}@example.org`, emailVerified: true });
    provider.addAccount({ id: `gus-${suffix}`, groups: [`oncall-${suffix}`] });
    provider.addAccount({ id: `eve-${suffix}`, email: `eve-${suffix}@example.org`, emailVerified: false, groups: [`visitors-${suffix}`] });
    slack = await startFakeSlack({ users: [{ id: slackUser, name: 'bea' }], oidcClients: [{ clientId: 'slack-client', clientSecret: 'slack-secret' }] });
    await createTeam(kube, team, {
      // Eve's email is listed, but her provider does not vouch for it: she must not be a member.
      members: { emails: [`ana-${suffix}@example.org`, `eve-${suffix}@example.org`], groups: [`oncall-${suffix}`], slackUsers: [slackUser] },
    });
    web = await startWeb({}, port);
    browser = await startBrowser(1280);
  }, 120_000);

  afterAll(async () => {
    await browser?.quit();
    await web?.close();
    await Promise.all([provider?.stop(), slack?.stop(), deleteTeam(kube, team)]);
    redis?.disconnect();
  });

  it('a Team member by verified email signs in through the OIDC provider, sees the page, and signs out', async () => {
    await signInWithProvider(`ana-${suffix}`);
    await browser.waitForText(`signed in as ana-${suffix}@example.org`);
    await browser.screenshot(`.helmcrew/screenshots/web-signin-email-1280.png`);
    const cookie = await sessionCookie();
    await browser.click('form.who button');
    await browser.waitForText('Sign in to helmcrew');
    // The session is gone from Redis: the old cookie leads to the sign-in page.
    const after = await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/auth/login?returnTo=%2F');
  });

  it('a Team member by the provider’s groups signs in', async () => {
    await signInWithProvider(`gus-${suffix}`);
    await browser.waitForText(`signed in as gus-${suffix}`);
  });

  it('Sign in with Slack (the fake Slack’s OIDC) makes the same Slack user a member by slackUsers', async () => {
    await browser.driver.manage().deleteAllCookies();
    await browser.open(`${url}/`);
    await browser.click('form[action="/auth/login/slack"] button');
    await browser.click(`#user-${slackUser}`);
    await browser.waitForText('signed in as @bea');
    expect(slack.oidcTokenCalls).toContainEqual({ ok: true });
  });

  it('an unverified email is not a member, though a Team lists it: a clear 403 naming who they are', async () => {
    await signInWithProvider(`eve-${suffix}`);
    await browser.waitForText('No access');
    expect(await browser.text()).toContain(`You are signed in as eve-${suffix}`);
  });

  it('a forged state gets a 400 page and no session', async () => {
    await browser.driver.manage().deleteAllCookies();
    await browser.open(`${url}/`);
    await browser.click('form[action="/auth/login/oidc"] button');
    await browser.find('input[name=login]');
    // Back to helmcrew's callback with a state this sign-in never issued.
    await browser.open(`${url}/auth/callback?code=forged&state=forged-state`);
    await browser.waitForText('Sign-in failed');
    expect(await browser.cookie('helmcrew-session')).toBeUndefined();
    // Replayed: the sign-in under way was used up by the first callback.
    const replay = await fetch(`${url}/auth/callback?code=forged&state=forged-state`);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already used');
  });

  it('a POST without the CSRF token (or a wrong one) is refused with 403 and changes nothing', async () => {
    await signInWithProvider(`ana-${suffix}`);
    await browser.waitForText('pokes: 0');
    const cookie = await sessionCookie();
    const post = (body: string) =>
      fetch(`${url}/poke`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
    const missing = await post('');
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('CSRF token is missing or wrong');
    expect((await post('_csrf=wrong')).status).toBe(403);
    expect(pokes).toBe(0);
    // The page's own form carries it: the same POST goes through.
    await browser.click('#poke');
    await browser.waitForText('pokes: 1');
  });

  it('a person removed from the Team gets 403 on the next request', async () => {
    await signInWithProvider(`ana-${suffix}`);
    await browser.waitForText(`signed in as ana-${suffix}@example.org`);
    // Ana's email leaves the Team (the Team written again without it).
    await deleteTeam(kube, team);
    await createTeam(kube, team, { members: { emails: [`eve-${suffix}@example.org`], groups: [`oncall-${suffix}`], slackUsers: [slackUser] } });
    await browser.open(`${url}/`);
    await browser.waitForText('No access');
    expect(await browser.text()).toContain(`You are signed in as ana-${suffix}@example.org`);
  });

  it('pages carry the security headers, errors included', async () => {
    for (const path of ['/healthz', '/nowhere', '/auth/login']) {
      const answer = await fetch(`${url}${path}`, { redirect: 'manual' });
      expect(answer.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      expect(answer.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(answer.headers.get('referrer-policy'), path).toBe('same-origin');
    }
  });

  it('login attempts are rate-limited: a 429 page', async () => {
    // Its own key prefix: the budget is counted in Redis, per address, across replicas.
    const limited = await startWeb({ HELMCREW_WEB_LOGIN_RATE_LIMIT: '3', HELMCREW_QUEUE_PREFIX: `web-limited-${suffix}` });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await fetch(`${limited.address}/auth/login`)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(await (await fetch(`${limited.address}/auth/login`)).text()).toContain('Too many sign-in attempts');
      // Only sign-in is limited.
      expect((await fetch(`${limited.address}/healthz`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('the provider down: a 503 page says so, while /healthz and a Slack session keep working', async () => {
    await browser.driver.manage().deleteAllCookies();
    await browser.open(`${url}/`);
    await browser.click('form[action="/auth/login/slack"] button');
    await browser.click(`#user-${slackUser}`);
    await browser.waitForText('signed in as @bea');
    await provider.stop();
    const down = await fetch(`${url}/auth/login/oidc`, { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(await down.text()).toContain('The sign-in provider does not answer');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await browser.open(`${url}/`);
    await browser.waitForText('signed in as @bea');
  });

  it('reads at a phone’s width (375 px)', async () => {
    const phone = await startBrowser(375);
    try {
      await phone.open(`${url}/auth/login`);
      await phone.waitForText('Sign in with Slack');
      await phone.screenshot(`.helmcrew/screenshots/web-signin-375.png`);
      const width = await phone.driver.executeScript<number>('return document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(375);
    } finally {
      await phone.quit();
    }
  });
});
