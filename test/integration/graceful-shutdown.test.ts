import { execa, type ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { eventually } from '../support/eventually.js';

/** Issue 20: SIGTERM mid-upgrade lets helm finish, takes no new work, exits 0; the next replica carries on. */
describe('graceful shutdown of `helmcrew controller`', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  let namespace: string;
  let dir: string;
  let helm: HelmShim;
  const prefix = uniqueName('hc-shutdown');
  const children: ResultPromise[] = [];

  const spawnController = (replica: string, graceSeconds: number) => {
    const child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: helm.bin,
        WATCH_NAMESPACES: namespace,
        HELMCREW_QUEUE_PREFIX: prefix,
        HELMCREW_WORK_DIR: join(dir, `work-${replica}`),
        HELMCREW_SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, `controller-${replica}.log`) },
      reject: false,
      // execa would SIGKILL 5 s after kill(): the drain is what is tested here.
      forceKillAfterDelay: false,
    });
    children.push(child);
    return child;
  };
  const declare = (name: string, version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));
  const waitForUpgrades = (count: number) =>
    eventually(async () => expect(await helm.count('upgrade')).toBeGreaterThanOrEqual(count), { timeoutMs: 30_000, intervalMs: 100 });

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'shutdown');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-shutdown-'));
    helm = await createHelmShim(dir, env.helmBin);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children);
    await deleteNamespace(kubeConfig, namespace);
  });

  it('SIGTERM mid-upgrade: helm finishes, no new work is taken, exit 0, no pending release; the next replica applies what came later', async () => {
    const first = spawnController('a', 60);
    await waitForReconciled(kubeConfig, namespace, 'drained', await declare('drained', '1.0.0'));
    await helm.setUpgradeDelay(5);
    await declare('drained', '2.0.0');
    await waitForUpgrades(1);
    const signalled = Date.now();
    first.kill('SIGTERM');
    // A change made during the drain is left for the next replica.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await helm.setUpgradeDelay(0);
    const later = await declare('drained', '3.0.0');

    const result = await first;
    expect(result.exitCode).toBe(0);
    // It waited for the held upgrade (about 5 s) rather than leaving it half done.
    expect(Date.now() - signalled).toBeGreaterThan(4000);
    expect(await helm.count('upgrade')).toBe(1);
    const history = await storage.history(namespace, 'drained');
    expect(history.latest).toMatchObject({ revision: 2, status: 'deployed', chartVersion: '2.0.0' });
    expect(history.releases.some((r) => r.status.startsWith('pending'))).toBe(false);

    void spawnController('b', 60); // awaited in afterAll or the next test
    await waitForReconciled(kubeConfig, namespace, 'drained', later);
    expect((await storage.history(namespace, 'drained')).latest).toMatchObject({ revision: 3, status: 'deployed', chartVersion: '3.0.0' });
  });

  it('an upgrade longer than the grace period does not hold the process: it exits 1 once the grace is over', async () => {
    const replica = children.at(-1)!;
    replica.kill('SIGTERM');
    expect((await replica).exitCode).toBe(0);
    const short = spawnController('c', 2);
    await waitForReconciled(kubeConfig, namespace, 'slow', await declare('slow', '1.0.0'));
    await helm.setUpgradeDelay(20);
    const upgradesBefore = await helm.count('upgrade');
    await declare('slow', '2.0.0');
    await waitForUpgrades(upgradesBefore + 1);
    const signalled = Date.now();
    short.kill('SIGTERM');
    expect((await short).exitCode).toBe(1);
    expect(Date.now() - signalled).toBeLessThan(8000);
    await helm.setUpgradeDelay(0);
  });
});
