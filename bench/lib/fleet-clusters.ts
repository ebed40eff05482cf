// The fleet benchmarks' clusters: the bench environment's own control plane (`home`, with Redis and
// the chart repository) and more control planes on loopback (src/dev/extra-cluster.ts: their own
// etcd and API server, no kwok: at rest and in the hub's seeded runs no Pod is ever scheduled), each
// with the CRDs; and release records copied from one real install into any cluster's namespace.
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { applyCrds } from '../../src/core/kube/crd-installer.js';
import { loadKubeConfig, makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { decodeReleasePayload, encodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';
import { createLogger } from '../../src/core/log.js';
import { startExtraCluster } from '../../src/dev/extra-cluster.js';
import { ensureNamespace, mapLimit, pollUntil } from '../../src/dev/harness/index.js';
import type { Cleanup } from './cleanup.js';
import type { BenchEnv } from './environment.js';
import { say } from './say.js';

export interface BenchCluster {
  name: string;
  kubeconfig: string;
  kubeConfig: KubeConfig;
  /** The API server's pid when known (home's), for its CPU seconds. */
  apiserverPid?: number;
}

/** `home` (the bench environment's) and `count - 1` more, named `c2`, `c3`, …; stopped at clean-up. */
export async function startFleetClusters(be: BenchEnv, count: number, cleanup: Cleanup, names?: string[]): Promise<BenchCluster[]> {
  const log = createLogger('bench-fleet', process.env.LOG_LEVEL ?? 'warn');
  const clusters: BenchCluster[] = [{ name: names?.[0] ?? 'home', kubeconfig: be.env.kubeconfig, kubeConfig: be.kubeConfig, apiserverPid: be.apiserverPid }];
  for (let i = 2; i <= count; i++) {
    const name = names?.[i - 1] ?? `c${i}`;
    const started = Date.now();
    const extra = await startExtraCluster({ name, stateDir: join(be.dir, `cluster-${name}`), log });
    cleanup.add(`stop control plane ${name}`, () => extra.stop());
    const kubeConfig = loadKubeConfig(extra.kubeconfig);
    await applyCrds(kubeConfig);
    // An Established CRD is not served at once (429 "storage is (re)initializing"): list until it is.
    const releases = new HelmReleaseApi(makeKubeClients(kubeConfig));
    await pollUntil(
      () =>
        releases.list().then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: 60_000, intervalMs: 500 },
      () => `HelmReleases were not served in ${name} within 60 s`,
    );
    say(`control plane ${name} up with the CRDs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    clusters.push({ name, kubeconfig: extra.kubeconfig, kubeConfig });
  }
  return clusters;
}

/**
 * Copies helm's record of `from` (in `fromKc`/`fromNs`) to each of `to` in `toKc`/`toNs`, as
 * lib/seed-records.ts does within one namespace: what helm would have written for them.
 */
export async function copyReleaseRecord(
  source: { kc: KubeConfig; namespace: string; name: string },
  target: { kc: KubeConfig; namespace: string },
  to: string[],
): Promise<void> {
  const template = await source.kc.makeApiClient(CoreV1Api).readNamespacedSecret({ namespace: source.namespace, name: releaseSecretName(source.name, 1) });
  const payload = decodeReleasePayload(template.data!.release!);
  const manifest = typeof payload.manifest === 'string' ? payload.manifest : '';
  const core = target.kc.makeApiClient(CoreV1Api);
  await ensureNamespace(target.kc, target.namespace);
  await mapLimit(to, 8, async (name) => {
    const copy = { ...payload, name, namespace: target.namespace, manifest: manifest.split(source.name).join(name) };
    const labels = Object.fromEntries(Object.entries(template.metadata?.labels ?? {}).map(([k, v]) => [k, v === source.name ? name : v]));
    const body: V1Secret = {
      metadata: { name: releaseSecretName(name, 1), namespace: target.namespace, labels },
      type: template.type,
      data: { release: encodeReleasePayload(copy) },
    };
    await core.createNamespacedSecret({ namespace: target.namespace, body });
  });
}
