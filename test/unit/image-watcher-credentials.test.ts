import { describe, expect, it } from 'vitest';
import type { HelmRelease, ImageUpdate } from '../../src/api/helmrelease.js';
import type { ChartAccess } from '../../src/controller/charts/chart-access.js';
import { ImageWatcher, type ProposalBook } from '../../src/controller/proposals/image-watcher.js';
import { createLogger } from '../../src/core/log.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';

/** In-memory fakes of the watcher's ports: a registry and a credentials reader that count their calls, a proposal book. */
function world(releases: HelmRelease[]) {
  const calls = { lists: new Map<string, number>(), digests: 0, accessReads: 0 };
  const proposals = new Map<string, Proposal>();
  const store: ProposalBook = {
    open: async (p) => {
      const existing = proposals.get(p.id);
      if (existing) return { kind: 'exists', proposal: existing };
      proposals.set(p.id, p);
      return { kind: 'opened', proposal: p, superseded: [] };
    },
    list: async () => [...proposals.values()],
    update: async () => undefined,
    prune: async () => 0,
  };
  let now = 0;
  const watcher = new ImageWatcher({
    cluster: 'default',
    releases: () => releases,
    registry: {
      tags: async (repository) => {
        calls.lists.set(repository, (calls.lists.get(repository) ?? 0) + 1);
        return ['1.0.0'];
      },
      digest: async () => {
        calls.digests++;
        return `sha256:${'a'.repeat(64)}`;
      },
    },
    accessFor: async (): Promise<ChartAccess> => {
      calls.accessReads++;
      return { insecure: false, cacheKey: 'login-a' };
    },
    store,
    retentionMs: 168 * 3_600_000,
    events: { record: async () => undefined },
    enqueue: () => undefined,
    log: createLogger('test', 'silent'),
    tickMs: 1000,
    now: () => now,
  });
  /** Ticks once a second for `seconds`. */
  const run = async (seconds: number) => {
    for (let s = 0; s < seconds; s++) {
      await watcher.tick();
      now += 1000;
    }
  };
  return { calls, run, proposals };
}

const update = (repository: string): ImageUpdate => ({
  repository,
  policy: { semver: '1.x' },
  valuesPath: 'image.tag',
  interval: '10s',
  secretRef: { name: 'registry-login' },
});
const release = (name: string, repository: string, resourceVersion = '1'): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion },
  spec: { chart: { repository: 'https://charts.example', name: 'web' }, values: { image: { tag: '1.0.0' } }, imageUpdates: [update(repository)] },
});

describe('the image watcher at rest', () => {
  const releases = Array.from({ length: 30 }, (_, i) =>
    release(`r${i}`, i % 3 === 0 ? 'registry.example.com/a' : i % 3 === 1 ? 'registry.example.com/b' : 'registry.example.com/c'),
  );

  it('lists each repository once per interval, however many releases watch it, and proposes nothing in effect', async () => {
    const { calls, run, proposals } = world(releases);
    await run(60);
    expect(Object.fromEntries(calls.lists)).toEqual({ 'registry.example.com/a': 6, 'registry.example.com/b': 6, 'registry.example.com/c': 6 });
    expect(proposals.size).toBe(0);
  });

  it("reads each release's credentials once per interval, not on every tick", async () => {
    const { calls, run } = world(releases);
    await run(60);
    // 30 releases, 6 intervals of 10 s in 60 ticks of 1 s: 180 reads (1,800 when read every tick).
    expect(calls.accessReads).toBe(30 * 6);
  });

  it('reads them again at once when the release changes (a new secretRef, a rotated login named anew)', async () => {
    const list = [release('web', 'registry.example.com/a')];
    const { calls, run } = world(list);
    await run(3);
    expect(calls.accessReads).toBe(1);
    list[0] = release('web', 'registry.example.com/a', '2');
    await run(1);
    expect(calls.accessReads).toBe(2);
  });
});
