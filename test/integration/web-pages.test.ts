import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { API_GROUP, API_VERSION } from '../../src/api/vocabulary.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { statePaths } from '../../src/dev/paths.js';
import type { WebRequestContext } from '../../src/web/contract.js';
import { SharedReleaseWatch } from '../../src/web/live/release-watch.js';
import { releaseEventReader } from '../../src/web/pages/kube-reads.js';
import { releasePages } from '../../src/web/pages/release-pages.js';
import { releaseUrl } from '../../src/web/urls.js';
import { auditEntriesSince, auditLogEnd } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { freezeNamespace } from '../support/namespace-freeze.js';
import { CountingRest, openStream, pagesServer, parts, type OpenStream } from '../support/web-pages.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { listInPages } from '../../src/core/kube/watch/paged-list.js';

const SCRIPT = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(2)>';

/**
 * The release pages' read side on the real API server: HelmReleases with a hostile value and
 * status message, read over HTTP as two people of different Teams, and fifty live pages fed by
 * the one shared watch (counted at the client and in the API server's audit log). In a browser:
 * web-pages-browser.test.ts.
 */
describe('the release pages', () => {
  const { env, kubeConfig } = testEnv();
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const auditLog = statePaths(env.stateDir).auditLog;
  const rest = new CountingRest(connectKube(env.kubeconfig).connection);
  const kube = slimKubeClients(rest);
  const api = new HelmReleaseApi(kube);
  const log = createLogger('web-pages-test', 'warn');
  let shop: string;
  let pay: string;
  let watch: SharedReleaseWatch;
  let app: FastifyInstance;
  let base: string;
  let lift: () => Promise<void>;

  const person = (slackUser: string, teams: WebRequestContext['teams']): WebRequestContext => ({
    principal: { id: `slack:${slackUser}`, name: slackUser, via: 'slack', subject: { slackUser, slackUserGroups: [] } },
    teams,
    csrfToken: 'csrf-token',
  });
  const get = async (path: string, who = 'ana') => {
    const res = await fetch(`${base}${path}`, { headers: { 'x-test-person': who } });
    return { status: res.status, html: await res.text(), csp: res.headers.get('content-security-policy') };
  };

  beforeAll(async () => {
    shop = await freshNamespace(kubeConfig, 'web-shop');
    pay = await freshNamespace(kubeConfig, 'web-pay');
    const chart = { repository: 'https://charts.invalid', name: 'app', version: '1.0.0' };
    await applyHelmRelease(kubeConfig, helmReleaseObject(shop, 'web', { chart, values: { note: SCRIPT, attr: BREAKOUT, replicas: 2 } }));
    await applyHelmRelease(kubeConfig, helmReleaseObject(shop, 'cart', { chart }));
    await applyHelmRelease(kubeConfig, helmReleaseObject(pay, 'api', { chart }));
    const web = (await api.get(shop, 'web'))!;
    const at = new Date().toISOString();
    await api.patchStatus(web, {
      conditions: [{ type: 'Ready', status: 'False', reason: 'UpgradeFailed', message: `upgrade failed: ${SCRIPT} ${BREAKOUT}`, lastTransitionTime: at }],
    });
    const cart = (await api.get(shop, 'cart'))!;
    await api.patchStatus(cart, { conditions: [{ type: 'Ready', status: 'True', reason: 'InSync', message: 'in sync', lastTransitionTime: at }] });
    ({ lift } = await freezeNamespace(custom, pay, `payments audit ${SCRIPT}`));

    watch = new SharedReleaseWatch({ rest, list: { releases: () => api.list(), freezes: () => new FreezeApi(kube).list() }, log });
    await watch.start();
    const routes = releasePages(
      {
        own: { api, freezes: new FreezeApi(kube), storage: new ReleaseStorage(kube) },
        watch,
        events: releaseEventReader(rest),
      },
      log,
    );
    ({ app, base } = await pagesServer(routes, {
      // Ana's Team sees the shop namespace; Olga's (operations) every namespace; Mallory is in none.
      ana: person('UANA', [{ name: 'shop', members: { slackUsers: ['UANA'] }, permissions: [{ verbs: ['status', 'list'], namespaces: [shop] }] }]),
      olga: person('UOLGA', [{ name: 'ops', members: { slackUsers: ['UOLGA'] }, permissions: [{ verbs: ['status', 'list'] }] }]),
      mallory: person('UMAL', []),
    }));
  });

  afterAll(async () => {
    await app?.close();
    await watch?.stop();
    await lift?.();
    await deleteNamespace(kubeConfig, shop);
    await deleteNamespace(kubeConfig, pay);
  });

  it('the fleet shows a person the releases their Teams let them see, with marks, filters and the freeze banner; hostile text stays text', async () => {
    const ana = await get('/');
    expect(ana.status).toBe(200);
    expect(ana.csp).toContain("script-src 'self'");
    expect(ana.html).toContain(`<strong>${shop}</strong>`);
    expect(ana.html).not.toContain(`<strong>${pay}</strong>`);
    expect(ana.html).toMatch(/<span class="mark failed">Failed<\/span><div class="msg">upgrade failed: &lt;script&gt;/);
    expect(ana.html).not.toContain(SCRIPT);
    expect(ana.html).not.toContain('<img src=x');
    // The banner: the freeze on pay is cluster news; its reason is text.
    expect(ana.html).toContain('payments audit &lt;script&gt;');

    const failed = await get(`/?state=failed`);
    expect(failed.html).toContain('>web</a>');
    expect(failed.html).not.toContain('>cart</a>');

    const olga = await get(`/?namespace=${pay}`, 'olga');
    expect(olga.html).toContain('>api</a>');
    expect(olga.html).toContain('<span class="mark frozen">Frozen</span>');
    expect(olga.html).not.toContain('>web</a>');

    const mallory = await get('/', 'mallory');
    expect(mallory.html).toContain('No release here that your Teams let you see.');
  });

  it('a fleet page served again from the one render kept shows a change as soon as the watch hears it (a status, a freeze)', async () => {
    const failed = async () => (await get(`/?state=failed`)).html.includes('>cart</a>');
    const frozen = async () => (await get(`/?state=frozen`)).html.includes('>cart</a>');
    // Twice each: the second is the kept body.
    for (let i = 0; i < 2; i++) expect([await failed(), await frozen()]).toEqual([false, false]);
    const ready = (status: 'True' | 'False') => ({
      conditions: [
        { type: 'Ready', status, reason: status === 'True' ? 'InSync' : 'UpgradeFailed', message: 'cart', lastTransitionTime: new Date().toISOString() },
      ],
    });
    await api.patchStatus((await api.get(shop, 'cart'))!, ready('False'));
    await eventually(async () => expect(await failed()).toBe(true), { timeoutMs: 10_000, intervalMs: 100 });
    const { lift: liftShop } = await freezeNamespace(custom, shop, 'cart freeze');
    try {
      await eventually(async () => expect(await frozen()).toBe(true), { timeoutMs: 10_000, intervalMs: 100 });
    } finally {
      await liftShop();
      await api.patchStatus((await api.get(shop, 'cart'))!, ready('True'));
    }
    await eventually(async () => expect([await failed(), await frozen()]).toEqual([false, false]), { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('the pages’ listing in pages (limit/continue) finds what one LIST finds, each object kept as the pages keep it', async () => {
    // Other files create and delete HelmReleases meanwhile: the two lists are compared on this file's namespaces only.
    const ours = new Set([shop, pay]);
    const names = (items: Array<{ metadata: { namespace?: string; name?: string } }>) =>
      items
        .filter((r) => ours.has(r.metadata.namespace ?? ''))
        .map((r) => `${r.metadata.namespace}/${r.metadata.name}`)
        .sort();
    const kept: string[] = [];
    const paged = await listInPages(
      (page) => api.listPage(page),
      (r) => (kept.push(r.metadata.name), { ...r, metadata: { ...r.metadata, labels: { kept: 'yes' } } }),
      1,
    );
    expect(names(paged.items)).toEqual(names((await api.list()).items));
    expect(names(paged.items)).toEqual([`${pay}/api`, `${shop}/cart`, `${shop}/web`].sort());
    expect(kept).toHaveLength(paged.items.length);
    expect(paged.items.every((r) => r.metadata.labels?.kept === 'yes')).toBe(true);
    expect(paged.metadata?.resourceVersion).toMatch(/^\d+$/);
  });

  it('the release page: conditions, values (escaped), timeline; outside the Teams a 404 without data', async () => {
    const page = await get(releaseUrl('', undefined, shop, 'web'));
    expect(page.status).toBe(200);
    expect(page.html).toContain('UpgradeFailed');
    expect(page.html).toContain('<code>note</code></td><td><code>&lt;script&gt;alert(1)&lt;/script&gt;</code>');
    expect(page.html).toContain('<code>replicas</code></td><td><code>2</code>');
    expect(page.html).not.toContain(SCRIPT);
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('<script src="/assets/live.js" defer></script>');

    const outside = await get(releaseUrl('', undefined, pay, 'api'));
    expect(outside.status).toBe(404);
    expect(outside.html).not.toContain('Conditions');
    const missing = await get(releaseUrl('', undefined, shop, 'nope'));
    expect([missing.status, missing.html.includes('that your Teams let you see')]).toEqual([404, true]);
    expect((await get(releaseUrl('', undefined, shop, 'web'), 'mallory')).status).toBe(404);

    const freezes = await get('/freezes', 'olga');
    expect(freezes.html).toMatch(/<td>active<\/td><td>slack|<td>active/);
    expect((await get('/assets/live.js')).html).toContain('EventSource');
  });

  it('fifty open pages hear of a change from the one watch: no API server request for it', async () => {
    const url = `${base}/events?page=release&release=${shop}/web`;
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < 50; i++) streams.push(await openStream(url, 'ana'));
      expect(streams.every((s) => s.status === 200)).toBe(true);
      // Each stream first sends the page's parts as they are: Failed.
      await eventually(() => expect(streams.every((s) => parts(s.text()).some((p) => p.id === 'live-summary' && p.html.includes('mark failed')))).toBe(true), {
        timeoutMs: 10_000,
      });
      const outsider = await openStream(`${base}/events?page=release&release=${pay}/api`, 'ana');
      streams.push(outsider);

      rest.requests = [];
      const from = await auditLogEnd(auditLog);
      const web = (await new HelmReleaseApi(slimKubeClients(connectKube(env.kubeconfig))).get(shop, 'web'))!;
      await new HelmReleaseApi(slimKubeClients(connectKube(env.kubeconfig))).patchStatus(web, {
        conditions: [{ type: 'Ready', status: 'True', reason: 'InSync', message: 'fixed', lastTransitionTime: new Date().toISOString() }],
      });
      await eventually(
        () => expect(streams.slice(0, 50).every((s) => parts(s.text()).some((p) => p.id === 'live-summary' && p.html.includes('mark ready')))).toBe(true),
        { timeoutMs: 15_000 },
      );
      // The page of a release outside her Teams tells nothing about it.
      expect(parts(outsider.text()).find((p) => p.id === 'live-summary')?.html).toContain('no longer yours to see');

      // Counted at the client: the watch's stream was already open; nothing else was asked.
      expect(rest.requests).toEqual([]);
      // And by the API server: of the namespace's HelmReleases and Events, only the test's own GET and status PATCH.
      // And by the API server, whose audit log keeps every get and list of HelmReleases and Secrets
      // (src/dev/control-plane.ts): in the namespace only the test's own GET before its PATCH, and a
      // sentinel GET after everything, whose line shows the log has caught up.
      await api.get(shop, 'cart');
      const reads = await eventually(
        async () => {
          const seen = (await auditEntriesSince(auditLog, from))
            .filter((e) => e.requestURI.includes(`/namespaces/${shop}/`))
            .map((e) => `${e.verb} ${e.requestURI.split('?')[0]!}`);
          expect(seen.some((line) => line.endsWith('/helmreleases/cart'))).toBe(true);
          return seen;
        },
        { timeoutMs: 15_000 },
      );
      expect(reads).toEqual([
        `get /apis/${API_GROUP}/${API_VERSION}/namespaces/${shop}/helmreleases/web`,
        `get /apis/${API_GROUP}/${API_VERSION}/namespaces/${shop}/helmreleases/cart`,
      ]);
      expect(watch.subscribers).toBe(51);
    } finally {
      for (const s of streams) s.close();
    }
    await eventually(() => expect(watch.subscribers).toBe(0), { timeoutMs: 5000 });
  });
});
