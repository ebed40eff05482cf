import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { imageValuesForFleet } from '../../src/core/fleet/fleet-query.js';
import {
  decidePromotion,
  deployedChartVersion,
  reproposal,
  valueInEffect,
  type PromotionEnd,
  type PromotionDecision,
} from '../../src/core/proposals/promotion.js';

/** What a promotion proposes (issue 35): the source's chart version and image values at the target's image paths. */

const IMAGE = { repository: 'registry.example.com/shop/web', policy: { semver: '1.x' }, valuesPath: 'image.tag', digestPath: 'image.digest' };

function release(namespace: string, over: Partial<HelmRelease['spec']> = {}, status?: HelmRelease['status']): HelmRelease {
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace },
    spec: { chart: { repository: 'https://charts.example', name: 'web', version: '1.x' }, imageUpdates: [IMAGE], ...over },
    ...(status ? { status } : {}),
  };
}

const end = (r: HelmRelease, runs: string | undefined, cluster = 'default'): PromotionEnd => ({
  cluster,
  release: r,
  ...(runs !== undefined ? { runs } : {}),
  valueAt: (path) => valueInEffect(r, path),
});

const staging = release('staging', { values: { image: { tag: '1.5.0', digest: 'sha256:bbb' } } });
const prod = release('prod', { values: { image: { tag: '1.4.2', digest: 'sha256:aaa' } }, approval: { required: 2, expireAfter: '1h', teams: ['web'] } });

function proposed(decision: PromotionDecision) {
  if (decision.kind !== 'propose') throw new Error(`expected a proposal, got ${JSON.stringify(decision)}`);
  return decision;
}

describe('decidePromotion', () => {
  it("proposes the source's chart version and image values for the target, as a person's promotion awaiting the target's approvals", () => {
    const { proposal, kept } = proposed(decidePromotion(end(staging, '1.3.0'), end(prod, '1.2.0'), 'slack:UANA', 1000));
    expect(kept).toEqual([]);
    expect(proposal).toMatchObject({
      kind: 'promotion',
      release: { cluster: 'default', namespace: 'prod', name: 'web' },
      chartVersion: { from: '1.2.0', to: '1.3.0' },
      values: [
        { valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' },
        { valuesPath: 'image.digest', from: 'sha256:aaa', to: 'sha256:bbb' },
      ],
      subject: 'default/prod/web promotion from default/staging/web',
      facts: { required: 2, proposedBy: 'slack:UANA', expiresAt: 1000 + 3_600_000, teams: ['web'] },
      state: { phase: 'open', approvers: [] },
      createdAt: 1000,
      unannounced: true,
    });
    expect(proposal.summary).toBe('promotion from staging/web to prod/web: chart 1.2.0 → 1.3.0, image.tag 1.4.2 → 1.5.0, image.digest sha256:aaa → sha256:bbb');
    expect(proposal.id).toMatch(/^p-[0-9a-f]{16}$/);
  });

  it('reads what is in effect: an approved override before the declared value, on either side', () => {
    const auto = release(
      'staging',
      { values: { image: { tag: '1.0.0' } } },
      {
        approvedOverrides: [{ valuesPath: 'image.tag', value: '1.6.1', at: '2026-11-26T20:00:00Z' }],
      },
    );
    const gated = release(
      'prod',
      { values: { image: { tag: '1.0.0' } } },
      {
        approvedOverrides: [{ valuesPath: 'image.tag', value: '1.5.0', at: '2026-11-26T20:00:00Z' }],
      },
    );
    const { proposal, kept } = proposed(decidePromotion(end(auto, '1.3.0'), end(gated, '1.3.0'), 'slack:UANA', 0));
    expect(proposal.values).toEqual([{ valuesPath: 'image.tag', from: '1.5.0', to: '1.6.1' }]);
    expect(proposal.chartVersion).toBeUndefined();
    expect(kept).toEqual(['image.digest: staging/web sets none that can be read here; left as it is']);
  });

  it('the same chart version and images on both sides: nothing to promote, said with what runs', () => {
    const same = release('prod', { values: { image: { tag: '1.5.0', digest: 'sha256:bbb' } } });
    expect(decidePromotion(end(staging, '1.3.0'), end(same, '1.3.0'), 'slack:UANA', 0)).toEqual({
      kind: 'nothing',
      message: 'prod/web already runs what staging/web runs (chart web 1.3.0, image.tag 1.5.0): nothing to promote',
    });
  });

  it('refuses what cannot be a promotion: one place twice, two charts, a source that runs nothing', () => {
    expect(decidePromotion(end(staging, '1.0.0'), end(staging, '1.0.0'), 'slack:UANA', 0)).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/both name staging\/web/),
    });
    const other = release('prod', { chart: { repository: 'https://charts.example', name: 'shop' } });
    expect(decidePromotion(end(staging, '1.0.0'), end(other, '1.0.0'), 'slack:UANA', 0)).toEqual({
      kind: 'refused',
      message: "staging/web runs chart web and prod/web chart shop: a promotion carries one chart's version and images",
    });
    expect(decidePromotion(end(staging, undefined), end(prod, '1.0.0'), 'slack:UANA', 0)).toEqual({
      kind: 'refused',
      message: 'nothing is deployed for staging/web: there is nothing running there to promote',
    });
    // Neither spec.approval nor spec.imageUpdates: the controller would never look for it.
    const bare = release('prod', { imageUpdates: [] });
    expect(decidePromotion(end(staging, '1.1.0'), end(bare, '1.0.0'), 'slack:UANA', 0)).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/^prod\/web takes no proposals: give it spec.approval/),
    });
  });

  it('names the clusters when the two ends are in different ones; the subject names the source', () => {
    const { proposal } = proposed(decidePromotion(end(staging, '1.3.0', 'edge'), end(prod, '1.3.0', 'home'), 'slack:UANA', 0));
    expect(proposal.summary).toMatch(/^promotion from edge:staging\/web to home:prod\/web: /);
    expect(proposal.subject).toBe('home/prod/web promotion from edge/staging/web');
    expect(proposal.release.cluster).toBe('home');
  });

  it('without spec.approval on the target it is approved as it opens (applied on its own), with nothing to announce', () => {
    const open = release('prod', { values: { image: { tag: '1.4.2' } } });
    const { proposal } = proposed(decidePromotion(end(staging, '1.3.0'), end(open, '1.3.0'), 'slack:UANA', 0));
    expect(proposal.state).toEqual({ phase: 'approved', approvers: [] });
    expect(proposal.facts.required).toBe(0);
    expect(proposal.unannounced).toBeUndefined();
  });

  it('a Git chart carries no version to promote, only its images', () => {
    const git = { git: { url: 'https://git.example/charts.git', ref: { branch: 'main' } }, name: 'web' } as unknown as HelmRelease['spec']['chart'];
    const from = release('staging', { chart: git, values: { image: { tag: '1.5.0' } } });
    const to = release('prod', { chart: git, values: { image: { tag: '1.4.2' } }, approval: { required: 1 } });
    const { proposal } = proposed(decidePromotion(end(from, '0.1.0+abc'), end(to, '0.1.0+def'), 'slack:UANA', 0));
    expect(proposal.chartVersion).toBeUndefined();
    expect(proposal.values).toEqual([{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }]);
  });

  it('the same change has the same id (a second request finds it); asked again after it closed, a new one', () => {
    const a = proposed(decidePromotion(end(staging, '1.3.0'), end(prod, '1.2.0'), 'slack:UANA', 1000)).proposal;
    const b = proposed(decidePromotion(end(staging, '1.3.0'), end(prod, '1.2.0'), 'slack:UBEN', 9000)).proposal;
    expect(b.id).toBe(a.id);
    const again = reproposal(a, 9000);
    expect(again.id).not.toBe(a.id);
    expect({ ...again, id: a.id }).toEqual(a);
  });
});

describe('what a release runs and holds, as its object tells', () => {
  it('the chart version of its newest deployed revision', () => {
    const history = (status: string, chartVersion: string, revision: number) => ({ revision, chartName: 'web', chartVersion, valuesDigest: '', status });
    expect(
      deployedChartVersion(release('x', {}, { history: [history('failed', '2.0.0', 3), history('deployed', '1.3.0', 2), history('superseded', '1.2.0', 1)] })),
    ).toBe('1.3.0');
    expect(deployedChartVersion(release('x'))).toBeUndefined();
  });

  it('a fleet agent answers the image values at its release’s own image paths, nothing else', () => {
    const r = release('staging', { values: { image: { tag: '1.5.0', digest: 'sha256:bbb' }, password: 'hunter2' } });
    expect(imageValuesForFleet(r)).toEqual({ 'image.tag': '1.5.0', 'image.digest': 'sha256:bbb' });
    expect(JSON.stringify(imageValuesForFleet(r))).not.toContain('hunter2');
    expect(imageValuesForFleet(release('x', { imageUpdates: [], values: { image: { tag: '1' } } }))).toEqual({});
  });
});
