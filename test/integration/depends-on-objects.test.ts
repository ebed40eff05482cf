import { ApiextensionsV1Api, AppsV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { mergePatch } from '../../src/core/kube/kube-clients.js';
import { waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { widgetCrd } from '../support/widget-chart.js';

/** Issue 34: dependsOn any object (a CRD Established, a Deployment Available) and readyExpr on a HelmRelease. */
describe('dependsOn other kinds, readyExpr', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace } = namespaceWithController('deps-obj');
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const group = `${uniqueName('d')}.helmcrew.test`;
  afterAll(async () => {
    await extensions.deleteCustomResourceDefinition({ name: `widgets.${group}` }).catch(() => undefined);
  });
  const declare = (name: string, spec: Partial<HelmReleaseSpec>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        timeout: '60s',
        interval: '1h',
        ...spec,
      }),
    );

  it('waits for a CRD to exist and be Established', async () => {
    await declare('after-crd', {
      dependsOn: [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${group}`, ready: true }],
    });
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'after-crd', 'DependencyNotReady', { timeoutMs: 30_000 });
    expect(ready.message).toBe(`Waiting for apiextensions.k8s.io/v1 CustomResourceDefinition widgets.${group}: does not exist yet (dependsOn)`);
    await extensions.createCustomResourceDefinition({ body: widgetCrd(group) as never });
    await waitForReadyReason(kubeConfig, namespace, 'after-crd', 'InstallSucceeded', { timeoutMs: 60_000 });
  });

  it('waits for a Deployment to be Available (its pod fits no node; scaled to 0 by the test, the deployment controller marks it Available)', async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'api' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'api' } },
          template: {
            metadata: { labels: { app: 'api' } },
            spec: { nodeSelector: { 'helmcrew.test/no-such-node': 'true' }, containers: [{ name: 'api', image: 'registry.local/api:1' }] },
          },
        },
      },
    });
    await declare('after-deploy', { dependsOn: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', ready: true }] });
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'after-deploy', 'DependencyNotReady', { timeoutMs: 30_000 });
    expect(ready.message).toMatch(new RegExp(`^Waiting for apps/v1 Deployment ${namespace}/api: not ready: `));
    await apps.patchNamespacedDeployment({ name: 'api', namespace, body: { spec: { replicas: 0 } } }, mergePatch);
    await waitForReadyReason(kubeConfig, namespace, 'after-deploy', 'InstallSucceeded', { timeoutMs: 90_000 });
  });

  it('a readyExpr on a HelmRelease dependency names the expression while false, then lets it go', async () => {
    await declare('base', { values: { tier: 'gold' } });
    await waitForReadyReason(kubeConfig, namespace, 'base', 'InstallSucceeded', { timeoutMs: 60_000 });
    const readyExpr = 'dep.spec.values.tier == self.spec.values.tier';
    await declare('lockstep', { values: { tier: 'silver' }, dependsOn: [{ name: 'base', readyExpr }] });
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'lockstep', 'DependencyNotReady', { timeoutMs: 30_000 });
    expect(ready.message).toBe(`Waiting for HelmRelease ${namespace}/base: readyExpr "${readyExpr}" is false (dependsOn)`);
    await declare('base', { values: { tier: 'silver' } });
    await waitForReadyReason(kubeConfig, namespace, 'lockstep', 'InstallSucceeded', { timeoutMs: 90_000 });
  });
});
