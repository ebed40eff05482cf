import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ImageWatcher, type ProposalBook } from '../../src/controller/proposals/image-watcher.js';
import type { EventDetails } from '../../src/core/events/release-event-sink.js';
import { createLogger } from '../../src/core/log.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { noDiffLine } from '../../src/controller/proposals/proposal-diff.js';

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

function world(proposals: Proposal[], releases: HelmRelease[] = [web], diffFor?: (release: HelmRelease, proposal: Proposal) => Promise<string[]>) {
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
  const events: Array<{ event: string; message: string; details?: EventDetails; diff?: string[] }> = [];
  const leader = () =>
    new ImageWatcher({
      cluster: 'home',
      releases: () => releases,
      registry: { tags: () => Promise.reject(new Error('no registry')), digest: () => Promise.reject(new Error('no registry')) },
      accessFor: () => Promise.reject(new Error('no access')),
      store,
      retentionMs: 168 * 3_600_000,
      events: {
        record: async (_release, event, message, details) => {
          // What notify would render from: the record as it is when the event comes.
          const diff = diffFor && details?.proposalId ? records.get(details.proposalId)?.diff : undefined;
          events.push({ event, message, ...(details ? { details } : {}), ...(diff ? { diff } : {}) });
        },
      },
      enqueue: () => undefined,
      log: createLogger('test', 'silent'),
      tickMs: 1000,
      ...(diffFor ? { diffFor } : {}),
      now: () => Date.parse('2026-11-26T22:00:00Z'),
    });
  const watcher = leader();
  // A second leader (a failover overlapping the old one) on the same store.
  return { records, events, watcher, second: leader };
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

  it('with the plan diff in the record before the event, of the chart version and values together, made once', async () => {
    const asked: Array<{ version?: string; values: string[] }> = [];
    const diffFor = async (release: HelmRelease, proposal: Proposal) => {
      asked.push({
        ...(release.spec.chart.version ? { version: release.spec.chart.version } : {}),
        values: proposal.values.map((v) => `${v.valuesPath}=${v.to}`),
      });
      return [`~ Deployment web: chart ${proposal.chartVersion?.to}, tag ${proposal.values[0]?.to}`];
    };
    const { records, events, watcher } = world([promotion({ chartVersion: { from: '1.0.0', to: '2.0.0' } })], [web], diffFor);
    await watcher.tick();
    await watcher.tick();
    expect(events).toMatchObject([{ event: 'ProposalOpened', diff: ['~ Deployment web: chart 2.0.0, tag 1.5.0'] }]);
    expect(records.get('p-0000000000000002')).toMatchObject({ diff: ['~ Deployment web: chart 2.0.0, tag 1.5.0'] });
    expect(records.get('p-0000000000000002')!.unannounced).toBeUndefined();
    expect(asked).toEqual([{ values: ['image.tag=1.5.0'] }]);
  });

  it('a diff that cannot be made is one line saying why, and the proposal is told all the same', async () => {
    const { events, watcher } = world([promotion()], [web], async () => [noDiffLine('the chart web 9.9.9 was not found')]);
    await watcher.tick();
    expect(events).toMatchObject([{ event: 'ProposalOpened', diff: ['no diff could be made: the chart web 9.9.9 was not found'] }]);
  });

  it('no diff is made for one no longer open (voted away or superseded before it was told)', async () => {
    let asked = 0;
    const { records, events, watcher } = world(
      [promotion({ state: { phase: 'superseded', by: 'p-x', approvers: [] } })],
      [web],
      async () => (asked++, ['a line']),
    );
    await watcher.tick();
    expect(asked).toBe(0);
    expect(events).toEqual([]);
    expect(records.get('p-0000000000000002')!.diff).toBeUndefined();
  });

  it('two leaders ticking at once tell it once, with one diff in the record', async () => {
    let asked = 0;
    const { records, events, watcher, second } = world([promotion()], [web], async () => [`diff ${++asked}`]);
    await Promise.all([watcher.tick(), second().tick()]);
    expect(events.map((e) => e.event)).toEqual(['ProposalOpened']);
    expect(records.get('p-0000000000000002')!.diff).toEqual([events[0]!.diff![0]]);
  });
});
