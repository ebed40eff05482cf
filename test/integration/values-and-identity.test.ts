import { describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Values from ConfigMaps and Secrets, values the chart refuses, and helm run as a ServiceAccount (real RBAC). */
describe('values and identity', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('vals');

  const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
  const readyOf = (release: Awaited<ReturnType<typeof waitForReconciled>>) => release.status?.conditions?.find((c) => c.type === 'Ready');

  it('merges valuesFrom in order, then spec.values, and helm gets exactly that', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'base' }, data: { 'values.yaml': 'color: purple\nmessage: from the configmap\n' } },
    });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'override' }, stringData: { custom: 'message: from the secret\n' } } });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'layered', {
        chart,
        valuesFrom: [
          { kind: 'ConfigMap', name: 'base' },
          { kind: 'Secret', name: 'override', valuesKey: 'custom' },
          { kind: 'ConfigMap', name: 'not-there', optional: true },
        ],
        values: { replicaCount: 2 },
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'layered', generation);
    expect(readyOf(release)?.status).toBe('True');
    expect((await storage.history(namespace, 'layered')).deployed?.config).toEqual({ color: 'purple', message: 'from the secret', replicaCount: 2 });
    expect(await servedColor(kubeConfig, namespace, 'layered')).toBe('purple');
  });

  it('values the chart’s schema refuses → Ready=False InstallFailed with helm’s reason', async () => {
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'badvalues', { chart, values: { color: 'Hot Pink!' } }));
    const release = await waitForReconciled(kubeConfig, namespace, 'badvalues', generation);
    expect(readyOf(release)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(readyOf(release)?.message).toMatch(/schema/i);
    expect(readyOf(release)?.message).toMatch(/color/);
  });

  it('serviceAccountName: helm acts with that account’s rights, no more', async () => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'deployer' } } });
    const spec = { chart, serviceAccountName: 'deployer' };
    let generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'scoped', spec));
    let release = await waitForReconciled(kubeConfig, namespace, 'scoped', generation);
    // Its release records are read as the account too: with no rights it is stopped before helm.
    expect(readyOf(release)).toMatchObject({ status: 'False', reason: 'AccessDenied' });
    expect(readyOf(release)?.message).toMatch(/forbidden/i);
    expect(readyOf(release)?.message).toMatch(/system:serviceaccount:[a-z0-9-]+:deployer/);
    expect((await ctl.helm.invocations()).filter((args) => args[1] === 'scoped')).toEqual([]);

    await kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'deployer-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace }],
      },
    });
    // a change retries a failed install (here: the message)
    generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'scoped', { ...spec, values: { message: 'granted' } }));
    release = await waitForReconciled(kubeConfig, namespace, 'scoped', generation);
    expect(readyOf(release)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
  });

  it('a first install that failed is uninstalled and installed again once the spec is fixed', async () => {
    let generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'second-try', { chart: { ...chart, version: '4.0.0' } }));
    let release = await waitForReconciled(kubeConfig, namespace, 'second-try', generation);
    expect(readyOf(release)).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect((await storage.history(namespace, 'second-try')).latest?.status).toBe('failed');

    const before = (await ctl.helm.invocations()).length;
    generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'second-try', { chart: { ...chart, version: '3.0.0' } }));
    release = await waitForReconciled(kubeConfig, namespace, 'second-try', generation);
    expect(readyOf(release)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect((await ctl.helm.invocations()).slice(before).map((args) => args[0])).toEqual(['pull', 'uninstall', 'install']);
    expect((await storage.history(namespace, 'second-try')).deployed).toMatchObject({ revision: 1, chartVersion: '3.0.0' });
  });
});
