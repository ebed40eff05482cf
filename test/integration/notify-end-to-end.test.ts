import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { createSigningSecret, createTeam, deleteTeams, randomKey } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { WebhookReceiver, type ReceivedRequest } from '../support/webhook-receiver.js';

/**
 * Issue 6, the mission's example end to end: the real controller publishes as it reconciles, a
 * `helmcrew notify` process routes and delivers to a local webhook receiver. The on-call Team
 * hears every failure in prod; the frontend Team every event of the frontend chart (unicorn) in
 * any namespace; a third Team hears nothing.
 */
describe('the right team hears about the right release', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const prod = uniqueName('prod');
  const web = uniqueName('web');
  const keys = { '/oncall': randomKey('oncall'), '/frontend': randomKey('frontend'), '/third': randomKey('third') };
  const receiver = new WebhookReceiver(keys);
  let ctl: TestController;
  let notify: ResultPromise;
  let run: string;
  let logFile: string;

  beforeAll(async () => {
    await receiver.start();
    for (const ns of [prod, web]) await ensureNamespace(kubeConfig, ns);
    ctl = await startTestController([prod, web]);
    run = ctl.prefix;
    for (const [path, key] of Object.entries(keys)) await createSigningSecret(kube, prod, path.slice(1), key);
    const hook = (path: string) => ({ webhook: { url: receiver.url(path), secretRef: { namespace: prod, name: path.slice(1) } } });
    await createTeam(kube, run, `${run}-oncall`, {
      members: { slackUsers: ['U0ONCALL'] },
      subscriptions: [{ namespaces: [prod], severity: 'error' }],
      channels: [hook('/oncall')],
    });
    await createTeam(kube, run, `${run}-frontend`, { subscriptions: [{ charts: ['unicorn'] }], channels: [hook('/frontend')] });
    await createTeam(kube, run, `${run}-third`, {
      subscriptions: [{ charts: ['narwhal'] }, { namespaces: [uniqueName('elsewhere')] }],
      channels: [hook('/third')],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-notify-')), 'notify.log');
    notify = spawnNotify(env, run, logFile);
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await ctl?.stop();
    await receiver.stop();
    await deleteTeams(kube, run);
    for (const ns of [prod, web]) await deleteNamespace(kubeConfig, ns);
  });

  const declare = (namespace: string, version: string) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '20s' }),
    );
  const heard = (path: string) =>
    receiver.delivered(path).map((r: ReceivedRequest) => `${(r.json.release as { namespace: string }).namespace} ${String(r.json.event)}`);

  it('installs in prod and web, a failed upgrade in prod, a missing chart version in web: each Team hears its part', async () => {
    await waitForReconciled(kubeConfig, prod, 'unicorn', await declare(prod, '1.0.0'));
    await waitForReconciled(kubeConfig, web, 'unicorn', await declare(web, '1.0.0'));
    await waitForReconciled(kubeConfig, prod, 'unicorn', await declare(prod, '4.0.0'));
    await declare(web, '9.9.9');

    await receiver.waitFor(
      () =>
        ['UpgradeFailed', 'InstallSucceeded'].every((e) => heard('/frontend').includes(`${prod} ${e}`)) &&
        heard('/frontend').includes(`${web} ChartPullFailed`) &&
        heard('/frontend').includes(`${web} InstallSucceeded`),
      90_000,
      'the frontend Team to hear both namespaces',
    );
    await receiver.waitFor(() => heard('/oncall').includes(`${prod} UpgradeFailed`), 30_000, 'on-call to hear the failed upgrade');
    // Proves that nothing more happens: late deliveries would show up where they should not.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    // On-call: failures in prod only.
    const oncall = receiver.delivered('/oncall');
    expect(oncall.every((r) => (r.json.release as { namespace: string }).namespace === prod && r.json.severity === 'error')).toBe(true);
    expect(heard('/oncall')).not.toContain(`${web} ChartPullFailed`);
    const failed = oncall.find((r) => r.json.event === 'UpgradeFailed')!;
    expect(failed.json).toMatchObject({
      team: `${run}-oncall`,
      toVersion: '4.0.0',
      fromVersion: '1.0.0',
      release: { chart: 'unicorn', releaseName: 'unicorn' },
    });
    expect(failed.json.errorExcerpt).toEqual(expect.any(String));
    expect(failed.json.message).toMatch(/Helm upgrade to unicorn@4\.0\.0 failed/);
    expect(failed.check).toBe('valid');

    // Frontend: every event of its chart, in both namespaces.
    expect(heard('/frontend')).toEqual(
      expect.arrayContaining([`${prod} InstallSucceeded`, `${web} InstallSucceeded`, `${prod} UpgradeFailed`, `${web} ChartPullFailed`]),
    );
    // The chart pull is retried with backoff (a Warning Event each time); the Team hears it once.
    expect(heard('/frontend').filter((e) => e === `${web} ChartPullFailed`)).toHaveLength(1);
    // The third Team: nothing.
    expect(receiver.requests.filter((r) => r.path === '/third')).toEqual([]);

    // Per release, the frontend hears the operations in the order they happened.
    const prodEvents = heard('/frontend').filter((e) => e.startsWith(`${prod} `));
    expect(prodEvents.indexOf(`${prod} InstallSucceeded`)).toBeLessThan(prodEvents.indexOf(`${prod} UpgradeFailed`));
    const log = await readFile(logFile, 'utf8');
    for (const key of Object.values(keys)) expect(log).not.toContain(key);
  });
});
