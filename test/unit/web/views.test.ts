import { describe, expect, it } from 'vitest';
import { fleetView, parseFleetFilters } from '../../../src/web/views/fleet-view.js';
import { releaseMarks } from '../../../src/web/views/marks.js';
import { actionOfEvent, originOf, timeline } from '../../../src/web/views/timeline.js';
import { MASK, valuesView } from '../../../src/web/views/values-view.js';
import { inventoryRefs, objectRow } from '../../../src/core/release/object-rows.js';
import { freezeRows } from '../../../src/web/views/freezes-view.js';
import { releaseUrl, clusterOfSegment } from '../../../src/web/urls.js';
import type { StoredRelease } from '../../../src/core/helm-storage/release-storage.js';
import { ANA, freeze, HOSTILE, NOW, proposal, release, TEAMS } from './builders.js';

describe('releaseMarks', () => {
  it.each([
    { name: 'ready', given: release('a', 'shop', { ready: 'True' }), facts: { frozenBy: 0, proposals: 0 }, want: ['ready'] },
    { name: 'failed', given: release('a', 'shop', { ready: 'False' }), facts: { frozenBy: 0, proposals: 0 }, want: ['failed'] },
    {
      name: 'Ready=False while reconciling is progress',
      given: release('a', 'shop', { ready: 'False', conditions: [{ type: 'Reconciling', status: 'True' }] }),
      facts: { frozenBy: 0, proposals: 0 },
      want: ['progressing'],
    },
    {
      name: 'stalled is failed',
      given: release('a', 'shop', { ready: 'True', conditions: [{ type: 'Stalled', status: 'True' }] }),
      facts: { frozenBy: 0, proposals: 0 },
      want: ['failed'],
    },
    { name: 'no status yet', given: release('a', 'shop'), facts: { frozenBy: 0, proposals: 0 }, want: ['progressing'] },
    {
      name: 'suspended, frozen by condition, drifted, proposal',
      given: release('a', 'shop', {
        ready: 'True',
        suspend: true,
        conditions: [
          { type: 'Frozen', status: 'True' },
          { type: 'Drifted', status: 'True' },
        ],
      }),
      facts: { frozenBy: 0, proposals: 1 },
      want: ['ready', 'suspended', 'frozen', 'drifted', 'proposal'],
    },
    { name: 'frozen by an active freeze', given: release('a', 'shop', { ready: 'True' }), facts: { frozenBy: 1, proposals: 0 }, want: ['ready', 'frozen'] },
  ])('$name', ({ given, facts, want }) => {
    expect(releaseMarks(given, facts)).toEqual(want);
  });
});

describe('fleetView', () => {
  const readings = [
    {
      name: 'east',
      releases: [
        release('web', 'shop', { ready: 'True' }),
        release('cart', 'shop', { ready: 'False' }),
        release('api', 'pay', { ready: 'True' }),
        release('other', 'pay'),
        release('db', 'infra'),
      ],
      freezes: [freeze('f1', { namespaces: ['shop'] })],
      proposals: [proposal('shop', 'web', { release: { cluster: 'east', namespace: 'shop', name: 'web' } })],
    },
    { name: 'west', releases: [], freezes: [], proposals: [], unavailable: 'unreachable since 10:00' },
  ];
  const viewer = { subject: ANA, teams: TEAMS };

  it('shows only what the Teams let the person status, by cluster and namespace, with counts', () => {
    const view = fleetView(readings, viewer, {}, NOW);
    const east = view.clusters[0]!;
    expect(east.namespaces.map((ns) => [ns.name, ns.releases.map((r) => r.name)])).toEqual([
      ['pay', ['api']],
      ['shop', ['cart', 'web']],
    ]);
    expect(view.clusters[1]).toMatchObject({ name: 'west', unavailable: 'unreachable since 10:00', count: 0 });
    expect(view.counts).toMatchObject({ total: 3, ready: 2, failed: 1, frozen: 2, proposal: 1 });
    expect(view.options).toMatchObject({ clusters: ['east', 'west'], namespaces: ['pay', 'shop'], teams: ['pay', 'shop'] });
  });

  it.each([
    { name: 'namespace', filters: { namespace: 'pay' }, want: ['api'] },
    { name: 'Team', filters: { team: 'shop' }, want: ['cart', 'web'] },
    { name: 'state', filters: { state: 'failed' as const }, want: ['cart'] },
    { name: 'state proposal waiting', filters: { state: 'proposal' as const }, want: ['web'] },
    { name: 'another cluster', filters: { cluster: 'west' }, want: [] },
  ])('filters by $name', ({ filters, want }) => {
    const view = fleetView(readings, viewer, filters, NOW);
    expect(view.clusters.flatMap((c) => c.namespaces.flatMap((ns) => ns.releases.map((r) => r.name))).sort()).toEqual(want);
    expect(view.counts.total).toBe(want.length);
  });

  it('a person in no Team sees nothing', () => {
    const view = fleetView(readings, { subject: { slackUser: 'UNOBODY', slackUserGroups: [] }, teams: TEAMS }, {}, NOW);
    expect(view.counts.total).toBe(0);
    expect(view.options.namespaces).toEqual([]);
  });

  it.each([
    {
      name: 'all given',
      query: { cluster: 'east', namespace: 'shop', team: 'ops', state: 'frozen' },
      want: { cluster: 'east', namespace: 'shop', team: 'ops', state: 'frozen' },
    },
    { name: 'unknown state dropped', query: { state: '<script>' }, want: {} },
    { name: 'empty and non-string dropped', query: { namespace: '', team: ['a', 'b'] }, want: {} },
  ])('parseFleetFilters: $name', ({ query, want }) => {
    expect(parseFleetFilters(query)).toEqual(want);
  });
});

const record = (revision: number, at: string, extra: Partial<StoredRelease> = {}): StoredRelease => ({
  name: 'web',
  namespace: 'shop',
  revision,
  status: 'deployed',
  chartName: 'app',
  chartVersion: `1.${revision}.0`,
  config: {},
  lastDeployed: at,
  ...extra,
});

describe('the timeline', () => {
  it.each([
    { actor: 'slack:U1', channel: 'C1', want: 'slack' },
    { actor: 'slack:U1', channel: 'web', want: 'web' },
    { actor: 'kube:alice', channel: undefined, want: 'terminal' },
    { actor: 'oidc:ana@example.com', channel: undefined, want: 'web' },
    { actor: 'mcp:claude', channel: undefined, want: 'assistant' },
    { actor: 'system', channel: undefined, want: 'helmcrew' },
  ])('originOf($actor, $channel) is $want', ({ actor, channel, want }) => {
    expect(originOf(actor, channel)).toBe(want);
  });

  it.each([
    {
      name: 'a rollback from Slack with a reason',
      message: 'slack:U1 in C1 asked for the rollback of shop/web to revision 2: bad deploy',
      want: { who: 'slack:U1', via: 'slack', what: 'asked for the rollback of shop/web to revision 2', why: 'bad deploy', approvers: [] },
    },
    {
      name: 'break-glass names the approver',
      message: 'kube:alice asked for the upgrade of shop/web (BREAK-GLASS through freeze f1, approved by slack:U9): hotfix',
      want: { who: 'kube:alice', via: 'terminal', approvers: ['slack:U9'], why: 'hotfix' },
    },
    {
      name: 'a vote on a proposal, with every approver so far',
      message: 'slack:U2 (bob) approved proposal p-1 for shop/web (image web 1.0 → 1.1): 2 of 2, approved by slack:U1 (ana), slack:U2 (bob)',
      want: { kind: 'proposal', who: 'slack:U2', via: 'slack', approvers: ['slack:U1 (ana)', 'slack:U2 (bob)'] },
    },
    {
      name: 'a rejection names who approved before',
      message: 'slack:U3 rejected proposal p-1 for shop/web (image web 1.0 → 1.1) (approved before by slack:U1 (ana)); nothing changes',
      want: { kind: 'proposal', who: 'slack:U3', approvers: ['slack:U1 (ana)'] },
    },
    {
      name: 'a vote on the web by a Slack user signed in there (via web)',
      message:
        'slack:U2 (bob) via web approved proposal p-1 for shop/web (image web 1.0 → 1.1): approved by slack:U1 (ana), slack:U2 (bob); the controller applies it',
      want: {
        kind: 'proposal',
        who: 'slack:U2',
        via: 'web',
        what: 'approved proposal p-1 for shop/web (image web 1.0 → 1.1): approved by slack:U1 (ana), slack:U2 (bob); the controller applies it',
      },
    },
    {
      name: 'a Slack user signed in on the web (Actor.via)',
      message: 'slack:U1 via web asked for the rollback of shop/web to revision 2: from my phone',
      want: { who: 'slack:U1', via: 'web', what: 'asked for the rollback of shop/web to revision 2', why: 'from my phone' },
    },
    {
      name: "an assistant's proposal, approved and carried out (Actor.via: an assistant)",
      message: 'slack:U1 via an assistant asked for the rollback of shop/web to revision 2: pink was fine',
      want: { who: 'slack:U1', via: 'assistant', what: 'asked for the rollback of shop/web to revision 2', why: 'pink was fine' },
    },
    { name: 'hostile reason stays text data', message: `slack:U1 in C1 asked for the suspend of shop/web: ${HOSTILE}`, want: { why: HOSTILE } },
  ])('actionOfEvent: $name', ({ message, want }) => {
    expect(actionOfEvent({ reason: 'ActionRequested', message, at: '2026-11-28T10:00:00Z' })).toMatchObject(want);
  });

  it('helm outcome Events are not actions (the revisions are)', () => {
    expect(actionOfEvent({ reason: 'UpgradeSucceeded', message: 'ok', at: '' })).toBeUndefined();
  });

  it('merges revisions, actions, proposals and the suspension, newest first', () => {
    const r = release('web', 'shop', { suspend: true });
    r.status = { ...r.status, suspension: { by: 'kube:bob', reason: 'investigating', at: '2026-11-28T11:00:00Z' } };
    const entries = timeline(
      r,
      [record(2, '2026-11-28T10:00:00Z'), record(1, '2026-11-27T10:00:00Z', { status: 'superseded' })],
      [{ reason: 'ActionRequested', message: 'slack:U1 in C1 asked for the upgrade of shop/web', at: '2026-11-28T10:00:00Z' }],
      [proposal('shop', 'web')],
    );
    expect(entries.map((e) => [e.kind, e.who])).toEqual([
      ['suspension', 'kube:bob'],
      ['revision', 'helmcrew'],
      ['action', 'slack:U1'],
      ['proposal', 'helmcrew'],
      ['revision', 'helmcrew'],
    ]);
    expect(entries[3]).toMatchObject({ approvers: ['slack:U7'] });
  });
});

describe('valuesView', () => {
  const r = release('web', 'shop', { values: { image: { tag: '1.2' }, replicas: 2, db: { password: 'hunter22' }, note: HOSTILE } });
  r.status = { ...r.status, approvedOverrides: [{ valuesPath: 'image.tag', value: '1.3', at: '' }] };

  it.each([
    { path: 'image.tag', want: '1.3', why: 'an approved override' },
    { path: 'replicas', want: '2', why: 'declared on the HelmRelease' },
    { path: 'db.password', want: MASK, why: 'a secret-like name, even declared' },
    { path: 'fromSecret', want: MASK, why: 'not declared: from valuesFrom' },
    { path: 'note', want: HOSTILE, why: 'declared; escaping is the template’s' },
  ])('$path: $why', ({ path, want }) => {
    const config: Record<string, unknown> = { image: { tag: '1.3' }, replicas: 2, db: { password: 'hunter22' }, note: HOSTILE, fromSecret: 's3cr3t-value' };
    const row = valuesView(r, config).find((v) => v.path === path);
    expect(row?.value).toBe(want);
  });

  it('a declared path with another value given (valuesFrom won) is masked', () => {
    expect(valuesView(r, { replicas: 5 })).toEqual([{ path: 'replicas', value: MASK, masked: true }]);
  });
});

describe('objects', () => {
  it('inventoryRefs reads Flux ids, core and grouped kinds', () => {
    expect(
      inventoryRefs({
        entries: [
          { id: 'shop_web_apps_Deployment', v: 'v1' },
          { id: 'shop_web__Service', v: 'v1' },
          { id: '_web-role_rbac.authorization.k8s.io_ClusterRole', v: 'v1' },
          { id: 'broken', v: 'v1' },
        ],
      }),
    ).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      { apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'shop' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'web-role', namespace: '' },
    ]);
  });

  it.each([
    { name: 'missing', found: { kind: 'missing' as const, clusterScoped: false }, want: 'missing' },
    { name: 'unread', found: undefined, want: 'unknown' },
    {
      name: 'a Deployment behind its generation',
      found: {
        kind: 'found' as const,
        clusterScoped: false,
        object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', generation: 2 }, status: { observedGeneration: 1 } },
      },
      want: 'in-progress',
    },
  ])('objectRow: $name', ({ found, want }) => {
    expect(objectRow({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }, found).health).toBe(want);
  });
});

describe('freezes and URLs', () => {
  it('active first, ended and waiting after', () => {
    const rows = freezeRows(
      [freeze('old', { all: true }, { until: '2026-11-01T00:00:00Z' }), freeze('now', { namespaces: ['shop'] }, { until: '2026-12-01T00:00:00Z' })],
      NOW,
    );
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['now', 'active'],
      ['old', 'ended'],
    ]);
  });

  it.each([
    { base: 'https://helmcrew.example/', cluster: undefined, want: 'https://helmcrew.example/releases/-/shop/web' },
    { base: '', cluster: 'east', want: '/releases/east/shop/web' },
    { base: '/x', cluster: 'a/b?c', want: '/x/releases/a%2Fb%3Fc/shop/web' },
  ])('releaseUrl($base, $cluster)', ({ base, cluster, want }) => {
    expect(releaseUrl(base, cluster, 'shop', 'web')).toBe(want);
  });

  it('the `-` segment is the one cluster', () => {
    expect([clusterOfSegment('-'), clusterOfSegment('east')]).toEqual([undefined, 'east']);
  });
});
