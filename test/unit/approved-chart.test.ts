import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { chartProposal } from '../../src/controller/proposals/chart-change.js';
import { newestOrNone } from '../../src/controller/charts/pick-version.js';
import { resolveOciChart } from '../../src/controller/charts/oci-versions.js';
import { FreshCache } from '../../src/controller/charts/fresh-cache.js';
import type { OciRegistryClient } from '../../src/controller/charts/oci-registry.js';
import { ANONYMOUS } from '../../src/controller/charts/chart-access.js';
import { applyChartProposals } from '../../src/controller/reconcile/desired/approved-chart.js';
import { proposalDetailsOf } from '../../src/controller/reconcile/desired/image-updates.js';
import { mayHaveApproved } from '../../src/controller/reconcile/stages/proposals.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';

const release = (spec: Partial<HelmRelease['spec']> = {}, status?: HelmRelease['status']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { chart: { repository: 'https://charts.example', name: 'unicorn', version: '1.x' }, ...spec },
  ...(status ? { status } : {}),
});

describe('chartProposal (issue 35)', () => {
  it("with spec.approval: open, subject the release's chart, one id per version", () => {
    const r = release({ approval: { required: 2, expireAfter: '1h', teams: ['web'] } });
    const a = chartProposal('default', r, { from: '1.0.0', to: '1.1.0' }, 1000);
    expect(a).toMatchObject({
      kind: 'chart',
      values: [],
      chartVersion: { from: '1.0.0', to: '1.1.0' },
      summary: 'chart unicorn 1.0.0 → 1.1.0',
      subject: 'default/shop/web chart',
      facts: { required: 2, expiresAt: 1000 + 3600_000, teams: ['web'] },
      state: { phase: 'open', approvers: [] },
      // Told (with its plan diff) by the leader's tick, not by the pass.
      unannounced: true,
    });
    expect(chartProposal('default', r, { from: '0.9.0', to: '1.1.0' }, 5000).id).toBe(a.id);
    expect(chartProposal('default', r, { from: '1.0.0', to: '1.2.0' }, 1000).id).not.toBe(a.id);
    expect(chartProposal('edge', r, { from: '1.0.0', to: '1.1.0' }, 1000).id).not.toBe(a.id);
  });

  it('without approvals asked (a newer version than an approved one): approved as it opens', () => {
    const approved = chartProposal('default', release(), { from: '1.0.0', to: '1.1.0' }, 0);
    expect(approved.state).toEqual({ phase: 'approved', approvers: [] });
    // Nobody is asked: nothing to tell, no diff to make.
    expect(approved.unannounced).toBeUndefined();
  });
});

const approved = (over: Partial<Proposal>): Proposal => ({
  id: 'p-1',
  kind: 'chart',
  release: { cluster: 'default', namespace: 'shop', name: 'web' },
  values: [],
  summary: 's',
  subject: 'x',
  facts: { required: 2, expiresAt: 0 },
  state: { phase: 'approved', approvers: ['slack:UA', 'slack:UB'] },
  createdAt: 0,
  ...over,
});

describe('applyChartProposals', () => {
  it('any kind with a chart version sets it, with spec.chart.version as it is now; the last one wins', () => {
    const at = '2026-11-26T22:00:00.000Z';
    const chart = approved({ chartVersion: { from: '1.0.0', to: '1.1.0' } });
    const promotion = approved({ id: 'p-2', kind: 'promotion', chartVersion: { to: '1.3.0' }, facts: { required: 2, expiresAt: 0, proposedBy: 'slack:UC' } });
    expect(applyChartProposals(undefined, [chart], '1.x', at)).toEqual({
      version: '1.1.0',
      declared: '1.x',
      proposalId: 'p-1',
      approvers: ['slack:UA', 'slack:UB'],
      at,
    });
    expect(applyChartProposals(undefined, [chart, promotion], undefined, at)).toEqual({
      version: '1.3.0',
      proposalId: 'p-2',
      proposedBy: 'slack:UC',
      approvers: ['slack:UA', 'slack:UB'],
      at,
    });
  });

  it('proposals without a chart version leave what is in effect', () => {
    const current = { version: '1.1.0', declared: '1.x', proposalId: 'p-0', approvers: [], at: 'then' };
    const image = approved({ kind: 'image', values: [{ valuesPath: 'image.tag', to: '2' }] });
    expect(applyChartProposals(current, [image], '1.x', 'now')).toBe(current);
    expect(applyChartProposals(undefined, [image], '1.x', 'now')).toBeUndefined();
  });

  it('the upgrade that follows names who proposed and approved the chart version', () => {
    const status = {
      lastAttemptedAt: '2026-11-26T21:00:00.000Z',
      approvedChart: { version: '1.1.0', declared: '1.x', proposalId: 'p-1', approvers: ['slack:UA', 'slack:UB'], at: '2026-11-26T22:00:00.000Z' },
    };
    expect(proposalDetailsOf(status)).toEqual({ proposalId: 'p-1', proposedBy: 'helmcrew', approvers: ['slack:UA', 'slack:UB'] });
    // Announced with an earlier attempt already.
    expect(proposalDetailsOf({ ...status, lastAttemptedAt: '2026-11-26T23:00:00.000Z' })).toEqual({});
  });
});

describe('mayHaveApproved: approved proposals are read only for releases that take part in proposals', () => {
  it.each([
    { release: release(), want: false },
    { release: release({ approval: { required: 1 } }), want: true },
    { release: release({ imageUpdates: [{ repository: 'r.example/x', policy: { semver: '1.x' }, valuesPath: 'image.tag' }] }), want: true },
    { release: release({}, { approvedChart: { version: '1.1.0', proposalId: 'p', approvers: [], at: 'x' } }), want: true },
    { release: release({}, { approvedOverrides: [{ valuesPath: 'image.tag', value: '1', at: 'x' }] }), want: true },
  ])('$want', ({ release, want }) => expect(mayHaveApproved(release)).toBe(want));
});

describe('a pinned chart version (held or approved)', () => {
  it('newestOrNone: what a range picks, nothing for an exact version or a range that picks none', () => {
    expect(newestOrNone(['1.0.0', '1.2.0', '2.0.0'], 'unicorn', '1.x')).toBe('1.2.0');
    expect(newestOrNone(['1.0.0'], 'unicorn', '1.0.0')).toBeUndefined();
    expect(newestOrNone(['1.0.0'], 'unicorn', '3.x')).toBeUndefined();
  });

  it("oci://: the pinned version's digest, and the range's newest from the same tag list (no other request)", async () => {
    const calls: string[] = [];
    const client = {
      tags: async () => (calls.push('tags'), ['1.0.0', '1.1.0', '2.0.0']),
      digest: async (_r: string, _w: unknown, _a: unknown, tag: string) => (calls.push(`digest ${tag}`), `sha256:${tag}`),
    } as unknown as OciRegistryClient;
    const cache = <T>() => new FreshCache<T>({ maxBytes: 1 << 20, retainMs: 60_000, failureTtlMs: 1000, now: () => 0 });
    const deps = { client, tags: cache<string[]>(), digests: cache<string>() };
    const query = { repository: 'oci://registry.example/charts', chart: 'unicorn', constraint: '1.x', access: ANONYMOUS, maxAgeMs: 60_000 };
    expect(await resolveOciChart(deps, { ...query, pinned: '1.0.0' })).toMatchObject({ version: '1.0.0', digest: 'sha256:1.0.0', newest: '1.1.0' });
    expect(calls).toEqual(['tags', 'digest 1.0.0']);
    // An exact version: no tag list, no newest.
    const exact = await resolveOciChart(deps, { ...query, constraint: '1.0.0', pinned: '2.0.0' });
    expect(exact).toMatchObject({ version: '2.0.0', digest: 'sha256:2.0.0' });
    expect(exact).not.toHaveProperty('newest');
    expect(calls).toEqual(['tags', 'digest 1.0.0', 'digest 2.0.0']);
  });
});
