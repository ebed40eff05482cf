import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Redis holds work, not truth: wipe the queue mid-upgrade and nothing declared is lost. */
describe('a wiped Redis', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const { namespace, ctl } = namespaceWithController('wipe');

  const declare = (version: string, message = '') =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'amnesia', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, values: { message } }),
    );

  it('a change queued behind an in-flight upgrade survives losing every queued job', async () => {
    await waitForReconciled(kubeConfig, namespace, 'amnesia', await declare('1.0.0'));
    await ctl.helm.setUpgradeDelay(4);
    await declare('2.0.0');
    // The upgrade to 2.0.0 is under way (held by the shim) before the next change is queued behind it.
    await eventually(async () => expect((await api.get(namespace, 'amnesia'))?.status?.lastAttemptedChartVersion).toBe('2.0.0'), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const generation = await declare('2.0.0', 'queued behind the upgrade');

    // Every key of this controller's queue is gone: the waiting job, the dedup records, the active job's lock.
    const redis = new Redis(env.redisUrl);
    const keys = await redis.keys(`${ctl.prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    await redis.quit();
    await ctl.helm.setUpgradeDelay(0);

    const release = await waitForReconciled(kubeConfig, namespace, 'amnesia', generation, 60_000);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect((await storage.history(namespace, 'amnesia')).deployed).toMatchObject({ chartVersion: '2.0.0', config: { message: 'queued behind the upgrade' } });
  });
});
