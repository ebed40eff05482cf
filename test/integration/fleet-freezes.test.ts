import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { fleetFreezeObject, FleetFreezeStore } from '../../src/core/fleet/fleet-freezes.js';
import { isReconciledAt } from '../../src/core/release/reconciled.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';

/**
 * Issue 32: a fleet freeze `cluster:prod-*`, written where the hub writes it (the fleet's keyspace
 * in Redis), is held by the `prod-eu` agent within seconds and not by the `staging` agent; lifted,
 * `prod-eu` goes on at once. Two controllers told apart by nothing but HELMCREW_CLUSTER_NAME.
 */
describe('a fleet freeze on prod-* across two agents on one Redis', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const fleet = uniqueName('hc-ffz');
  const clusters = ['prod-eu', 'staging'] as const;
  type Cluster = (typeof clusters)[number];
  const namespaces: Record<Cluster, string> = { 'prod-eu': '', staging: '' };
  const agents: Partial<Record<Cluster, TestController>> = {};
  let redis: Redis;
  let store: FleetFreezeStore;
  const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' });
  const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);
  const upgrade = async (cluster: Cluster, version: string) => applyHelmRelease(kubeConfig, helmReleaseObject(namespaces[cluster], 'unicorn', spec(version)));
  const appliedAt = (cluster: Cluster, generation: number) =>
    pollUntil(
      async () => {
        const release = await api.get(namespaces[cluster], 'unicorn');
        return release && isReconciledAt(release, generation) && condition(release, 'Ready')?.status === 'True' ? release : undefined;
      },
      { timeoutMs: 60_000 },
      () => `${cluster}: generation ${generation} was not applied`,
    );

  beforeAll(async () => {
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    store = new FleetFreezeStore(redis, fleet);
    for (const cluster of clusters) {
      namespaces[cluster] = await freshNamespace(kubeConfig, cluster);
      agents[cluster] = await startTestController([namespaces[cluster]], {
        HELMCREW_QUEUE_PREFIX: fleet,
        HELMCREW_CLUSTER_NAME: cluster,
        HELMCREW_FLEET_FREEZE_MS: '300',
      });
    }
    await Promise.all(clusters.map(async (c) => waitForReconciled(kubeConfig, namespaces[c], 'unicorn', await upgrade(c, '1.0.0'))));
  });
  afterAll(async () => {
    for (const agent of Object.values(agents)) await agent.stop();
    redis.disconnect();
    for (const ns of Object.values(namespaces)) if (ns) await deleteNamespace(kubeConfig, ns);
  });

  it('prod-eu holds its upgrade with the freeze named, staging upgrades; lifted, prod-eu goes on', async () => {
    const created = await store.create({
      clusters: ['prod-*'],
      freeze: fleetFreezeObject('cluster-prod-1a2b', { reason: 'INC-42 in prod', setBy: 'slack:UOPS' }),
    });
    expect(created).toBe(true);
    const setAt = Date.now();
    const [prodGen, stagingGen] = [await upgrade('prod-eu', '2.0.0'), await upgrade('staging', '2.0.0')];

    const frozen = await pollUntil(
      async () => {
        const f = condition(await api.get(namespaces['prod-eu'], 'unicorn'), 'Frozen');
        return f?.status === 'True' && f.observedGeneration === prodGen ? f : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'prod-eu never showed Frozen',
    );
    expect(frozen.message).toMatch(/^The upgrade is held by freeze cluster-prod-1a2b \(INC-42 in prod, set by slack:UOPS\)/);
    // "Within seconds": the agent reads the fleet freezes every 300 ms here.
    expect(Date.now() - setAt).toBeLessThan(20_000);
    const staging = await appliedAt('staging', stagingGen);
    expect(condition(staging, 'Frozen')).toBeUndefined();
    expect(await agents['prod-eu']!.helm.count('upgrade')).toBe(0);
    expect(await agents.staging!.helm.count('upgrade')).toBe(1);

    expect(await store.delete('cluster-prod-1a2b')).toBe(true);
    const prod = await appliedAt('prod-eu', prodGen);
    expect(condition(prod, 'Frozen')).toBeUndefined();
    expect(await agents['prod-eu']!.helm.count('upgrade')).toBe(1);
  });
});
