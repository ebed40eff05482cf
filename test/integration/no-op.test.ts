import { describe, expect, it } from 'vitest';
import { HelmReleaseApi } from '../../src/controller/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/controller/kube/client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Issue 2, shown 2: when nothing changed, no helm process starts. */
describe('a release in sync', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('noop');

  it('re-applying the same spec and periodic checks start no helm process', async () => {
    const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' }, interval: '1s', values: { replicaCount: 2, message: 'steady' } };
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
    const installed = await waitForReconciled(kubeConfig, namespace, 'steady', generation);
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const helmRunsAfterInstall = (await ctl.helm.invocations()).length;
    expect(await ctl.helm.count('install')).toBe(1);

    // The same spec again: the server keeps the generation, and the controller starts no helm.
    const again = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
    expect(again).toBe(generation);

    // Several periodic checks (interval 1s) must happen, each recorded in status, none with helm.
    const checks = new Set<string>();
    const deadline = Date.now() + 20_000;
    while (checks.size < 4 && Date.now() < deadline) {
      const current = await api.get(namespace, 'steady');
      if (current?.status?.lastReconciledAt) checks.add(current.status.lastReconciledAt);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(checks.size).toBeGreaterThanOrEqual(4);
    expect((await ctl.helm.invocations()).length).toBe(helmRunsAfterInstall);
  });

  it('a values change is an upgrade, decided without helm and done with exactly one', async () => {
    const before = (await ctl.helm.invocations()).length;
    const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' }, interval: '1s', values: { replicaCount: 2, message: 'changed' } };
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
    const release = await waitForReconciled(kubeConfig, namespace, 'steady', generation);
    expect(release.status?.history?.[0]).toMatchObject({ revision: 2, status: 'deployed' });
    const runs = (await ctl.helm.invocations()).slice(before).map((args) => args[0]);
    // the chart archive is cached from the install, so the upgrade is the only helm process
    expect(runs).toEqual(['upgrade']);
  });
});
