import { maxSatisfying, valid } from 'semver';
import { describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import type { ControllerContext, ProposalReads, ProposalWrites } from '../../src/controller/reconcile/ports/context.js';
import { reconcileRelease } from '../../src/controller/reconcile/reconciler.js';
import { ImageWatcher } from '../../src/controller/proposals/image-watcher.js';
import { createLogger } from '../../src/core/log.js';
import type { OpenOutcome } from '../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { fakeController, helmRelease, type Fakes } from './support/reconcile-fakes.js';

/**
 * Issue 35, chart versions, through the whole pass on in-memory fakes: a repository whose
 * versions the test publishes, and a proposal store as the pass's ports see it.
 */

const NS = 'apps';
const NAME = 'app';

class Repository {
  versions = ['1.0.0'];
  resolved: Array<{ version: string; pinned?: string }> = [];
  async resolveChart(chart: ChartRef, _access: unknown, _maxAgeMs: number, pinned?: string) {
    const range = chart.version ?? '*';
    const newest = valid(range) ? undefined : (maxSatisfying(this.versions, range) ?? undefined);
    const version = pinned ?? (valid(range) ? range : newest!);
    this.resolved.push({ version, ...(pinned ? { pinned } : {}) });
    return { version, ...(pinned && newest ? { newest } : {}) };
  }
}

class Proposals {
  readonly byId = new Map<string, Proposal>();
  finds = 0;
  approvedReads = 0;
  reads: ProposalReads = {
    cluster: 'default',
    approvedFor: async (namespace, name) => {
      this.approvedReads++;
      return [...this.byId.values()].filter((p) => p.state.phase === 'approved' && p.release.namespace === namespace && p.release.name === name);
    },
    find: async (id) => (this.finds++, this.byId.get(id)),
  };
  writes: ProposalWrites = {
    markApplied: async (id) => {
      const p = this.byId.get(id);
      if (p?.state.phase !== 'approved') return undefined;
      const applied: Proposal = { ...p, state: { phase: 'applied', approvers: p.state.approvers } };
      this.byId.set(id, applied);
      return applied;
    },
    open: async (proposal): Promise<OpenOutcome> => {
      const existing = this.byId.get(proposal.id);
      if (existing) return { kind: 'exists', proposal: existing };
      const superseded = [...this.byId.values()].filter((p) => p.subject === proposal.subject && p.state.phase === 'open');
      for (const old of superseded) this.byId.set(old.id, { ...old, state: { phase: 'superseded', by: proposal.id, approvers: [] } });
      const record = superseded.length ? { ...proposal, supersedes: superseded[0]!.id } : proposal;
      this.byId.set(proposal.id, record);
      return { kind: 'opened', proposal: record, superseded };
    },
  };
  approve(id: string, approvers: string[]): void {
    const p = this.byId.get(id)!;
    this.byId.set(id, { ...p, state: { phase: 'approved', approvers } });
  }
  list(): Proposal[] {
    return [...this.byId.values()];
  }
}

function setUp(spec: Parameters<typeof helmRelease>[0]) {
  const f: Fakes = fakeController();
  const repository = new Repository();
  const proposals = new Proposals();
  const ctx: ControllerContext = {
    ...f.ctx,
    charts: {
      resolveChart: (chart, access, maxAgeMs, pinned) => repository.resolveChart(chart, access, maxAgeMs, pinned),
      downloadArchive: async () => Buffer.alloc(0),
    },
    proposals: proposals.reads,
    proposalWrites: proposals.writes,
  };
  f.api.put(helmRelease(spec));
  const pass = () => reconcileRelease(ctx, NS, NAME);
  const deployed = () => f.storage.of(NS, NAME).find((r) => r.status === 'deployed')?.chartVersion;
  // The leader's tick, which tells what a pass opened unannounced, with the diff the preview would make.
  const diffs: string[] = [];
  const leader = new ImageWatcher({
    cluster: 'default',
    releases: () => [f.api.peek(NS, NAME)!],
    registry: { tags: () => Promise.reject(new Error('no registry')), digest: () => Promise.reject(new Error('no registry')) },
    accessFor: () => Promise.reject(new Error('no access')),
    store: {
      open: () => Promise.reject(new Error('not used')),
      list: async () => proposals.list(),
      update: async (id, change) => {
        const current = proposals.byId.get(id);
        const next = current && change(current);
        if (next) proposals.byId.set(id, next);
        return next;
      },
      prune: async () => 0,
    },
    events: f.events,
    enqueue: () => undefined,
    log: createLogger('test', 'silent'),
    tickMs: 1000,
    now: () => ctx.now().getTime(),
    retentionMs: 168 * 3_600_000,
    diffFor: async (_release, proposal) => (diffs.push(proposal.id), [`~ Deployment app: chart → ${proposal.chartVersion?.to}`]),
  });
  return { f, repository, proposals, pass, deployed, diffs, tick: () => leader.tick(), status: () => f.api.peek(NS, NAME)?.status };
}

const ranged = (required: number) => ({
  chart: { repository: 'https://charts.example', name: 'app', version: '1.x' },
  approval: { required, expireAfter: '1h' },
});

describe('a chart version in a range, with approvals asked', () => {
  it('is proposed once instead of installed; approved, it is installed and named in status; a new spec.chart.version makes it give way', async () => {
    const { f, repository, proposals, pass, deployed, diffs, tick, status } = setUp(ranged(2));
    // The first install takes the newest: nothing runs yet.
    expect((await pass()).action).toBe('install');
    expect(deployed()).toBe('1.0.0');

    repository.versions.push('1.1.0', '2.0.0');
    expect((await pass()).action).toBe('unchanged');
    expect(deployed()).toBe('1.0.0');
    expect(proposals.list()).toMatchObject([
      { kind: 'chart', chartVersion: { from: '1.0.0', to: '1.1.0' }, state: { phase: 'open' }, summary: 'chart app 1.0.0 → 1.1.0', unannounced: true },
    ]);
    // The pass makes no preview and tells nothing: the leader's tick does, with the plan diff, once.
    expect(f.events.names()).not.toContain('ProposalOpened');
    await tick();
    await tick();
    expect(f.events.recorded.filter((e) => e.event === 'ProposalOpened')).toEqual([
      {
        event: 'ProposalOpened',
        message: `chart app 1.0.0 → 1.1.0: waiting for 2 approvals until ${new Date(proposals.list()[0]!.facts.expiresAt).toISOString()}`,
        details: { action: 'proposal', proposalId: proposals.list()[0]!.id, proposedBy: 'helmcrew' },
      },
    ]);
    expect(proposals.list()[0]).toMatchObject({ diff: ['~ Deployment app: chart → 1.1.0'] });
    expect(proposals.list()[0]!.unannounced).toBeUndefined();
    expect(diffs).toHaveLength(1);
    // Seen again: one read, nothing opened or said again.
    const finds = proposals.finds;
    await pass();
    await tick();
    expect(proposals.finds).toBe(finds + 1);
    expect(proposals.list()).toHaveLength(1);
    expect(f.events.names().filter((e) => e === 'ProposalOpened')).toHaveLength(1);

    // A still newer one supersedes it.
    repository.versions.push('1.2.0');
    await pass();
    const [first, second] = proposals.list();
    expect(first!.state).toMatchObject({ phase: 'superseded', by: second!.id });
    expect(second).toMatchObject({ chartVersion: { from: '1.0.0', to: '1.2.0' }, supersedes: first!.id });
    await tick();
    expect(f.events.recorded.filter((e) => e.event.startsWith('Proposal')).map((e) => [e.event, e.details?.proposalId])).toEqual([
      ['ProposalOpened', first!.id],
      ['ProposalSuperseded', first!.id],
      ['ProposalOpened', second!.id],
    ]);
    expect(proposals.byId.get(second!.id)?.diff).toEqual(['~ Deployment app: chart → 1.2.0']);

    // Approved, but a freeze holds it: no helm, the proposal stays approved.
    proposals.approve(second!.id, ['slack:UA', 'slack:UB']);
    f.freezes.holdingNow = [{ name: 'release-week', reason: 'launch' }];
    f.helm.calls.length = 0;
    expect((await pass()).action).toBe('frozen');
    expect(f.helm.verbs()).toEqual([]);
    expect(proposals.byId.get(second!.id)?.state.phase).toBe('approved');
    expect(status()?.approvedChart).toBeUndefined();

    // The freeze lifts: status.approvedChart, then the upgrade to it, naming who approved.
    f.freezes.holdingNow = [];
    expect((await pass()).action).toBe('upgrade');
    expect(deployed()).toBe('1.2.0');
    expect(status()?.approvedChart).toMatchObject({ version: '1.2.0', declared: '1.x', proposalId: second!.id, approvers: ['slack:UA', 'slack:UB'] });
    expect(proposals.byId.get(second!.id)?.state.phase).toBe('applied');
    const upgraded = f.events.recorded.find((e) => e.event === 'UpgradeSucceeded');
    expect(upgraded?.details).toMatchObject({ proposalId: second!.id, proposedBy: 'helmcrew', approvers: ['slack:UA', 'slack:UB'] });
    // At rest on the approved version: no helm, and nothing newer to propose.
    f.helm.calls.length = 0;
    expect((await pass()).action).toBe('unchanged');
    expect(f.helm.verbs()).toEqual([]);
    expect(repository.resolved.at(-1)).toEqual({ version: '1.2.0', pinned: '1.2.0' });

    // spec.chart.version changed: the approved version gives way, the spec's is installed.
    f.api.editSpec(NS, NAME, (spec) => (spec.chart.version = '1.0.0'));
    expect((await pass()).action).toBe('upgrade');
    expect(deployed()).toBe('1.0.0');
    expect(status()?.approvedChart).toBeUndefined();
  });

  it('without approvals asked, a range installs its newest on its own, as before, and nothing is proposed', async () => {
    const { repository, proposals, pass, deployed } = setUp({ chart: { repository: 'https://charts.example', name: 'app', version: '1.x' } });
    await pass();
    repository.versions.push('1.1.0');
    expect((await pass()).action).toBe('upgrade');
    expect(deployed()).toBe('1.1.0');
    expect(proposals.list()).toEqual([]);
    // Not taking part in proposals: the store is not read at all.
    expect(proposals.finds + proposals.approvedReads).toBe(0);
  });

  it('a promotion (any kind with a chart version) approved for the release is put in effect the same way', async () => {
    const { proposals, pass, deployed, status } = setUp(ranged(1));
    await pass();
    const promotion: Proposal = {
      id: 'p-promo',
      kind: 'promotion',
      release: { cluster: 'default', namespace: NS, name: NAME },
      values: [],
      chartVersion: { from: '1.0.0', to: '2.0.0' },
      summary: 'promote app from staging',
      subject: 'default/apps/app promotion staging',
      facts: { required: 1, expiresAt: Number.MAX_SAFE_INTEGER, proposedBy: 'slack:UC' },
      state: { phase: 'approved', approvers: ['slack:UA'] },
      createdAt: 0,
    };
    proposals.byId.set(promotion.id, promotion);
    expect((await pass()).action).toBe('upgrade');
    expect(deployed()).toBe('2.0.0');
    expect(status()?.approvedChart).toMatchObject({ version: '2.0.0', declared: '1.x', proposedBy: 'slack:UC', approvers: ['slack:UA'] });
  });
});
