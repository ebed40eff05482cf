import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ImageWatcher, type ProposalBook } from '../../src/controller/proposals/image-watcher.js';
import type { EventDetails } from '../../src/core/events/release-event-sink.js';
import { createLogger } from '../../src/core/log.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';

/**
 * A proposal the bot opened (a promotion, issue 35) is told by the controller of its cluster as
 * its own are: one ProposalOpened on the release (notify makes it the chat message), and the
 * ProposalSuperseded of the one it replaced — once, however many ticks see it.
 */

const web: HelmRelease = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'prod' },
  spec: { chart: { repository: 'https://charts.example', name: 'web' } },
};

const promotion = (over: Partial<Proposal> = {}): Proposal => ({
  id: 'p-0000000000000002',
  kind: 'promotion',
  release: { cluster: 'home', namespace: 'prod', name: 'web' },
  values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
  summary: 'promotion from staging/web to prod/web: image.tag 1.4.2 → 1.5.0',
  subject: 'home/prod/web promotion from home/staging/web',
  facts: { required: 2, proposedBy: 'slack:UANA', expiresAt: Date.parse('2026-11-27T00:00:00Z') },
  state: { phase: 'open', approvers: [] },
  createdAt: 0,
  unannounced: true,
  ...over,
});

function world(proposals: Proposal[], releases: HelmRelease[] = [web]) {
  const records = new Map(proposals.map((p) => [p.id, p]));
  const store: ProposalBook = {
    open: () => Promise.reject(new Error('not used')),
    list: async () => [...records.values()],
    update: async (id, change) => {
      const current = records.get(id);
      const next = current && change(current);
      if (next) records.set(id, next);
      return next;
    },
    prune: async () => 0,
  };
  const events: Array<{ event: string; message: string; details?: EventDetails }> = [];
  const watcher = new ImageWatcher({
    cluster: 'home',
    releases: () => releases,
    registry: { tags: () => Promise.reject(new Error('no registry')), digest: () => Promise.reject(new Error('no registry')) },
    accessFor: () => Promise.reject(new Error('no access')),
    store,
    retentionMs: 168 * 3_600_000,
    events: { record: async (_release, event, message, details) => void events.push({ event, message, ...(details ? { details } : {}) }) },
    enqueue: () => undefined,
    log: createLogger('test', 'silent'),
    tickMs: 1000,
    now: () => Date.parse('2026-11-26T22:00:00Z'),
  });
  return { records, events, watcher };
}

describe('the controller tells the proposals the bot opened', () => {
  it('one ProposalOpened naming the proposer, and the flag is dropped, so the next tick tells nothing', async () => {
    const { records, events, watcher } = world([promotion()]);
    await watcher.tick();
    await watcher.tick();
    expect(events).toEqual([
      {
        event: 'ProposalOpened',
        message:
          'promotion from staging/web to prod/web: image.tag 1.4.2 → 1.5.0 (proposed by slack:UANA): waiting for 2 approvals until 2026-11-27T00:00:00.000Z',
        details: { action: 'proposal', proposalId: 'p-0000000000000002', proposedBy: 'slack:UANA' },
      },
    ]);
    expect(records.get('p-0000000000000002')!.unannounced).toBeUndefined();
  });

  it('the one it replaced gets its ProposalSuperseded (its message then points at the new one)', async () => {
    const { events, watcher } = world([promotion({ supersedes: 'p-0000000000000001' })]);
    await watcher.tick();
    expect(events.map((e) => [e.event, e.details?.proposalId])).toEqual([
      ['ProposalSuperseded', 'p-0000000000000001'],
      ['ProposalOpened', 'p-0000000000000002'],
    ]);
  });

  it("another cluster's proposal, one for a release not watched here, and one told already are left alone", async () => {
    const { unannounced: _told, ...toldAlready } = promotion({ id: 'p-c' });
    const { records, events, watcher } = world([
      promotion({ id: 'p-a', release: { cluster: 'edge', namespace: 'prod', name: 'web' } }),
      promotion({ id: 'p-b', release: { cluster: 'home', namespace: 'other', name: 'web' } }),
      toldAlready,
    ]);
    await watcher.tick();
    expect(events).toEqual([]);
    expect(records.get('p-b')!.unannounced).toBe(true);
  });
});
