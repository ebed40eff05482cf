import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ANONYMOUS } from '../../src/controller/charts/chart-access.js';
import { ImageWatcher, type ProposalBook } from '../../src/controller/proposals/image-watcher.js';
import { createLogger } from '../../src/core/log.js';
import { prunable, type Proposal } from '../../src/core/proposals/proposal.js';

const HOUR = 3_600_000;

/** The proposal store in memory (its Redis twin is test/integration/proposal-store.test.ts). */
class MemoryBook implements ProposalBook {
  readonly records = new Map<string, Proposal>();
  listed = 0;
  open(proposal: Proposal) {
    const existing = this.records.get(proposal.id);
    if (existing) return Promise.resolve({ kind: 'exists' as const, proposal: existing });
    this.records.set(proposal.id, proposal);
    return Promise.resolve({ kind: 'opened' as const, proposal, superseded: [] });
  }
  list() {
    this.listed++;
    return Promise.resolve([...this.records.values()]);
  }
  update(id: string, change: (current: Proposal) => Proposal | undefined) {
    const current = this.records.get(id);
    const next = current && change(current);
    if (next) this.records.set(id, next);
    return Promise.resolve(next);
  }
  prune(before: number, known?: readonly Proposal[]) {
    const stale = prunable(known ?? [...this.records.values()], before);
    for (const p of stale) this.records.delete(p.id);
    return Promise.resolve(stale.length);
  }
}

const release = (approval?: HelmRelease['spec']['approval']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    chart: { repository: 'https://charts.example', name: 'web' },
    values: { image: { tag: '1.4.2' } },
    imageUpdates: [{ repository: 'registry.example.com/shop/web', policy: { semver: '1.x' }, valuesPath: 'image.tag' }],
    ...(approval ? { approval } : {}),
  },
});

function watcher(book: MemoryBook, releases: HelmRelease[], over: { diffFor?: (r: HelmRelease, p: Proposal) => Promise<string[]>; now?: number } = {}) {
  const recorded: Array<{ event: string; diff?: string[] }> = [];
  const clock = { now: over.now ?? 1000 * HOUR };
  const w = new ImageWatcher({
    cluster: 'default',
    releases: () => releases,
    registry: { tags: () => Promise.resolve(['1.4.2', '1.5.0']), digest: () => Promise.reject(new Error('not asked')) },
    accessFor: () => Promise.resolve(ANONYMOUS),
    store: book,
    // What the record holds when the event is recorded: notify renders the message from it.
    events: {
      record: (_release, event, _message, details) => {
        recorded.push({ event, diff: details?.proposalId ? book.records.get(details.proposalId)?.diff : undefined });
        return Promise.resolve();
      },
    },
    enqueue: () => undefined,
    log: createLogger('test', 'silent'),
    tickMs: 1000,
    retentionMs: 168 * HOUR,
    ...(over.diffFor ? { diffFor: over.diffFor } : {}),
    now: () => clock.now,
  });
  return { w, recorded, clock };
}

describe('the image watcher', () => {
  it('stores the plan diff in a proposal that waits for approvals before announcing it', async () => {
    const book = new MemoryBook();
    const asked: string[] = [];
    const { w, recorded, clock } = watcher(book, [release({ required: 2 })], {
      diffFor: (_r, p) => {
        asked.push(p.id);
        return Promise.resolve(['objects: 1 changed', `~ Deployment shop/web: image web:1.4.2 → web:${p.values[0]!.to}`]);
      },
    });
    await w.tick();
    const [proposal] = [...book.records.values()];
    expect(proposal!.diff).toEqual(['objects: 1 changed', '~ Deployment shop/web: image web:1.4.2 → web:1.5.0']);
    expect(recorded).toEqual([{ event: 'ProposalOpened', diff: proposal!.diff }]);
    // The same tag at the next interval is the same proposal: no second preview, no second message.
    clock.now += 10 * 60_000;
    await w.tick();
    expect(recorded).toHaveLength(1);
    expect(asked).toEqual([proposal!.id]);
  });

  it('notes the GitOps tool that owns the release in the proposal, for its message', async () => {
    const book = new MemoryBook();
    const owned = release({ required: 2 });
    owned.metadata.labels = { 'kustomize.toolkit.fluxcd.io/name': 'apps' };
    const { w } = watcher(book, [owned]);
    await w.tick();
    expect([...book.records.values()].map((p) => p.ownedBy)).toEqual(['Flux (kustomize-controller)']);
  });

  it('a change that applies on its own asks no diff', async () => {
    const book = new MemoryBook();
    const asked: string[] = [];
    const { w } = watcher(book, [release()], {
      diffFor: (_r, p) => {
        asked.push(p.id);
        return Promise.resolve([]);
      },
    });
    await w.tick();
    expect([...book.records.values()].map((p) => [p.state.phase, p.diff])).toEqual([['approved', undefined]]);
    expect(asked).toEqual([]);
  });

  it('removes closed proposals past the retention from the list it reads anyway', async () => {
    const book = new MemoryBook();
    const now = 1000 * HOUR;
    const closed = (id: string, closedAt: number, subject = id): Proposal => ({
      id,
      kind: 'image',
      release: { cluster: 'default', namespace: 'shop', name: 'web' },
      values: [{ valuesPath: 'image.tag', to: id }],
      summary: id,
      subject,
      facts: { required: 2, expiresAt: 0 },
      state: { phase: 'applied', approvers: [] },
      createdAt: 0,
      closedAt,
    });
    book.records.set('old', closed('old', now - 169 * HOUR));
    book.records.set('recent', closed('recent', now - 167 * HOUR));
    const { w } = watcher(book, [], { now });
    await w.tick();
    expect([...book.records.keys()]).toEqual(['recent']);
    expect(book.listed).toBe(1);
  });
});
