// What the settled checks' memory costs per release (issue 36), in this process, without a
// cluster: N releases' remembered histories (watch/settled-histories.ts, a unicorn-sized record
// without its manifest) and the watch of N record Secrets' metadata (watch/release-record-watch.ts,
// fed by a stand-in API that lists N records and then holds the watch open). Heap measured after
// three forced collections before and after; run under `node --expose-gc` (main.ts re-runs
// itself so when gc is not exposed). Counts, not timings: the machine's load does not move them.
import { spawnSync } from 'node:child_process';
import type { KubernetesObject } from '@kubernetes/client-node';
import { summarizeHistory, type StoredRelease } from '../src/core/helm-storage/release-storage.js';
import type { KubeRest } from '../src/core/kube/rest-client.js';
import { createLogger } from '../src/core/log.js';
import { ReleaseRecordWatch } from '../src/controller/watch/release-record-watch.js';
import { SettledHistories } from '../src/controller/watch/settled-histories.js';
import type { Benchmark } from './lib/benchmark.js';
import { say } from './lib/say.js';

const gc = (globalThis as { gc?: () => void }).gc;

function heapMiB(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** A unicorn release record as the check decodes it (labels as helm and helmcrew write them), without its manifest. */
function stored(name: string): StoredRelease {
  return {
    name,
    namespace: 'bench',
    revision: 1,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    appVersion: '1.0.0',
    config: { replicaCount: 0 },
    lastDeployed: new Date().toISOString(),
    description: 'Install complete',
    labels: {
      name,
      owner: 'helm',
      status: 'deployed',
      version: '1',
      modifiedAt: String(Math.floor(Date.now() / 1000)),
      'helmcrew.dev/timeout-seconds': '300',
      'helmcrew.dev/post-render': 'none',
    },
    valuesDigest: `sha256:${'ab'.repeat(32)}`,
    manifest: 'x'.repeat(1500),
  };
}

/** A stand-in for the API server: lists N record Secrets' metadata (labels as helm writes them), then holds the watch until stopped. */
function fakeRest(names: string[]): KubeRest {
  const items: KubernetesObject[] = names.map((name, i) => ({
    metadata: {
      name: `sh.helm.release.v1.${name}.v1`,
      namespace: 'bench',
      resourceVersion: String(1000 + i),
      uid: `0000-${i}`,
      labels: { name, owner: 'helm', status: 'deployed', version: '1', modifiedAt: '1764000000' },
    },
  }));
  return {
    request: async () => ({ metadata: { resourceVersion: String(1000 + names.length) }, items }),
    stream: (_req: unknown, onOpen: () => void, _onLine: unknown, signal: AbortSignal) => {
      onOpen();
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  } as unknown as KubeRest;
}

export const benchmark: Benchmark = {
  usage: '[--releases 10000]',
  options: { releases: { type: 'string' } },
  maxSeconds: 300,
  async run(args) {
    const n = args.int('releases', 10_000);
    if (!gc) {
      // Again with the collector exposed: the heap figures need it.
      const again = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', ...process.argv.slice(1)], { stdio: 'inherit' });
      if (again.status !== 0) throw new Error(`settled-memory under --expose-gc exited ${again.status}`);
      return;
    }
    const names = Array.from({ length: n }, (_, i) => `r${String(i + 1).padStart(5, '0')}`);
    const base = heapMiB();
    const watch = new ReleaseRecordWatch({ rest: fakeRest(names), namespaces: ['bench'], log: createLogger('bench', 'silent') });
    await watch.start();
    const withWatch = heapMiB();
    const settled = new SettledHistories((namespace, releaseName) => watch.watched(namespace, releaseName));
    for (const [i, name] of names.entries())
      settled.remember({ namespace: 'bench', releaseName: name, identity: '' }, summarizeHistory([stored(name)]), [
        { name: `sh.helm.release.v1.${name}.v1`, resourceVersion: String(1000 + i) },
      ]);
    const withHistories = heapMiB();
    let recalled = 0;
    for (const name of names) if (settled.recall({ namespace: 'bench', releaseName: name, identity: '' })) recalled++;
    if (recalled !== n) throw new Error(`recalled ${recalled} of ${n}: the stand-in watch and the remembered records disagree`);
    await watch.stop();
    const kib = (mib: number) => ((mib * 1024) / n).toFixed(2);
    say(`settled-memory: N=${n}: watch ${(withWatch - base).toFixed(1)} MiB, histories ${(withHistories - withWatch).toFixed(1)} MiB`);
    return {
      tables: [
        {
          title: `Memory of the settled checks at N = ${n} (heap after 3 forced collections; unicorn-sized records, manifests not kept)`,
          columns: ['part', 'heap MiB', 'KiB per release'],
          rows: [
            ['record watch (metadata of N record Secrets: ListWatch cache + per-release index)', Number((withWatch - base).toFixed(1)), kib(withWatch - base)],
            ['remembered histories (one record each, no manifest)', Number((withHistories - withWatch).toFixed(1)), kib(withHistories - withWatch)],
            ['both', Number((withHistories - base).toFixed(1)), kib(withHistories - base)],
          ],
          notes: [
            `${recalled} of ${n} recalled through the watch; a release keeps up to 10 records, of which a settled check remembers the non-superseded ones (usually 1).`,
          ],
        },
      ],
    };
  },
};
