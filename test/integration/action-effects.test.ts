import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { pollUntil, waitForGone } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { startTestChartRepo, type TestChartRepo } from '../support/job-chart.js';
import { OPTIONS_CHART } from '../support/options-chart.js';

/**
 * Issue 34: the action options that were checked only as helm flags, each seen by its effect on
 * the API server or in helm's records, next to the same release without it (so each check fails
 * without the option). Also the default helmcrew keeps from Flux: taking ownership of objects that
 * already exist (docs/release.md). The releases run side by side.
 */
describe.concurrent('action options by their effect', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const storage = new ReleaseStorage(kube);
  const api = new HelmReleaseApi(kube);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const { namespace } = namespaceWithController('effects');
  let repo: TestChartRepo;
  beforeAll(async () => {
    repo = await startTestChartRepo(env.helmBin, [OPTIONS_CHART]);
  });
  afterAll(async () => repo?.close());

  const ready = (release: HelmRelease) => release.status?.conditions?.find((c) => c.type === 'Ready');
  const condition = (release: HelmRelease, type: string) => release.status?.conditions?.find((c) => c.type === type);
  const declare = async (name: string, spec: Partial<HelmReleaseSpec>) => {
    const object = helmReleaseObject(namespace, name, { chart: { repository: repo.url, name: OPTIONS_CHART.name, version: '0.1.0' }, timeout: '60s', ...spec });
    return waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, object), 180_000);
  };
  const waitFor = (name: string, done: (release: HelmRelease) => boolean | undefined) =>
    pollUntil(
      async () => {
        const release = await api.get(namespace, name);
        return release && done(release) ? release : undefined;
      },
      { timeoutMs: 120_000 },
      () => `${namespace}/${name} did not get there`,
    );
  const exists = (read: Promise<unknown>) =>
    read.then(
      () => true,
      () => false,
    );
  const configMapExists = (name: string) => exists(core.readNamespacedConfigMap({ namespace, name }));
  const podExists = (name: string) => exists(core.readNamespacedPod({ namespace, name }));
  const records = async (release: string) => (await storage.history(namespace, release)).releases.map((r) => [r.revision, r.status, r.applyMethod]);
  const remove = async (name: string) => {
    await kube.custom.deleteNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace, name });
    await waitForGone(kubeConfig, namespace, name, 120_000);
  };
  /** A post-upgrade hook that fails: the upgrade fails after its objects were applied. */
  const failingUpgrade = { postHook: { fails: true }, extra: true };

  it('upgrade.cleanupOnFail: the objects a failed upgrade created are deleted; without it they stay', async ({ expect }) => {
    await Promise.all([declare('cof-on', {}), declare('cof-off', {})]);
    const [on, off] = await Promise.all([
      declare('cof-on', { values: failingUpgrade, upgrade: { cleanupOnFail: true } }),
      declare('cof-off', { values: failingUpgrade }),
    ]);
    expect([ready(on)?.reason, ready(off)?.reason]).toEqual(['UpgradeFailed', 'UpgradeFailed']);
    expect(await configMapExists('cof-on-extra')).toBe(false);
    expect(await configMapExists('cof-off-extra')).toBe(true);
  });

  it('install.serverSideApply false and upgrade.serverSideApply disabled apply client-side; the default is server-side; auto follows the last revision', async ({
    expect,
  }) => {
    await Promise.all([declare('ssa-default', {}), declare('ssa-off', { install: { serverSideApply: false } })]);
    expect(await records('ssa-default')).toEqual([[1, 'deployed', 'ssa']]);
    expect(await records('ssa-off')).toEqual([[1, 'deployed', 'csa']]);
    const manager = async (release: string) =>
      (await core.readNamespacedConfigMap({ namespace, name: `${release}-config` })).metadata?.managedFields?.map((f) => f.operation);
    expect(await manager('ssa-default')).toEqual(['Apply']);
    expect(await manager('ssa-off')).toEqual(['Update']);
    await declare('ssa-default', { values: { message: 'two' }, upgrade: { serverSideApply: 'disabled' } });
    await declare('ssa-off', { values: { message: 'two' }, install: { serverSideApply: false }, upgrade: { serverSideApply: 'auto' } });
    expect((await records('ssa-default'))[0]).toEqual([2, 'deployed', 'csa']);
    expect((await records('ssa-off'))[0]).toEqual([2, 'deployed', 'csa']);
  });

  it('install.replace reuses the name of an uninstalled release whose history was kept; without it the install fails', async ({ expect }) => {
    const kept = { uninstall: { keepHistory: true } };
    await Promise.all([declare('rep-on', kept), declare('rep-off', kept)]);
    await Promise.all([remove('rep-on'), remove('rep-off')]);
    const [on, off] = await Promise.all([declare('rep-on', { ...kept, install: { replace: true } }), declare('rep-off', kept)]);
    expect(ready(on)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect((await storage.history(namespace, 'rep-on')).deployed).toBeDefined();
    expect(ready(off)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready(off)?.message).toMatch(/cannot re-?use a name that is still in use/);
  });

  it('install.disableSchemaValidation installs values the chart’s values.schema.json refuses', async ({ expect }) => {
    const [on, off] = await Promise.all([
      declare('schema-on', { values: { mode: 'c' }, install: { disableSchemaValidation: true } }),
      declare('schema-off', { values: { mode: 'c' } }),
    ]);
    expect(ready(on)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(ready(off)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready(off)?.message).toMatch(/schema/i);
  });

  it('taking ownership (the default kept from Flux) adopts an existing object; disableTakeOwnership refuses it', async ({ expect }) => {
    for (const name of ['own-default', 'own-off']) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `${name}-config` }, data: { message: 'made by hand' } } });
    }
    const [adopted, refused] = await Promise.all([declare('own-default', {}), declare('own-off', { install: { disableTakeOwnership: true } })]);
    expect(ready(adopted)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const taken = await core.readNamespacedConfigMap({ namespace, name: 'own-default-config' });
    expect(taken.data).toEqual({ message: 'hello' });
    expect(taken.metadata?.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'own-default' });
    expect(ready(refused)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready(refused)?.message).toMatch(/exists and cannot be imported/);
    expect((await core.readNamespacedConfigMap({ namespace, name: 'own-off-config' })).data).toEqual({ message: 'made by hand' });
  });

  it('uninstall.deletionPropagation orphan leaves the ReplicaSets; background (the default) deletes them', async ({ expect }) => {
    await Promise.all([
      declare('dp-orphan', { values: { web: true }, uninstall: { deletionPropagation: 'orphan' } }),
      declare('dp-bg', { values: { web: true } }),
    ]);
    const replicaSets = async (release: string) =>
      (await apps.listNamespacedReplicaSet({ namespace, labelSelector: `app=${release}-web` })).items.filter((rs) => !rs.metadata?.deletionTimestamp);
    await pollUntil(
      async () => ((await replicaSets('dp-orphan')).length > 0 && (await replicaSets('dp-bg')).length > 0 ? true : undefined),
      { timeoutMs: 60_000 },
      () => 'no ReplicaSets',
    );
    await Promise.all([remove('dp-orphan'), remove('dp-bg')]);
    await pollUntil(
      async () => ((await replicaSets('dp-bg')).length === 0 ? true : undefined),
      { timeoutMs: 60_000 },
      () => 'dp-bg ReplicaSet left',
    );
    const orphans = await replicaSets('dp-orphan');
    expect(orphans).toHaveLength(1);
    expect(orphans[0]?.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it('test.filters: an excluded test does not run; without the filter the same failing test fails the install', async ({ expect }) => {
    const failingB = { values: { testB: { fails: true } } };
    const [filtered, unfiltered] = await Promise.all([
      declare('tf-on', { ...failingB, test: { enable: true, filters: [{ name: 'tf-on-test-b', exclude: true }] } }),
      declare('tf-off', { ...failingB, test: { enable: true } }),
    ]);
    const on = filtered.status?.lastTest ? filtered : await waitFor('tf-on', (r) => !!r.status?.lastTest);
    expect(on.status?.lastTest).toMatchObject({ succeeded: true });
    expect(await podExists('tf-on-test-a')).toBe(true);
    expect(await podExists('tf-on-test-b')).toBe(false);
    const off = unfiltered.status?.lastTest ? unfiltered : await waitFor('tf-off', (r) => !!r.status?.lastTest);
    expect(off.status?.lastTest).toMatchObject({ succeeded: false });
    expect(condition(off, 'TestSuccess')).toMatchObject({ status: 'False' });
  });

  it('rollback.disableHooks: a failing pre-rollback hook fails the remediation, unless hooks are off', async ({ expect }) => {
    // helm leaves a rollback whose pre-rollback hook failed pending-rollback; the controller marks
    // that revision failed as the remediation fails (rollback-left-pending.ts), where before it
    // held the release until the lock went stale (the recorded timeout plus LOCK_GRACE_MS).
    const base = {
      timeout: '5s',
      values: { rollbackHook: { fails: true } },
      upgrade: { remediation: { retries: 0, remediateLastFailure: true } },
    };
    await Promise.all([declare('rbh-on', { ...base, rollback: { disableHooks: true } }), declare('rbh-off', base)]);
    const broken = { values: { rollbackHook: { fails: true }, ...failingUpgrade } };
    await Promise.all([declare('rbh-on', { ...base, ...broken, rollback: { disableHooks: true } }), declare('rbh-off', { ...base, ...broken })]);
    const [on, off] = await Promise.all([waitFor('rbh-on', (r) => !!condition(r, 'Remediated')), waitFor('rbh-off', (r) => !!condition(r, 'Remediated'))]);
    expect(condition(on, 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    expect((await storage.history(namespace, 'rbh-on')).deployed?.revision).toBe(3);
    expect(await podExists('rbh-on-rollback-hook')).toBe(false);
    expect(condition(off, 'Remediated')).toMatchObject({ status: 'False', reason: 'RollbackFailed' });
    // Marked by the failed rollback's own pass, not by the stale-lock rule later (whose words differ).
    const left = (await storage.history(namespace, 'rbh-off')).latest;
    expect([left?.revision, left?.status]).toEqual([3, 'failed']);
    expect(left?.description).toMatch(/^helmcrew: helm rollback failed and left revision 3 pending-rollback/);
    expect(await podExists('rbh-off-rollback-hook')).toBe(true);
  });

  it('rollback.force and rollback.serverSideApply disabled roll back client-side; by default a rollback follows the last revision (server-side)', async ({
    expect,
  }) => {
    const base = { upgrade: { remediation: { retries: 0, remediateLastFailure: true } } };
    const names = { 'rbf-force': { force: true }, 'rbf-csa': { serverSideApply: 'disabled' as const }, 'rbf-default': {} };
    await Promise.all(Object.entries(names).map(([name, rollback]) => declare(name, { ...base, rollback })));
    await Promise.all(Object.entries(names).map(([name, rollback]) => declare(name, { ...base, rollback, values: failingUpgrade })));
    const done = await Promise.all(Object.keys(names).map((name) => waitFor(name, (r) => !!condition(r, 'Remediated'))));
    for (const release of done) expect(condition(release, 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    const rollbackRecord = async (name: string) => (await records(name))[0];
    expect(await rollbackRecord('rbf-force')).toEqual([3, 'deployed', 'csa']);
    expect(await rollbackRecord('rbf-csa')).toEqual([3, 'deployed', 'csa']);
    expect(await rollbackRecord('rbf-default')).toEqual([3, 'deployed', 'ssa']);
  });
});
