import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { pollUntil, waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { startTestChartRepo, type TestChartRepo } from '../support/job-chart.js';
import { CRDS_CHART, GADGET_CRD, OPTIONS_CHART, RENAMED_CHART } from '../support/options-chart.js';

/**
 * Issue 34: Flux's action options helmcrew lacked, each seen on the API server or in helm's
 * records (not only in helm's arguments), next to the same release without the option. The
 * releases run side by side (one controller, several workers).
 */
describe.concurrent('Flux action options on real releases', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const crds = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const { namespace } = namespaceWithController('fluxopts');
  let repo: TestChartRepo;
  beforeAll(async () => {
    repo = await startTestChartRepo(env.helmBin, [OPTIONS_CHART, RENAMED_CHART, CRDS_CHART]);
  });
  afterAll(async () => {
    await crds.deleteCustomResourceDefinition({ name: GADGET_CRD }).catch(() => undefined);
    await repo?.close();
  });

  const ready = (release: HelmRelease) => release.status?.conditions?.find((c) => c.type === 'Ready');
  const declare = async (name: string, spec: Partial<HelmReleaseSpec>, chart = OPTIONS_CHART.name) => {
    const object = helmReleaseObject(namespace, name, { chart: { repository: repo.url, name: chart, version: '0.1.0' }, timeout: '60s', ...spec });
    return waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, object), 180_000);
  };
  const configData = async (release: string) => (await core.readNamespacedConfigMap({ namespace, name: `${release}-config` })).data;
  const exists = (read: Promise<unknown>) =>
    read.then(
      () => true,
      () => false,
    );
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const waitFor = (name: string, done: (release: HelmRelease) => boolean | undefined) =>
    pollUntil(
      async () => {
        const release = await api.get(namespace, name);
        return release && done(release) ? release : undefined;
      },
      { timeoutMs: 120_000 },
      () => `${namespace}/${name} did not get there`,
    );
  const records = async (release: string) => (await storage.history(namespace, release)).releases.map((r) => [r.revision, r.status, r.chartName]);

  it('upgrade.remediation.ignoreTestFailures: a failed test after the upgrade is reported, not rolled back; false wins over test.ignoreFailures', async ({
    expect,
  }) => {
    const run = async (name: string, spec: Partial<HelmReleaseSpec>) => {
      expect(ready(await declare(name, { ...spec, test: { ...spec.test, enable: true } }))).toMatchObject({ status: 'True' });
      await declare(name, { ...spec, test: { ...spec.test, enable: true }, values: { testB: { fails: true } } });
    };
    await Promise.all([
      run('itf-on', { upgrade: { remediation: { retries: 0, ignoreTestFailures: true } } }),
      run('itf-off', { test: { ignoreFailures: true }, upgrade: { remediation: { retries: 0, ignoreTestFailures: false } } }),
    ]);
    const on = await waitForReadyReason(kubeConfig, namespace, 'itf-on', 'TestFailed');
    expect(on.ready).toMatchObject({ status: 'True' });
    expect(on.ready.message).toContain('ignored: upgrade.remediation.ignoreTestFailures');
    expect(await records('itf-on')).toEqual([
      [2, 'deployed', 'opts'],
      [1, 'superseded', 'opts'],
    ]);
    // test.ignoreFailures would have kept it; the upgrade's own false sends it back to revision 1.
    const off = await waitFor('itf-off', (r) => r.status?.conditions?.some((c) => c.type === 'Remediated'));
    expect(off.status?.conditions?.find((c) => c.type === 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    // Revision 2 was deployed (only its test failed), then superseded by the rollback.
    expect(await records('itf-off')).toEqual([
      [3, 'deployed', 'opts'],
      [2, 'superseded', 'opts'],
      [1, 'superseded', 'opts'],
    ]);
  });

  it('upgrade.preserveValues: values no longer declared stay (helm --reuse-values), and the release is then in sync', async ({ expect }) => {
    const values = { message: 'kept', extra: true };
    await Promise.all([declare('pv-on', { values }), declare('pv-off', { values })]);
    const [on, off] = await Promise.all([
      declare('pv-on', { values: { mode: 'b' }, upgrade: { preserveValues: true } }),
      declare('pv-off', { values: { mode: 'b' } }),
    ]);
    expect([ready(on)?.reason, ready(off)?.reason]).toEqual(['UpgradeSucceeded', 'UpgradeSucceeded']);
    expect(await configData('pv-on')).toEqual({ message: 'kept' });
    expect(await exists(core.readNamespacedConfigMap({ namespace, name: 'pv-on-extra' }))).toBe(true);
    expect((await storage.history(namespace, 'pv-on')).deployed?.config).toEqual({ message: 'kept', extra: true, mode: 'b' });
    expect(await configData('pv-off')).toEqual({ message: 'hello' });
    expect(await exists(core.readNamespacedConfigMap({ namespace, name: 'pv-off-extra' }))).toBe(false);
    // In sync: a new generation with the same spec changes nothing in helm (no third revision).
    const again = await declare('pv-on', { values: { mode: 'b' }, upgrade: { preserveValues: true }, interval: '11m' });
    expect(ready(again)).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'pv-on')).latest?.revision).toBe(2);
  });

  it('upgrade.chartNameChangeStrategy: Reinstall uninstalls and installs the new chart; InPlaceUpdate (the default) upgrades', async ({ expect }) => {
    await Promise.all([declare('cn-re', {}), declare('cn-in', {})]);
    const [re, inPlace] = await Promise.all([
      declare('cn-re', { upgrade: { chartNameChangeStrategy: 'Reinstall' } }, RENAMED_CHART.name),
      declare('cn-in', { upgrade: { chartNameChangeStrategy: 'InPlaceUpdate' } }, RENAMED_CHART.name),
    ]);
    expect(ready(re)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(await records('cn-re')).toEqual([[1, 'deployed', 'opts-renamed']]);
    expect(ready(inPlace)).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(await records('cn-in')).toEqual([
      [2, 'deployed', 'opts-renamed'],
      [1, 'superseded', 'opts'],
    ]);
  });

  it('install.skipCRDs: the chart’s CRD is not created', async ({ expect }) => {
    const installed = await declare('crd-skip', { install: { skipCRDs: true } }, CRDS_CHART.name);
    expect(ready(installed)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(await exists(crds.readCustomResourceDefinition({ name: GADGET_CRD }))).toBe(false);
  });

  it('postRenderStrategy: nohooks leaves hooks as the chart renders them; combined (the default) and separate post-render them too', async ({ expect }) => {
    const labelled = { commonMetadata: { labels: { 'cost-center': 'cc-9' } } };
    await Promise.all([
      declare('prs-nohooks', { ...labelled, postRenderStrategy: 'nohooks' }),
      declare('prs-combined', labelled),
      declare('prs-separate', { ...labelled, postRenderStrategy: 'separate' }),
    ]);
    const labels = async (release: string) => [
      (await core.readNamespacedConfigMap({ namespace, name: `${release}-config` })).metadata?.labels?.['cost-center'],
      (await core.readNamespacedPod({ namespace, name: `${release}-post-hook` })).metadata?.labels?.['cost-center'],
    ];
    expect(await labels('prs-nohooks')).toEqual(['cc-9', undefined]);
    expect(await labels('prs-combined')).toEqual(['cc-9', 'cc-9']);
    expect(await labels('prs-separate')).toEqual(['cc-9', 'cc-9']);
  });

  it('postRenderStrategy separate: a patch without a target names an object of one part only, so it does not apply to the other', async ({ expect }) => {
    const patch = `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: prs-strict-config }\ndata: { patched: "yes" }\n`;
    const renderers = { postRenderers: [{ kustomize: { patches: [{ patch }] } }] };
    const [strict, together] = await Promise.all([
      declare('prs-strict', { ...renderers, postRenderStrategy: 'separate' }),
      declare('prs-together', { postRenderers: [{ kustomize: { patches: [{ patch: patch.replace('prs-strict', 'prs-together') }] } }] }),
    ]);
    expect(ready(strict)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready(strict)?.message).toContain('spec.postRenderers[0].kustomize.patches[0] does not apply');
    expect(ready(together)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(await configData('prs-together')).toEqual({ message: 'hello', patched: 'yes' });
  });
});
