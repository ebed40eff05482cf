import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Issue 24: valuesFrom[].targetPath puts one Secret key at one path (Flux's way to pass a password). */
describe('valuesFrom targetPath', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace } = namespaceWithController('targetpath');

  it('one Secret key lands at its path beside spec.values (which still win on the same path, as in Flux); a literal stays a string', async () => {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'app-secrets' }, stringData: { message: 'from-the-secret', replicas: '3' } },
    });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        timeout: '90s',
        values: { extra: { kept: true, label: 'inline' } },
        valuesFrom: [
          { kind: 'Secret', name: 'app-secrets', valuesKey: 'message', targetPath: 'message' },
          { kind: 'Secret', name: 'app-secrets', valuesKey: 'replicas', targetPath: 'extra.count' },
          { kind: 'Secret', name: 'app-secrets', valuesKey: 'replicas', targetPath: 'extra.label', literal: true },
          { kind: 'Secret', name: 'app-secrets', valuesKey: 'replicas', targetPath: 'extra.text', literal: true },
        ],
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    const config = (await storage.history(namespace, 'unicorn')).deployed?.config;
    expect(config).toEqual({ message: 'from-the-secret', extra: { kept: true, count: 3, label: 'inline', text: '3' } });
    // the rendered page carries it: the chart puts `message` in its ConfigMap
    const cms = await core.listNamespacedConfigMap({ namespace });
    expect(JSON.stringify(cms.items.map((c) => c.data))).toContain('from-the-secret');
    expect(JSON.stringify(release.status)).not.toContain('from-the-secret');
    // status.inventory: what the release applied, as Flux lists it
    expect(release.status?.inventory?.entries).toEqual(
      expect.arrayContaining([
        { id: `${namespace}_unicorn_apps_Deployment`, v: 'v1' },
        { id: `${namespace}_unicorn__Service`, v: 'v1' },
      ]),
    );
  });
});
