import { describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, FINALIZER, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, deploymentAvailable, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForGone } from '../support/eventually.js';

/** Issue 2, shown 3: deleting uninstalls; suspended then deleted keeps the release. */
describe('deleting and suspending', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const { namespace, ctl } = namespaceWithController('del');

  const install = async (name: string) => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, name, generation);
    expect(release.metadata.finalizers).toContain(FINALIZER);
    expect((await storage.history(namespace, name)).deployed?.revision).toBe(1);
  };
  const remove = (name: string) =>
    kube.custom.deleteNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace, name });
  const waitGone = (name: string) => waitForGone(kubeConfig, namespace, name);

  it('delete → release uninstalled, finalizer removed, object gone', async () => {
    await install('gone');
    await remove('gone');
    await waitGone('gone');
    expect((await storage.history(namespace, 'gone')).releases).toEqual([]);
    expect(await deploymentAvailable(kubeConfig, namespace, 'gone')).toBe(false);
    expect(await ctl.helm.count('uninstall')).toBe(1);
  });

  it('suspended, then deleted → the release is kept and helm is not called', async () => {
    await install('kept');
    const runsBefore = (await ctl.helm.invocations()).length;
    const current = (await api.get(namespace, 'kept'))!;
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'kept', { ...current.spec, suspend: true }));
    await remove('kept');
    await waitGone('kept');
    expect((await storage.history(namespace, 'kept')).deployed?.revision).toBe(1);
    expect(await deploymentAvailable(kubeConfig, namespace, 'kept')).toBe(true);
    expect((await ctl.helm.invocations()).length).toBe(runsBefore);
  });

  it('suspended → a spec change is not acted on; resumed → it is', async () => {
    await install('paused');
    const current = (await api.get(namespace, 'paused'))!;
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'paused', { ...current.spec, suspend: true }));
    const upgradesBefore = await ctl.helm.count('upgrade');
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'paused', { ...current.spec, suspend: true, chart: { ...current.spec.chart, version: '2.0.0' } }),
    );
    // Proves that nothing happens to a suspended release's new spec.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ctl.helm.count('upgrade')).toBe(upgradesBefore);
    expect((await storage.history(namespace, 'paused')).deployed?.chartVersion).toBe('1.0.0');

    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'paused', { ...current.spec, suspend: false, chart: { ...current.spec.chart, version: '2.0.0' } }),
    );
    await waitForReconciled(kubeConfig, namespace, 'paused', generation);
    expect((await storage.history(namespace, 'paused')).deployed?.chartVersion).toBe('2.0.0');
  });
});
