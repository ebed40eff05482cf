import { execa, type ResultPromise } from 'execa';
import { Redis } from 'ioredis';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { outcomeAtGeneration } from '../../src/core/release/reconciled.js';
import { createLogger } from '../../src/core/log.js';
import { clusterKeyspace, fleetIndexKey } from '../../src/core/fleet/cluster-keys.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { connectRedis } from '../../src/core/redis.js';
import { freePort } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { startRedisCluster, type RedisClusterSet } from '../../src/dev/redis-cluster.js';
import { waitAllReconciled } from '../../src/dev/harness/reconciled.js';
import { mapLimit } from '../../src/dev/harness/map-limit.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

const RELEASES = 14;
const CLUSTER = 'edge';

/**
 * Issue 32: REDIS_URL names a Redis Cluster (three primaries, one replica each). A named cluster's
 * keys share one hash tag, so one primary holds them all; it dies mid-burst, its replica takes over,
 * and nothing declared is lost. The fleet index lives in another slot and is still read.
 */
describe('Redis failover on a Redis Cluster', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const names = Array.from({ length: RELEASES }, (_, i) => `burst-${i}`);
  const prefix = uniqueName('hc-cluster');
  const keyspace = clusterKeyspace(prefix, CLUSTER);
  let namespace: string;
  let dir: string;
  let helm: HelmShim;
  let redis: RedisClusterSet;
  let controller: ResultPromise;
  let healthPort: number;

  const controllerEnv = (extra: Record<string, string>) => ({
    KUBECONFIG: env.kubeconfig,
    REDIS_URL: redis.url,
    HELM_BIN: helm.bin,
    WATCH_NAMESPACES: namespace,
    HELMCREW_NAMESPACE: namespace,
    ...CONTROLLER_RIGHTS_SETTINGS,
    HELMCREW_QUEUE_PREFIX: prefix,
    HELMCREW_WORK_DIR: join(dir, 'work'),
    LOG_LEVEL: 'info',
    ...extra,
  });
  const declareAll = async (version: string) =>
    new Map(
      await mapLimit(names, 4, async (name) => {
        const generation = await applyHelmRelease(
          kubeConfig,
          helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }),
        );
        return [name, generation] as const;
      }),
    );
  const until = (what: string, probe: () => Promise<boolean>, timeoutMs: number) =>
    eventually(async () => expect(await probe(), what).toBe(true), { timeoutMs, intervalMs: 100 });
  /** Every release Ready at its generation, on `version`, and no record of it left pending-* or failed. */
  const expectAllDone = async (generations: Map<string, number>, version: string) => {
    const done = await waitAllReconciled(kubeConfig, namespace, generations, Date.now(), 240_000);
    expect(done).toMatchObject({ pending: 0, failed: 0, ready: RELEASES });
    for (const name of names) {
      const release = await api.get(namespace, name);
      expect(release && outcomeAtGeneration(release, generations.get(name))).toBe('ready');
      const history = await storage.history(namespace, name);
      expect(history.latest).toMatchObject({ status: 'deployed', chartVersion: version });
      expect(history.releases.filter((r) => r.status.startsWith('pending') || r.status === 'failed')).toEqual([]);
    }
  };

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'rcluster');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-rcluster-'));
    helm = await createHelmShim(dir, env.helmBin);
    healthPort = await freePort();
    redis = await startRedisCluster({ dir: join(dir, 'redis'), log: createLogger('redis-cluster', process.env.LOG_LEVEL ?? 'warn') });
  }, 120_000);
  afterAll(async () => {
    controller?.kill('SIGKILL');
    await controller;
    await redis?.stop();
    if (namespace) await deleteNamespace(kubeConfig, namespace); // finalizers stripped; gone in the background (the guard checks it is on its way out)
  });

  it('a prefix without a hash tag and no cluster name is refused at start, saying what to set', async () => {
    const refused = await execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: controllerEnv({ HELMCREW_QUEUE_PREFIX: 'helmcrew' }),
      reject: false,
      timeout: 30_000,
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/HELMCREW_QUEUE_PREFIX "helmcrew" has no hash tag: on a Redis Cluster .*HELMCREW_QUEUE_PREFIX=\{helmcrew\}/);
  }, 60_000);

  it(`the primary holding the cluster's keys is SIGKILLed while ${RELEASES} releases install: its replica takes over, every install finishes, none is left pending`, async () => {
    controller = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: controllerEnv({
        HELMCREW_CLUSTER_NAME: CLUSTER,
        // The resync makes again what the failover lost: a short tick finds it soon.
        HELMCREW_RESYNC_TICK_MS: '500',
        HELMCREW_HEARTBEAT_SECONDS: '1',
        HEALTH_PORT: String(healthPort),
      }),
      stdout: 'ignore',
      stderr: { file: join(dir, 'controller.log') },
      reject: false,
    });
    const owner = await redis.ownerOf(`${keyspace}:reconcile:wait`);
    expect(owner.replica).toBeDefined();
    // Installs held a little, so the burst is still going when the primary dies.
    await helm.setDelay('install', 2);
    const installs = await declareAll('1.0.0');
    await until('a few installs to start', async () => (await helm.count('install')) >= 3, 120_000);
    process.kill(owner.primary.proc.pid, 'SIGKILL');
    const killedAfter = await helm.count('install');
    await until(
      'the replica to take the slot over',
      async () => (await redis.ownerOf(`${keyspace}:reconcile:wait`).catch(() => undefined))?.primary === owner.replica,
      60_000,
    );
    // Mid-burst for real: some releases had not started installing when the primary died.
    expect(killedAfter).toBeLessThan(RELEASES);
    await helm.setDelay('install', 0);

    await expectAllDone(installs, '1.0.0');
    // The cluster's queue lives on the promoted replica now, every key of it under the one hash tag.
    const promoted = new Redis({ host: '127.0.0.1', port: owner.replica!.port });
    const keys = await promoted.keys(`${keyspace}:*`);
    await promoted.quit();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => !k.startsWith(`${keyspace}:`))).toEqual([]);
  }, 360_000);

  it('work goes on on the new primary, and the fleet is read across slots', async () => {
    const upgrades = await declareAll('2.0.0');
    await expectAllDone(upgrades, '2.0.0');
    expect(controller.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status).toBe(200);

    const reader = connectRedis(redis.url, { maxRetriesPerRequest: 3 });
    try {
      // The index and the cluster's hash are in different slots: readFleet reads each where it lives.
      expect(await reader.cluster('KEYSLOT', fleetIndexKey(prefix))).not.toBe(await reader.cluster('KEYSLOT', `${keyspace}:agents`));
      await until(
        'the agent to be listed up with its releases',
        async () => {
          const fleet = await readFleet(reader, prefix, Date.now());
          return fleet.length === 1 && fleet[0]!.name === CLUSTER && fleet[0]!.state === 'up' && fleet[0]!.releases === RELEASES;
        },
        30_000,
      );
    } finally {
      reader.disconnect();
    }
    // And `helmcrew fleet` says so from the cluster URL.
    const listed = await execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'fleet', '--json'], {
      env: { REDIS_URL: redis.url, HELMCREW_QUEUE_PREFIX: prefix },
      reject: false,
      timeout: 30_000,
    });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: CLUSTER, state: 'up', releases: RELEASES }]);
  }, 300_000);
});
