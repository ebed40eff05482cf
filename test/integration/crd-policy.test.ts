import { ApiextensionsV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { startGizmoRepo, type GizmoRepo } from '../support/gizmo-chart.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';

/** Issue 24: install.crds / upgrade.crds on a chart whose CRD gains `spec.color` in 2.0.0. */
describe('CRD policy', () => {
  const { env, kubeConfig } = testEnv();
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const { namespace } = namespaceWithController('crds');
  const repos: GizmoRepo[] = [];

  const newRepo = async () => {
    const repo = await startGizmoRepo(env.helmBin, `${uniqueName('crd')}.helmcrew.test`);
    repos.push(repo);
    return repo;
  };
  beforeAll(async () => {
    // A tenant identity: admin of its own namespace, no rights on CRDs.
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'tenant' } } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'tenant' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace }],
      },
    });
  });
  afterAll(async () => {
    for (const repo of repos) {
      await extensions.deleteCustomResourceDefinition({ name: repo.crdName }).catch(() => undefined);
      await repo.close();
    }
  });

  const colorOf = async (repo: GizmoRepo) => {
    const crd = await extensions.readCustomResourceDefinition({ name: repo.crdName });
    return crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.properties?.color;
  };
  const installThenUpgrade = async (name: string, repo: GizmoRepo, over: Partial<HelmReleaseSpec>) => {
    const spec = (version: string): HelmReleaseSpec => ({ chart: { repository: repo.url, name: 'gizmo', version }, timeout: '60s', ...over });
    await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec('1.0.0'))));
    // Installed by helm (install.crds defaults to Create): 1.0.0's CRD, without color.
    expect(await colorOf(repo)).toBeUndefined();
    const upgraded = await waitForReconciled(
      kubeConfig,
      namespace,
      name,
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec('2.0.0'))),
    );
    expect(upgraded.status?.history?.[0]).toMatchObject({ revision: 2, chartVersion: '2.0.0', status: 'deployed' });
    return upgraded;
  };

  it('upgrade.crds Skip (the default) leaves the CRD as it was', async () => {
    const repo = await newRepo();
    await installThenUpgrade('skipped', repo, {});
    expect(await colorOf(repo)).toBeUndefined();
  });

  it('upgrade.crds CreateReplace updates the CRD before the upgrade', async () => {
    const repo = await newRepo();
    await installThenUpgrade('replaced', repo, { upgrade: { crds: 'CreateReplace' } });
    expect(await colorOf(repo)).toEqual({ type: 'string' });
  });

  it('install.crds Skip installs no CRD', async () => {
    const repo = await newRepo();
    const spec: HelmReleaseSpec = { chart: { repository: repo.url, name: 'gizmo', version: '1.0.0' }, timeout: '60s', install: { crds: 'Skip' } };
    const installed = await waitForReconciled(
      kubeConfig,
      namespace,
      'no-crds',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'no-crds', spec)),
    );
    expect(installed.status?.history?.[0]).toMatchObject({ revision: 1, status: 'deployed' });
    await expect(extensions.readCustomResourceDefinition({ name: repo.crdName })).rejects.toMatchObject({ code: 404 });
  });

  it('a CRD the HelmRelease identity may not write: Ready=False naming the CRD and the identity, and helm never runs', async () => {
    const repo = await newRepo();
    const spec: HelmReleaseSpec = {
      chart: { repository: repo.url, name: 'gizmo', version: '1.0.0' },
      timeout: '60s',
      serviceAccountName: 'tenant',
      install: { crds: 'CreateReplace' },
    };
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'refused', spec));
    // Safe defaults (issue 33): a refusal to the release's identity is IdentityForbidden, naming who may not do what.
    const { release, ready } = await waitForReadyReason(kubeConfig, namespace, 'refused', 'IdentityForbidden', { timeoutMs: 90_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(`install.crds CreateReplace: could not create or replace CustomResourceDefinition ${repo.crdName}`);
    expect(ready.message).toContain(`as system:serviceaccount:${namespace}:tenant`);
    expect(ready.message).toMatch(/forbidden/i);
    expect(release.status?.history ?? []).toEqual([]);
    await expect(extensions.readCustomResourceDefinition({ name: repo.crdName })).rejects.toMatchObject({ code: 404 });
  });
});
