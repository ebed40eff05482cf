import { describe, expect, it } from 'vitest';
import { renderFleet } from '../../../src/web/render/fleet-templates.js';
import { renderBanner, renderRelease, renderProposalsPage, PROPOSAL_ACTIONS_SLOT } from '../../../src/web/render/templates.js';
import { escapeHtml } from '../../../src/web/render/html.js';
import { fleetView } from '../../../src/web/views/fleet-view.js';
import { releaseView } from '../../../src/web/views/release-view.js';
import { bannerFreezes } from '../../../src/web/views/freezes-view.js';
import { proposalView } from '../../../src/web/views/proposals-view.js';
import { concerns, liveParts, parseLivePage } from '../../../src/web/live/live-parts.js';
import { ANA, freeze, HOSTILE, HOSTILE_ATTR, NOW, proposal, release, TEAMS } from './builders.js';

/** No markup of the hostile strings survives: the script tag and the attribute break-out arrive as text. */
function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<img src=x');
  expect(html).not.toMatch(/"><img/);
}

describe('templates escape every value', () => {
  const hostile = release(`web`, 'shop', { ready: 'False', values: { note: HOSTILE, attr: HOSTILE_ATTR } });
  hostile.status!.conditions![0]!.message = `upgrade failed: ${HOSTILE} ${HOSTILE_ATTR}`;
  hostile.status!.lastAttemptFailed = true;
  hostile.status!.conditions!.push({
    type: 'Released',
    status: 'False',
    reason: 'UpgradeFailed',
    message: `helm said ${HOSTILE_ATTR}`,
    lastTransitionTime: '',
  });

  it('the release page: values, status message, last failure, timeline, proposals', () => {
    const view = releaseView(
      {
        release: hostile,
        revisions: [
          {
            name: 'web',
            namespace: 'shop',
            revision: 1,
            status: 'failed',
            chartName: 'app',
            chartVersion: '1',
            config: { note: HOSTILE, attr: HOSTILE_ATTR },
            description: HOSTILE,
          },
        ],
        events: [{ reason: 'ActionRequested', message: `slack:U1 in C1 asked for the upgrade of shop/web: ${HOSTILE_ATTR}`, at: '2026-11-28T10:00:00Z' }],
        proposals: [proposal('shop', 'web', { summary: HOSTILE, diff: [HOSTILE_ATTR] })],
        freezes: [freeze('f', { namespaces: ['shop'] }, { reason: HOSTILE })],
        objects: [{ kind: 'Deployment', name: 'web', namespace: 'shop', health: 'failed', message: HOSTILE }],
      },
      NOW,
    );
    expect(view.values.map((v) => v.value)).toEqual([HOSTILE, HOSTILE_ATTR]);
    const html = renderRelease(view);
    expectInert(html);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('Last failure');
  });

  it('the fleet page, a hostile filter echoed back, and the banner', () => {
    const r = release('web', 'shop', { ready: 'False' });
    r.status!.conditions![0]!.message = HOSTILE_ATTR;
    const html = renderFleet(fleetView([{ releases: [r], freezes: [], proposals: [] }], { subject: ANA, teams: TEAMS }, { namespace: HOSTILE_ATTR }, NOW));
    expectInert(html);
    const unfiltered = renderFleet(fleetView([{ releases: [r], freezes: [], proposals: [] }], { subject: ANA, teams: TEAMS }, {}, NOW));
    // `/` and `=` stay as they are (render/html.ts): every attribute is quoted.
    expect(unfiltered).toContain('href="/releases/-/shop/web"');
    expect(html).not.toContain('/shop/web');
    expect(unfiltered).toContain('<div class="msg">&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</div>');
    expect(unfiltered).toContain('&quot;&gt;&lt;img');
    const banner = renderBanner(bannerFreezes([freeze('f', { all: true }, { reason: HOSTILE, setBy: HOSTILE_ATTR })], NOW));
    expectInert(banner);
    expect(banner).toContain('Frozen');
  });

  it('the proposal actions slot renders the given forms, with the proposal and the CSRF token', () => {
    const html = renderProposalsPage([proposalView(proposal('shop', 'web'))], false, [], {
      proposalActions: '<form method="post" action="/proposals/{{id}}/approve"><input type="hidden" name="_csrf" value="{{csrfToken}}"></form>',
      csrfToken: 'tok"en',
    });
    expect(PROPOSAL_ACTIONS_SLOT).toBe('proposalActions');
    expect(html).toContain('action="/proposals/p-web/approve"');
    expect(html).toContain('value="tok&quot;en"');
    expect(html).toContain('approvals 1 of 2');
  });
});

describe('live parts', () => {
  const viewer = { subject: ANA, teams: TEAMS };
  it.each([
    { query: {}, want: { kind: 'fleet', filters: {} } },
    { query: { page: 'release', release: 'shop/web' }, want: { kind: 'release', namespace: 'shop', name: 'web' } },
    { query: { page: 'banner' }, want: { kind: 'banner' } },
    { query: { page: 'release', release: 'shop/web', cluster: 'edge' }, want: { kind: 'release', namespace: 'shop', name: 'web', cluster: 'edge' } },
  ])('parseLivePage $query', ({ query, want }) => {
    expect(parseLivePage(query)).toEqual({ ok: true, page: want });
  });

  it.each([{ page: 'release', release: '<script>' }, { page: 'release' }, { page: 'nope' }, { page: 'release', release: 'shop/web', cluster: 'Edge/1' }])(
    'refuses %o with a message',
    (query) => {
      const parsed = parseLivePage(query);
      expect(parsed.ok).toBe(false);
    },
  );

  it('a release page hears of its release and of freezes only', () => {
    const page = { kind: 'release' as const, namespace: 'shop', name: 'web' };
    expect(concerns(page, { kind: 'release', namespace: 'shop', name: 'web' })).toBe(true);
    expect(concerns(page, { kind: 'release', namespace: 'shop', name: 'cart' })).toBe(false);
    expect(concerns(page, { kind: 'freezes' })).toBe(true);
    expect(concerns({ kind: 'banner' }, { kind: 'release', namespace: 'shop', name: 'web' })).toBe(false);
    // Another cluster's release of the same name: its follower tells, not the own cluster's watch.
    expect(concerns({ ...page, cluster: 'edge' }, { kind: 'release', namespace: 'shop', name: 'web' })).toBe(false);
  });

  it('renders the release summary for a viewer who may see it, and a notice for one who may not', () => {
    const snapshot = { releases: [release('web', 'shop', { ready: 'True' })], freezes: [], proposals: [] };
    const page = { kind: 'release' as const, namespace: 'shop', name: 'web' };
    const mine = liveParts(page, snapshot, viewer, NOW);
    expect(Object.keys(mine).sort()).toEqual(['live-banner', 'live-summary']);
    expect(mine['live-summary']).toContain('class="mark ready"');
    const theirs = liveParts(page, snapshot, { subject: { slackUser: 'UX', slackUserGroups: [] }, teams: TEAMS }, NOW);
    expect(theirs['live-summary']).not.toContain('mark ready');
  });

  it('the fleet page: its cluster section and counts', () => {
    const parts = liveParts(
      { kind: 'fleet', filters: {} },
      { releases: [release('web', 'shop', { ready: 'False' })], freezes: [], proposals: [] },
      viewer,
      NOW,
    );
    expect(parts['live-cluster-own']).toContain('/releases/-/shop/web');
    expect(parts['live-counts']).toContain('1 releases');
  });
});

describe('the fleet row', () => {
  it('a Ready release shows no message (its page does); one not Ready says why', () => {
    const ok = release('api', 'shop', { ready: 'True' });
    const bad = release('web', 'shop', { ready: 'False' });
    const html = renderFleet(fleetView([{ releases: [ok, bad], freezes: [], proposals: [] }], { subject: ANA, teams: TEAMS }, {}, NOW));
    expect(html).toContain('<tr><td><a href="/releases/-/shop/api">api</a><td>app 1.0.0<td><span class="mark ready">Ready</span>\n');
    expect(html).toContain('<span class="mark failed">Failed</span><div class="msg">ready False</div>\n');
  });
});

describe('escapeHtml', () => {
  it.each([
    ['<a href="x">', '&lt;a href=&quot;x&quot;&gt;'],
    ["it's & more", 'it&#39;s &amp; more'],
    ['/releases/-/a=b`c', '/releases/-/a=b`c'],
    [42, '42'],
  ])('%s', (value, want) => expect(escapeHtml(value)).toBe(want));
});
