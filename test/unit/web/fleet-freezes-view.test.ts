import { describe, expect, it } from 'vitest';
import { fleetFreezeObject, freezesOfCluster, type FleetFreeze } from '../../../src/core/fleet/fleet-freezes.js';
import { eventsForFleet } from '../../../src/core/fleet/fleet-events.js';
import { newQuery, signQuery, verifyQuery } from '../../../src/core/fleet/fleet-query.js';
import { renderBanner, renderFreezesPage } from '../../../src/web/render/templates.js';
import { fleetBannerRows, fleetFreezeRows } from '../../../src/web/views/fleet-freezes-view.js';
import { actionOfEvent } from '../../../src/web/views/timeline.js';
import { freeze, NOW } from './builders.js';

const trainRecord: FleetFreeze = {
  clusters: ['prod-*'],
  freeze: fleetFreezeObject('train', { reason: 'release train', setBy: 'slack:U1', until: '2026-11-28T18:00:00Z' }),
};

describe('the fleet’s freezes for the banner and the freezes page', () => {
  // As agents answer: each cluster's own Freeze objects and the fleet freezes taking it in.
  const clusters = [
    { cluster: 'home', own: true, freezes: [freeze('home-night', { namespaces: ['shop'] })] },
    { cluster: 'prod-eu', own: false, freezes: [freeze('eu-audit', { all: true }, { reason: 'audit' }), ...freezesOfCluster([trainRecord], 'prod-eu')] },
    { cluster: 'prod-us', own: false, freezes: freezesOfCluster([trainRecord], 'prod-us') },
    { cluster: 'edge', own: false, unreadable: 'cluster edge is unreachable: its agent stopped answering' },
  ];

  it('names where each holds, shows a fleet freeze once, and lifts only the own cluster’s and the fleet’s here', () => {
    const { rows, unknown } = fleetFreezeRows(clusters, [trainRecord], NOW);
    expect(rows.map((r) => [r.name, r.where, r.liftable])).toEqual([
      ['home-night', 'cluster home', true],
      ['eu-audit', 'cluster prod-eu', false],
      ['train', 'fleet: prod-*', true],
    ]);
    expect(rows.find((r) => r.name === 'train')).toMatchObject({ by: 'slack:U1', why: 'release train', until: '2026-11-28T18:00:00Z', state: 'active' });
    expect(unknown).toEqual(['cluster edge: cluster edge is unreachable: its agent stopped answering']);
  });

  it('the banner: active ones only, and the clusters whose Freezes are unknown', () => {
    const ended = { cluster: 'prod-us', own: false, freezes: [freeze('old', { all: true }, { until: '2026-11-27T00:00:00Z' })] };
    const { rows, unknown } = fleetBannerRows([...clusters, ended], [trainRecord], NOW);
    expect(rows.map((r) => r.name)).toEqual(['home-night', 'eu-audit', 'train']);
    const html = renderBanner(rows, unknown);
    expect(html).toContain('<em>cluster prod-eu</em> every release in the cluster — by slack:U1: audit (until lifted)');
    expect(html).toContain('<em>fleet: prod-*</em>');
    expect(html).toContain('Freezes unknown</strong> cluster edge');
  });

  it('a Freeze of a cluster named like a fleet freeze but not the same is kept as the cluster’s', () => {
    const own = freeze('train', { namespaces: ['shop'] });
    const { rows } = fleetFreezeRows([{ cluster: 'prod-eu', own: false, freezes: [own] }], [trainRecord], NOW);
    expect(rows.map((r) => r.where)).toEqual(['cluster prod-eu', 'fleet: prod-*']);
  });

  it('the freezes page: a where column and the unknown clusters with a fleet; as before without one', () => {
    const { rows, unknown } = fleetFreezeRows(clusters, [trainRecord], NOW);
    const page = renderFreezesPage(rows, { unknown });
    expect(page).toContain('<th>where</th>');
    expect(page).toContain('lifted in its cluster');
    expect(page).toContain('Freezes unknown: cluster edge');
    const single = renderFreezesPage(fleetFreezeRows([{ cluster: 'home', own: true, freezes: [freeze('a', { all: true })] }], [], NOW).rows);
    expect(single).not.toContain('<th>where</th>');
    expect(single).toContain('name="unfreeze"');
  });

  it('no freeze and nothing unknown: an empty banner slot for the live stream', () => {
    expect(renderBanner([], [])).toBe('<div id="live-banner"></div>');
  });
});

describe('the `events` question', () => {
  const KEY = 'k'.repeat(40);
  const at = NOW.getTime();

  it('is a release’s, by names that are Kubernetes names', () => {
    const good = newQuery('edge', { kind: 'events', namespace: 'web', name: 'unicorn' }, at);
    expect(verifyQuery(signQuery(good, KEY), 'edge', KEY, at)).toEqual({ ok: true, query: good });
    const bad = newQuery('edge', { kind: 'events', namespace: 'web', name: 'Uni corn' } as never, at);
    expect(verifyQuery(signQuery(bad, KEY), 'edge', KEY, at)).toEqual({ ok: false, message: 'not a signed query' });
  });

  it('answers only the timeline’s Events, newest first, bounded', () => {
    const events = [
      { reason: 'UpgradeSucceeded', message: 'helm upgrade ok', at: '2026-11-28T10:00:00Z' },
      { reason: 'ActionRequested', message: 'a', at: '2026-11-28T09:00:00Z' },
      { reason: 'ProposalOpened', message: 'b', at: '2026-11-28T11:00:00Z' },
      { reason: 'ActionRefused', message: 'x'.repeat(5000), at: '2026-11-28T08:00:00Z', type: 'Warning' },
    ];
    const answered = eventsForFleet(events);
    expect(answered.map((e) => e.reason)).toEqual(['ProposalOpened', 'ActionRequested', 'ActionRefused']);
    expect(answered[2]!.message).toHaveLength(2000);
    expect(eventsForFleet(events, 1)).toHaveLength(1);
  });

  it('an agent’s Event of a command reads as the person’s action in the timeline', () => {
    const entry = actionOfEvent({
      reason: 'ActionRequested',
      message: 'slack:UOLGA asked for suspend of edge-ns/edge-app in cluster edge: web-fleet (fleet command)',
      at: '2026-11-28T09:00:00Z',
    });
    expect(entry).toMatchObject({ who: 'slack:UOLGA', via: 'slack', what: 'asked for suspend of edge-ns/edge-app in cluster edge', why: 'web-fleet' });
  });
});
