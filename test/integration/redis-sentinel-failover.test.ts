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
import { freePort } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { startSentinelSet, type SentinelSet } from '../../src/dev/redis-sentinel.js';
import { waitAllReconciled } from '../../src/dev/harness/reconciled.js';
import { mapLimit } from '../../src/dev/harness/map-limit.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

const RELEASES = 14;

/** Issue 20: REDIS_URL names a Sentinel set; the primary dies mid-burst, the replica takes over, and nothing declared is lost. */
describe('Redis failover through Sentinel', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const names = Array.from({ length: RELEASES }, (_, i) => `burst-${i}`);
  const prefix = uniqueName('hc-sentinel');
  let namespace: string;
  let dir: string;
  let helm: HelmShim;
  let sentinel: SentinelSet;
  let controller: ResultPromise;
  let healthPort: number;

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
  // A probe that throws is tried again; on time-out its last error (or `false`) is what fails.
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
    namespace = await freshNamespace(kubeConfig, 'sentinel');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-sentinel-'));
    helm = await createHelmShim(dir, env.helmBin);
    healthPort = await freePort();
    sentinel = await startSentinelSet({ dir: join(dir, 'redis'), log: createLogger('sentinel', process.env.LOG_LEVEL ?? 'warn') });
    controller = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: sentinel.url,
        HELM_BIN: helm.bin,
        WATCH_NAMESPACES: namespace,
        HELMCREW_NAMESPACE: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: prefix,
        HELMCREW_WORK_DIR: join(dir, 'work'),
        // The resync makes again what the failover lost: a short tick finds it soon.
        HELMCREW_RESYNC_TICK_MS: '500',
        HEALTH_PORT: String(healthPort),
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, 'controller.log') },
      reject: false,
    });
  }, 120_000);
  afterAll(async () => {
    controller?.kill('SIGKILL');
    await controller;
    await sentinel?.stop();
    if (namespace) await deleteNamespace(kubeConfig, namespace); // finalizers stripped; gone in the background (the guard checks it is on its way out)
  });

  it(`the primary is SIGKILLed while ${RELEASES} releases install: the replica is promoted, every install finishes, none is left pending`, async () => {
    expect(await sentinel.masterPort()).toBe(sentinel.primary.port);
    // Installs held a little, so the burst is still going when the primary dies.
    await helm.setDelay('install', 2);
    const installs = await declareAll('1.0.0');
    await until('a few installs to start', async () => (await helm.count('install')) >= 3, 120_000);
    process.kill(sentinel.primary.proc.pid, 'SIGKILL');
    const killedAfter = await helm.count('install');
    await until('the sentinels to promote the replica', async () => (await sentinel.masterPort()) === sentinel.replica.port, 60_000);
    // Mid-burst for real: some releases had not started installing when Redis failed over.
    expect(killedAfter).toBeLessThan(RELEASES);
    await helm.setDelay('install', 0);

    await expectAllDone(installs, '1.0.0');
    // The controller's queue lives on the promoted replica now.
    const promoted = new Redis({ host: '127.0.0.1', port: sentinel.replica.port });
    expect((await promoted.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
    await promoted.quit();
  }, 360_000);

  it('work goes on on the new primary: an upgrade of every release declared after the failover is applied', async () => {
    const upgrades = await declareAll('2.0.0');
    await expectAllDone(upgrades, '2.0.0');
    expect(controller.exitCode).toBeNull();
    // Connected to the promoted replica: ready again.
    expect((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status).toBe(200);
  }, 300_000);
});
