import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb } from '../../src/cli/commands/web.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger } from '../../src/core/log.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { freePort } from '../../src/dev/free-port.js';
import { createTeam, deleteTeam, randomSuffix } from '../../src/dev/harness/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { startBrowser, type TestBrowser } from '../support/browser.js';
import { chartFolder, publish, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { startTestOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

/**
 * The web surface end to end on real parts, as `helmcrew web` starts it (startWeb: the release
 * pages, the verbs and the proposal votes over the controller's keyspace): Chromium signs in
 * through a real OIDC provider, reads the fleet and a release, plans an upgrade and reads its diff,
 * confirms it and sees the release change; then two people approve a chart-version proposal in the
 * browser and the controller applies it; a person taken off the Team is refused on their next request.
 */
describe('the web in a browser', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, ctl } = namespaceWithController('webui', { HELMCREW_PROPOSALS_TICK_MS: '300' });
  const suffix = randomSuffix();
  const team = `webui-${suffix}`;
  const ana = `ana-${suffix}`;
  const ben = `ben-${suffix}`;
  const email = (who: string) => `${who}@example.org`;
  const log = createLogger('web-browser-test', 'warn');
  let provider: TestOidcProvider;
  let web: Awaited<ReturnType<typeof startWeb>>;
  let url: string;
  let browser: TestBrowser;
  let repo: TestChartServer;
  let redis: RedisConnection;

  const teamSpec = (emails: string[]): Parameters<typeof createTeam>[2] => ({
    members: { emails },
    permissions: [{ namespaces: [namespace], verbs: ['status', 'list', 'upgrade', 'approve'] }],
  });
  const releasePage = (name: string) => `${url}/releases/-/${namespace}/${name}`;

  const signIn = async (login: string) => {
    await browser.driver.manage().deleteAllCookies();
    await browser.open(`${url}/`);
    await browser.click('form[action="/auth/login/oidc"] button');
    await browser.type('input[name=login]', login);
    await browser.type('input[name=password]', 'any');
    await browser.click('button[type=submit]');
    await browser.waitForText('Continue');
    await browser.click('button[type=submit]');
    await browser.waitForText(email(login), 20_000);
  };

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    repo = await startTestChartServer(await chartFolder(env, ['1.0.0']));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    provider = await startTestOidcProvider({ redirectUri: `${url}/auth/callback` });
    for (const who of [ana, ben]) provider.addAccount({ id: who, email: email(who), emailVerified: true });
    await createTeam(kube, team, teamSpec([email(ana), email(ben)]));
    // `shop` is upgraded from the Act form; `held` takes chart versions in its range only once two people approve.
    await waitForReconciled(
      kubeConfig,
      namespace,
      'shop',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'shop', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } })),
    );
    await waitForReconciled(
      kubeConfig,
      namespace,
      'held',
      await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'held', {
          chart: { repository: repo.url, name: 'unicorn', version: '1.x || 2.x' },
          interval: '1s',
          timeout: '60s',
          approval: { required: 2, expireAfter: '1h' },
        }),
      ),
    );
    const webEnv = {
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      // The controller's keyspace: its previews, plans and proposals.
      HELMCREW_QUEUE_PREFIX: ctl.prefix,
      HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
      HELMCREW_WEB_URL: url,
      HELMCREW_OIDC_ISSUER_URL: provider.issuer,
      HELMCREW_OIDC_CLIENT_ID: provider.clientId,
      HELMCREW_OIDC_CLIENT_SECRET: provider.clientSecret,
      HELMCREW_WEB_LOGIN_RATE_LIMIT: '1000',
      HELMCREW_PREVIEW_TIMEOUT_SECONDS: '60',
    };
    web = await startWeb(readWebConfig(webEnv), log, undefined, webEnv);
    browser = await startBrowser(1280);
  }, 240_000);

  afterAll(async () => {
    await browser?.quit();
    await web?.stop();
    await Promise.all([provider?.stop(), repo?.stop(), deleteTeam(kube, team)]);
    redis?.disconnect();
  });

  it('reads the fleet and a release, plans an upgrade with its diff, confirms it, and the release changes', async () => {
    await signIn(ana);
    await browser.waitForText('shop');
    expect(await browser.text()).toContain('held');
    await browser.screenshot('.helmcrew/screenshots/web-fleet-1280.png');
    // The page came compressed (Chromium accepts gzip): fewer bytes on the wire than it read.
    const [encoded, decoded] = await browser.driver.executeScript<[number, number]>(
      'const n = performance.getEntriesByType("navigation")[0]; return [n.encodedBodySize, n.decodedBodySize]',
    );
    expect(encoded).toBeGreaterThan(0);
    expect(encoded).toBeLessThan(decoded / 2);

    await browser.click(`a[href="/releases/-/${namespace}/shop"]`);
    await browser.waitForText('Conditions');
    await browser.waitForText('Timeline');

    // The Act form's upgrade to 2.0.0: a GET to the plan page, which changes nothing.
    const upgrade = 'form.act:has(input[name=verb][value=upgrade])';
    await browser.type(`${upgrade} input[name=version]`, '2.0.0');
    await browser.click(`${upgrade} button[type=submit]`);
    await browser.waitForText('Plan:', 90_000);
    await browser.waitForText('data["index.html"]', 5_000);
    const plan = await browser.text();
    expect(plan).toMatch(/pink.*→.*blue/);
    expect((await api.get(namespace, 'shop'))?.spec.chart.version).toBe('1.0.0');
    // The object-by-object diff in view: the ConfigMap's page, pink → blue.
    await browser.driver.executeScript('document.querySelector("section.diff").scrollIntoView()');
    await browser.screenshot('.helmcrew/screenshots/web-diff-1280.png');

    await browser.click('form[action$="/confirm"] button');
    await browser.waitForText('Confirmed');
    await pollUntil(
      async () => ((await api.get(namespace, 'shop'))?.status?.history?.[0]?.chartVersion === '2.0.0' ? true : undefined),
      { timeoutMs: 90_000 },
      () => 'shop was not upgraded to 2.0.0',
    );
    await browser.open(releasePage('shop'));
    await browser.waitForText('unicorn 2.0.0 declared');
    // The timeline names who asked, and that it came from the web.
    expect(await browser.text()).toMatch(new RegExp(`oidc:${email(ana).replace(/\./g, '\\.')} web`));
    // Written where a run leaves its output (.helmcrew/, ignored); docs/images/ holds a copy chosen by hand.
    await browser.screenshot('.helmcrew/screenshots/web-release-1280.png');
  }, 240_000);

  it('two people approve a chart-version proposal in the browser and it applies; one taken off the Team is refused', async () => {
    const store = new ProposalStore(redis, clusterKey(ctl.prefix, 'proposals'));
    await publish(env, repo.dir, ['2.0.0']);
    const proposal = await pollUntil(
      async () => (await store.list()).find((p) => p.release.namespace === namespace && p.release.name === 'held' && p.state.phase === 'open'),
      { timeoutMs: 60_000 },
      () => 'no open proposal for held',
    );
    const approve = `article[id="proposal-${proposal.id}"] form[action$="/vote"]:has(input[value=approve]) button`;

    // Ana (still signed in) approves on the proposals page: one of two.
    await browser.open(`${url}/proposals`);
    await browser.waitForText(proposal.summary);
    await browser.click(approve);
    await browser.waitForText('Your approval is counted');
    expect((await store.get(proposal.id))?.state).toMatchObject({ phase: 'open', approvers: [`oidc:${email(ana)}`] });
    // The same person again does not count twice: a 403 page with the reason.
    await browser.open(`${url}/proposals`);
    await browser.click(approve);
    await browser.waitForText('Not counted');
    expect((await store.get(proposal.id))?.state.approvers).toHaveLength(1);
    // What the browser saw, by status: the refusal is a 403; a vote that is neither approve nor reject a 400.
    const csrf = await (await browser.find('input[name=_csrf]')).getAttribute('value');
    const vote = (choice: string) =>
      fetch(`${url}/proposals/${proposal.release.cluster}/${proposal.id}/vote`, {
        method: 'POST',
        headers: { cookie: `helmcrew-session=${anaCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf ?? '', choice }).toString(),
        redirect: 'manual',
      });
    const anaCookie = await browser.cookie('helmcrew-session');
    expect((await vote('approve')).status).toBe(403);
    const bad = await vote('<b>maybe</b>');
    expect([bad.status, await bad.text()]).toEqual([400, expect.stringContaining('not "&lt;b&gt;maybe&lt;')]);

    // Ben, a second person, approves from the release page: approved, and the controller applies it.
    await signIn(ben);
    await browser.open(releasePage('held'));
    await browser.waitForText('Open proposals');
    await browser.click(approve);
    await browser.waitForText('Approved');
    await pollUntil(
      async () => ((await api.get(namespace, 'held'))?.status?.history?.[0]?.chartVersion === '2.0.0' ? true : undefined),
      { timeoutMs: 90_000 },
      () => 'the approved chart version was not applied',
    );
    // Each vote is audited on the HelmRelease, "via web".
    const events = (await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=held,reason=ActionRequested' })).items;
    expect(events.map((e) => e.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^oidc:${email(ben).replace(/\./g, '\\.')} via web approved proposal ${proposal.id}`))]),
    );

    // Ben taken off the Team: his next request is refused.
    await deleteTeam(kube, team);
    await createTeam(kube, team, teamSpec([email(ana)]));
    await browser.open(`${url}/`);
    await browser.waitForText(email(ben));
    expect(await browser.text()).not.toContain('shop');
    const status = await fetch(`${url}/`, { headers: { cookie: `helmcrew-session=${await browser.cookie('helmcrew-session')}` } });
    expect(status.status).toBe(403);
  }, 240_000);
});
