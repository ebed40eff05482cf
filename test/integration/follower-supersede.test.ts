import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';

/**
 * Issue 33: with leader election only the leader watches, yet a follower's doomed `--wait` is
 * cancelled by a new spec as the leader's is. Two replicas with one worker each run two doomed
 * upgrades at once, so one of them runs on the follower; both fixes are applied within seconds.
 */
describe('a doomed --wait on a follower, then a fixed spec', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const names = ['red', 'blue'];
  let namespace: string;
  const replicas: TestController[] = [];

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'follower');
    const shared = {
      HELMCREW_QUEUE_PREFIX: uniqueName('hc-follower'),
      HELMCREW_NAMESPACE: namespace,
      HELMCREW_LEADER_ELECTION: 'true',
      HELMCREW_LEASE_DURATION_SECONDS: '4',
      HELMCREW_LEASE_RETRY_MS: '500',
      // One helm slot per replica, read-ahead on (the default): a replica that took both upgrades
      // hands the second back before it starts (helm/slot-wait.ts), so each replica runs one.
      HELMCREW_CONCURRENCY: '1',
    };
    for (let i = 0; i < 2; i++) replicas.push(await startTestController([namespace], shared));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (name: string, values: Record<string, unknown>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        timeout: '3m',
        upgrade: { remediation: { retries: 0 } },
        values,
      } satisfies HelmReleaseSpec),
    );

  it('the fixes are applied within seconds on both replicas, leader and follower', async () => {
    for (const name of names) await waitForReconciled(kubeConfig, namespace, name, await declare(name, {}));
    const upgradesBefore = await Promise.all(replicas.map((r) => r.helm.count('upgrade')));
    // No node has this label: helm --wait would wait the whole 3 minutes.
    for (const name of names) await declare(name, { nodeSelector: { pool: 'nowhere' } });
    await eventually(async () => {
      for (const name of names) expect((await storage.history(namespace, name)).latest?.status).toBe('pending-upgrade');
    });
    // One helm slot per replica and two upgrades running: each replica runs one, so one runs on the follower.
    expect(await Promise.all(replicas.map(async (r, i) => (await r.helm.count('upgrade')) - upgradesBefore[i]!))).toEqual([1, 1]);
    await eventually(async () => {
      const { items } = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
      expect(items.filter((p) => p.spec?.nodeSelector?.pool === 'nowhere' && p.status?.phase === 'Pending')).toHaveLength(2);
    });

    const changedAt = Date.now();
    const fixed = await Promise.all(names.map((name) => declare(name, { message: 'fixed' })));
    await Promise.all(names.map((name, i) => waitForReconciled(kubeConfig, namespace, name, fixed[i]!, 60_000)));
    // Before issue 33 the follower's upgrade waited out its 3 m timeout.
    expect(Date.now() - changedAt).toBeLessThan(20_000);
    for (const name of names) {
      const history = await storage.history(namespace, name);
      expect(history.releases.map((r) => [r.revision, r.status])).toEqual([
        [3, 'deployed'],
        [2, 'failed'],
        [1, 'superseded'],
      ]);
    }
  });
});
