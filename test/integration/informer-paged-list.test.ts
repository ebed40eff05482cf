import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { InformerSupervisor } from '../../src/controller/watch/informer-supervisor.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 50: the controller's HelmRelease informer lists in pages (a starting controller beside
 * 10,000 releases parsed one response of ~25 MB at once). Against a real API server, pages of 2:
 * every release is listed and enqueued once, and the watch that starts from the last page's
 * version sees what changes after it.
 */
describe("the controller's HelmRelease informer, listing in pages", () => {
  const { env, kubeConfig } = testEnv();
  const rest = connectKube(env.kubeconfig);
  const api = new HelmReleaseApi(slimKubeClients(rest));
  const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, values: { replicaCount: 0 } };
  let namespace = '';

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'paged');
    for (const name of ['a', 'b', 'c', 'd', 'e']) await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec));
  });
  afterAll(async () => {
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it('lists every release across pages, then watches from the last page', async () => {
    const keys: string[] = [];
    const informers = new InformerSupervisor({
      rest,
      api,
      namespaces: [namespace],
      onKey: (key) => keys.push(key),
      log: createLogger('informer-test', 'error'),
      listPageSize: 2,
    });
    await informers.start();
    try {
      await eventually(() =>
        expect(
          informers
            .list()
            .map((r) => r.metadata.name)
            .sort(),
        ).toEqual(['a', 'b', 'c', 'd', 'e']),
      );
      expect([...new Set(keys)].sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((name) => `${namespace}/${name}`));
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'f', spec));
      await eventually(() => expect(keys).toContain(`${namespace}/f`));
      expect(informers.list()).toHaveLength(6);
    } finally {
      await informers.stop();
    }
  });
});
