import type { ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { freePorts } from '../../src/dev/free-port.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { eventually } from '../support/eventually.js';
import { startControllerProcess } from '../support/controller-process.js';

/** Issue 2, shown 4: two controller processes on one queue. */
describe('two controller processes sharing one queue', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  let namespace: string;
  let helm: HelmShim;
  const processes: ResultPromise[] = [];
  let healthPorts: number[] = [];

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'pair');
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-pair-'));
    helm = await createHelmShim(dir, env.helmBin);
    const prefix = uniqueName('hc-pair');
    healthPorts = await freePorts(2);
    for (const [index, replica] of ['a', 'b'].entries()) {
      const child = startControllerProcess(env, {
        helmBin: helm.bin,
        namespace,
        prefix,
        dir,
        replica,
        env: { HELMCREW_RESYNC_TICK_MS: '500', HEALTH_PORT: String(healthPorts[index]) },
      });
      processes.push(child);
    }
  });
  afterAll(async () => {
    for (const child of processes) child.kill('SIGTERM');
    await Promise.all(processes);
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (version: string, values: Record<string, unknown> = {}) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'shared', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, values, interval: '2s' }),
    );

  it('both report ready once their informers have synced', async () => {
    for (const port of healthPorts) {
      // Refused until the health server listens: that error is retried (and shown on time-out).
      await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200), { timeoutMs: 30_000 });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    }
  });

  it('each change is reconciled once, by one of them', async () => {
    let generation = await declare('1.0.0');
    await waitForReconciled(kubeConfig, namespace, 'shared', generation);
    generation = await declare('2.0.0');
    await waitForReconciled(kubeConfig, namespace, 'shared', generation);
    // Proves that nothing happens while both replicas' periodic checks run a few times.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await helm.count('install')).toBe(1);
    expect(await helm.count('upgrade')).toBe(1);
    expect((await storage.history(namespace, 'shared')).releases.map((r) => r.revision)).toEqual([2, 1]);
  });

  it('a spec change made during an in-flight upgrade is applied afterwards', async () => {
    // The upgrade to 3.0.0 is held (the wrapper) until the change is made: was a fixed 6 s.
    const held = await helm.hold('upgrade');
    const upgradesBefore = await helm.count('upgrade');
    await declare('3.0.0');
    // wait until helm upgrade to 3.0.0 has started
    await eventually(async () => expect(await helm.count('upgrade')).toBe(upgradesBefore + 1), { timeoutMs: 30_000, intervalMs: 100 });
    const inFlight = await api.get(namespace, 'shared');
    expect(inFlight?.status?.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({ status: 'True', reason: 'Upgrading' });
    const generation = await declare('3.0.0', { message: 'changed mid-upgrade' });
    // The change is made while helm is held; released, helm still runs a second or more (pull,
    // apply, --wait) while the watch brings the change in.
    await held.release();

    const release = await waitForReconciled(kubeConfig, namespace, 'shared', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const history = await storage.history(namespace, 'shared');
    expect(history.deployed).toMatchObject({ chartVersion: '3.0.0', config: { message: 'changed mid-upgrade' } });
    expect(await helm.count('upgrade')).toBe(upgradesBefore + 2);
    // never two helm operations on one release at once: helm would have refused with "another operation is in progress"
    expect(history.releases.every((r) => r.status !== 'failed')).toBe(true);
  });
});
