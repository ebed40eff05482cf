import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 8: a change in a valuesFrom ConfigMap or Secret is applied within seconds, not at the next interval. */
describe('valuesFrom changes act', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(kube);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('valuesrc');

  it('a ConfigMap change upgrades the release long before its interval (10m); an unrelated one starts no helm', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'unicorn-values' }, data: { 'values.yaml': 'color: blue\n' } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'unrelated' }, data: { 'values.yaml': 'color: red\n' } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'unicorn-secret' }, stringData: { 'values.yaml': 'message: hello\n' } } });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        interval: '10m',
        timeout: '60s',
        valuesFrom: [
          { kind: 'ConfigMap', name: 'unicorn-values' },
          { kind: 'Secret', name: 'unicorn-secret' },
        ],
      }),
    );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    const helmCalls = (await ctl.helm.invocations()).length;

    await core.replaceNamespacedConfigMap({
      namespace,
      name: 'unrelated',
      body: { metadata: { name: 'unrelated' }, data: { 'values.yaml': 'color: black\n' } },
    });
    // Proves that nothing happens for an unrelated ConfigMap.
    await sleep(3000);
    expect((await ctl.helm.invocations()).length).toBe(helmCalls);

    await core.replaceNamespacedConfigMap({
      namespace,
      name: 'unicorn-values',
      body: { metadata: { name: 'unicorn-values' }, data: { 'values.yaml': 'color: purple\n' } },
    });
    // Only the watch can start this upgrade within the minute: the periodic check is 10 minutes away.
    await eventually(async () => expect((await storage.history(namespace, 'unicorn')).deployed?.revision).toBe(2));
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('purple');

    // and a Secret change the same way
    await core.replaceNamespacedSecret({
      namespace,
      name: 'unicorn-secret',
      body: { metadata: { name: 'unicorn-secret' }, stringData: { 'values.yaml': 'message: bonjour\n' } },
    });
    await eventually(async () => expect((await storage.history(namespace, 'unicorn')).deployed?.revision).toBe(3));
    await eventually(async () => {
      const conditions = (await api.get(namespace, 'unicorn'))?.status?.conditions;
      expect(conditions?.find((c) => c.type === 'Reconciling')).toBeUndefined();
      expect(conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    });
  });
});
