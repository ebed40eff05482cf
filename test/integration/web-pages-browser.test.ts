import { mkdir, writeFile } from 'node:fs/promises';
import { By, until, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { SharedReleaseWatch } from '../../src/web/live/release-watch.js';
import { releaseEventReader } from '../../src/web/pages/kube-reads.js';
import { releasePages } from '../../src/web/pages/release-pages.js';
import { releaseUrl } from '../../src/web/urls.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { startBrowser } from '../support/browser.js';
import { pagesServer } from '../support/web-pages.js';

const SCRIPT = '<script>alert(1)</script>';
const BREAKOUT = '"><img src=x onerror=alert(2)>';
const SHOTS = '.helmcrew/screenshots';

/** The release pages as a phone shows them: a hostile value stays text, and the page follows a change by itself (live.js). */
describe('the release pages in a browser (headless Chromium, 375 px wide)', () => {
  const { env, kubeConfig } = testEnv();
  const rest = connectKube(env.kubeconfig);
  const kube = slimKubeClients(rest);
  const api = new HelmReleaseApi(kube);
  const log = createLogger('web-pages-browser', 'warn');
  let namespace: string;
  let watch: SharedReleaseWatch;
  let app: FastifyInstance;
  let base: string;
  let driver: WebDriver;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'web-look');
    const chart = { repository: 'https://charts.invalid', name: 'podinfo', version: '6.7.0' };
    for (const name of ['frontend', 'checkout', 'search'])
      await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, name, { chart, values: { replicaCount: 2, note: SCRIPT }, ...(name === 'search' ? { suspend: true } : {}) }),
      );
    const at = new Date().toISOString();
    await api.patchStatus((await api.get(namespace, 'frontend'))!, {
      conditions: [{ type: 'Ready', status: 'True', reason: 'InSync', message: 'podinfo 6.7.0 deployed', lastTransitionTime: at }],
    });
    await api.patchStatus((await api.get(namespace, 'checkout'))!, {
      lastAttemptFailed: true,
      lastAttemptedAction: 'upgrade',
      lastAttemptedAt: at,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'UpgradeFailed', message: `upgrade failed: ${BREAKOUT}`, lastTransitionTime: at },
        {
          type: 'Released',
          status: 'False',
          reason: 'UpgradeFailed',
          message: `Deployment checkout: context deadline exceeded ${SCRIPT}`,
          lastTransitionTime: at,
        },
      ],
    });
    watch = new SharedReleaseWatch({ rest, list: { releases: () => api.list(), freezes: () => new FreezeApi(kube).list() }, log });
    await watch.start();
    const routes = releasePages(
      { own: { api, freezes: new FreezeApi(kube), storage: new ReleaseStorage(kube) }, watch, events: releaseEventReader(rest) },
      log,
    );
    ({ app, base } = await pagesServer(routes, {
      ana: {
        principal: { id: 'slack:UANA', name: '@ana', via: 'slack', subject: { slackUser: 'UANA', slackUserGroups: [] } },
        teams: [{ name: 'shop', members: { slackUsers: ['UANA'] }, permissions: [{ verbs: ['status'], namespaces: [namespace] }] }],
        csrfToken: 't',
      },
    }));
    driver = (await startBrowser(375)).driver;
    await driver.get(`${base}/assets/web.css`);
    await driver.manage().addCookie({ name: 'test-person', value: 'ana' });
  });

  afterAll(async () => {
    await driver?.quit();
    await app?.close();
    await watch?.stop();
    await deleteNamespace(kubeConfig, namespace);
  });

  it('reads the fleet and a release; no script runs from a value; the page follows a change by itself', async () => {
    await driver.get(`${base}/?namespace=${namespace}`);
    expect(await driver.findElement(By.css('h1')).getText()).toBe('Fleet');
    // The planted script did not run: no alert is open, and the text is on the page.
    expect(await driver.findElement(By.css('.msg')).getText()).toContain('upgrade failed: "><img');
    await expect(driver.switchTo().alert()).rejects.toThrow(/no such alert/i);
    const [inner, scroll] = await driver.executeScript<[number, number]>('return [window.innerWidth, document.documentElement.scrollWidth]');
    expect(inner).toBe(375);
    expect(scroll).toBeLessThanOrEqual(375);
    // Written where a run leaves its output (.helmcrew/, ignored); docs/images/ holds a copy chosen by hand.
    await mkdir(SHOTS, { recursive: true });
    await writeFile(`${SHOTS}/web-fleet.png`, await driver.takeScreenshot(), 'base64');

    await driver.get(`${base}${releaseUrl('', undefined, namespace, 'checkout')}`);
    // live.js may replace the summary (and its .error) as the stream connects: read it again until it reads.
    await driver.wait(
      async () =>
        (
          await driver
            .findElement(By.css('.error'))
            .getText()
            .catch(() => '')
        ).includes('context deadline exceeded <script>'),
      10_000,
      'the last failure is not on the page',
    );
    await writeFile(`${SHOTS}/web-release.png`, await driver.takeScreenshot(), 'base64');

    // The release is fixed: live.js replaces the summary without a reload.
    await api.patchStatus((await api.get(namespace, 'checkout'))!, {
      lastAttemptFailed: false,
      conditions: [{ type: 'Ready', status: 'True', reason: 'InSync', message: 'fixed', lastTransitionTime: new Date().toISOString() }],
    });
    await driver.wait(until.elementLocated(By.css('#live-summary .mark.ready')), 15_000);
    expect(await driver.executeScript('return document.documentElement.getAttribute("data-live-updated") !== null')).toBe(true);
  });
});
