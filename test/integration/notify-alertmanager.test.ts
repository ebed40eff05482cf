import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { startAlertmanager, type GettableAlert, type LocalAlertmanager } from '../../src/dev/alertmanager.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 34: a `helmcrew notify` process posts a release's failure to Debian's real Alertmanager
 * (API v2) as the alert HelmReleaseFailed labelled with cluster, namespace and release, and its
 * recovery resolves it, for a Team that hears failures only.
 */
describe('Alertmanager as a destination', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-am');
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  const subscribed = uniqueName('amns');
  let alertmanager: LocalAlertmanager;
  let ns: string;
  let logFile: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    alertmanager = await startAlertmanager();
    ns = await freshNamespace(kubeConfig, 'amhook');
    await createTeam(kube, run, `${run}-oncall`, {
      subscriptions: [{ namespaces: [subscribed], severity: 'error' }],
      channels: [{ alertmanager: { url: alertmanager.url } }],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-am-')), 'notify.log');
    notify = spawnNotify(env, run, logFile, { HELMCREW_CLUSTER_NAME: 'test-cluster', HELMCREW_STATUS_URL: 'https://status.example.test/{namespace}/{name}' });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await alertmanager?.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  const ours = async (): Promise<GettableAlert[]> => (await alertmanager.alerts()).filter((a) => a.labels.namespace === subscribed);

  it('a failure fires the release’s alert; its recovery resolves it', async () => {
    const release = { namespace: subscribed, name: 'unicorn' };
    await publisher.publish(notificationFor(release, 'UpgradeFailed', 'unicorn:op1'));
    const [alert] = await eventually(
      async () => {
        const alerts = await ours();
        if (alerts.length === 0) throw new Error('no alert yet');
        return alerts;
      },
      { timeoutMs: 30_000 },
    );
    expect(alert!.labels).toEqual({
      alertname: 'HelmReleaseFailed',
      cluster: 'test-cluster',
      namespace: subscribed,
      helmrelease: 'unicorn',
      release: 'unicorn',
      severity: 'error',
      source: 'helmcrew',
    });
    expect(alert!.status.state).toBe('active');
    expect(alert!.annotations).toMatchObject({
      event: 'UpgradeFailed',
      summary: `${subscribed}/unicorn in test-cluster: UpgradeFailed of ${subscribed}/unicorn`,
    });
    expect(alert!.generatorURL).toBe(`https://status.example.test/${subscribed}/unicorn`);
    // It lasts until resolved (a day), not Alertmanager's own 5-minute resolve_timeout.
    expect(Date.parse(alert!.endsAt) - Date.now()).toBeGreaterThan(3600_000);

    // The Team hears failures only (severity: error), yet the recovery reaches Alertmanager.
    await publisher.publish(notificationFor(release, 'UpgradeSucceeded', 'unicorn:op2'));
    await eventually(
      async () => {
        const alerts = await ours();
        if (alerts.length > 0) throw new Error(`still firing: ${JSON.stringify(alerts.map((a) => a.labels))}`);
      },
      { timeoutMs: 30_000 },
    );
    expect(await readFile(logFile, 'utf8')).not.toMatch(/"level":50/);
  });
});
