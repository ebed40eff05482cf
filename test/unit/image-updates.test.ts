import { describe, expect, it } from 'vitest';
import type { ApprovedOverrideStatus } from '../../src/api/helmrelease-status.js';
import type { ImageUpdate } from '../../src/api/helmrelease.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { applyProposals, approvedImagesOf, imageUpdatesProblem, overridesOf, proposalDetailsOf } from '../../src/controller/reconcile/desired/image-updates.js';

const update = (over: Partial<ImageUpdate> = {}): ImageUpdate => ({
  repository: 'registry.example.com/shop/web',
  policy: { semver: '1.x' },
  valuesPath: 'image.tag',
  ...over,
});

const proposal = (over: Partial<Proposal> = {}): Proposal => ({
  id: 'p-1',
  kind: 'image',
  release: { cluster: 'default', namespace: 'shop', name: 'web' },
  values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
  summary: 'image registry.example.com/shop/web 1.4.2 → 1.5.0',
  subject: 'default/shop/web image registry.example.com/shop/web',
  facts: { required: 2, expiresAt: 10 },
  state: { phase: 'approved', approvers: ['U1', 'U2'] },
  createdAt: 1,
  ...over,
});

describe('imageUpdatesProblem', () => {
  it('accepts good entries', () => {
    expect(
      imageUpdatesProblem({
        imageUpdates: [
          update(),
          update({ repository: 'r.example/x/y', valuesPath: 'b.tag', policy: { pattern: '^main-(?P<ts>\\d+)$', extract: '$ts', order: 'numerical' } }),
        ],
      }),
    ).toBeUndefined();
    expect(imageUpdatesProblem({})).toBeUndefined();
  });

  it.each([
    [update({ policy: { semver: 'one point x' } }), 'spec.imageUpdates[0] (registry.example.com/shop/web): policy.semver "one point x" is not a semver range'],
    [update({ policy: { pattern: '^main-(' } }), 'spec.imageUpdates[0] (registry.example.com/shop/web): policy.pattern "^main-(" is not a regular expression'],
    [update({ valuesPath: 'image..tag' }), 'spec.imageUpdates[0] (registry.example.com/shop/web): valuesPath "image..tag" has an empty key'],
    [update({ digestPath: '[0]' }), 'spec.imageUpdates[0] (registry.example.com/shop/web): digestPath "[0]" starts with an index'],
  ])('names a bad entry: %#', (entry, message) => {
    expect(imageUpdatesProblem({ imageUpdates: [entry] })).toContain(message);
  });

  it('names two entries writing one path', () => {
    expect(imageUpdatesProblem({ imageUpdates: [update(), update({ repository: 'r.example/a/b' })] })).toBe(
      'spec.imageUpdates[1] (r.example/a/b): valuesPath "image.tag" is also set by spec.imageUpdates[0]',
    );
  });
});

describe('status.approvedOverrides', () => {
  it('records the declared value a new path had, keeps the one an overridden path replaced, and names who', () => {
    const current: ApprovedOverrideStatus[] = [{ valuesPath: 'image.tag', value: '1.4.9', declared: '"1.4.2"', proposalId: 'p-0', approvers: [], at: 'T0' }];
    const next = applyProposals(
      current,
      { image: { tag: '1.4.9', digest: 'sha256:00' } },
      [
        proposal({
          values: [
            { valuesPath: 'image.tag', to: '1.5.0' },
            { valuesPath: 'image.digest', to: 'sha256:ab' },
          ],
        }),
      ],
      'T1',
      () => 'registry.example.com/shop/web',
    );
    expect(next).toEqual([
      {
        valuesPath: 'image.tag',
        value: '1.5.0',
        declared: '"1.4.2"',
        repository: 'registry.example.com/shop/web',
        proposalId: 'p-1',
        approvers: ['U1', 'U2'],
        at: 'T1',
      },
      {
        valuesPath: 'image.digest',
        value: 'sha256:ab',
        declared: '"sha256:00"',
        repository: 'registry.example.com/shop/web',
        proposalId: 'p-1',
        approvers: ['U1', 'U2'],
        at: 'T1',
      },
    ]);
    expect(overridesOf({ approvedOverrides: next })).toEqual([
      { valuesPath: 'image.tag', value: '1.5.0', declared: '1.4.2' },
      { valuesPath: 'image.digest', value: 'sha256:ab', declared: 'sha256:00' },
    ]);
    expect(approvedImagesOf(next, { imageUpdates: [update({ digestPath: 'image.digest' })] })).toBe('registry.example.com/shop/web:1.5.0');
  });

  it('a path with no declared value records none', () => {
    const [entry] = applyProposals([], {}, [proposal()], 'T1', () => undefined);
    expect(entry).not.toHaveProperty('declared');
    expect(overridesOf({ approvedOverrides: [entry!] })).toEqual([{ valuesPath: 'image.tag', value: '1.5.0' }]);
  });

  it('names the proposer and approvers of the changes written since the last attempt only', () => {
    const entries: ApprovedOverrideStatus[] = [
      { valuesPath: 'a', value: '1', proposalId: 'p-old', approvers: ['U9'], at: '2026-01-01T00:00:00.000Z' },
      { valuesPath: 'b', value: '2', proposalId: 'p-new', approvers: ['U1', 'U2'], at: '2026-01-02T00:00:00.000Z' },
    ];
    expect(proposalDetailsOf({ approvedOverrides: entries, lastAttemptedAt: '2026-01-01T12:00:00.000Z' })).toEqual({
      proposalId: 'p-new',
      proposedBy: 'helmcrew',
      approvers: ['U1', 'U2'],
    });
    expect(proposalDetailsOf({ approvedOverrides: entries, lastAttemptedAt: '2026-01-03T00:00:00.000Z' })).toEqual({});
  });

  it('a retry after a failed upgrade names the proposer and approvers again: the changes since the last release that succeeded', () => {
    const entries: ApprovedOverrideStatus[] = [
      { valuesPath: 'a', value: '1', proposalId: 'p-old', approvers: ['U9'], at: '2026-01-01T00:00:00.000Z' },
      { valuesPath: 'b', value: '2', proposalId: 'p-new', approvers: ['U1', 'U2'], at: '2026-01-02T00:00:00.000Z' },
    ];
    const history = (rows: Array<[string, string]>) =>
      rows.map(([status, deployedAt], i) => ({ revision: 10 - i, chartName: 'web', chartVersion: '1.0.0', valuesDigest: 'd', status, deployedAt }));
    const wanted = { proposalId: 'p-new', proposedBy: 'helmcrew', approvers: ['U1', 'U2'] };
    // The upgrade that carried p-new started on the 3rd and failed; revision 8 (the 1st, 12:00) was the last good one.
    const failed = {
      approvedOverrides: entries,
      lastAttemptedAt: '2026-01-03T00:00:00.000Z',
      lastAttemptFailed: true,
      history: history([
        ['failed', '2026-01-03T00:00:05.123456789Z'],
        ['superseded', '2026-01-01T12:00:00.000Z'],
        ['superseded', '2025-12-30T00:00:00.000Z'],
      ]),
    };
    expect(proposalDetailsOf(failed)).toEqual(wanted);
    // A remediation rolled back after the failure: that revision brought none of the changes.
    const rolledBack = {
      ...failed,
      history: history([
        ['deployed', '2026-01-03T00:01:00.000Z'],
        ['failed', '2026-01-03T00:00:05.000Z'],
        ['superseded', '2026-01-01T12:00:00.000Z'],
      ]),
    };
    expect(proposalDetailsOf(rolledBack)).toEqual(wanted);
    // Nothing ever succeeded: every change is the retry's.
    expect(proposalDetailsOf({ ...failed, history: history([['failed', '2026-01-03T00:00:05.000Z']]) })).toEqual({
      proposalId: 'p-old,p-new',
      proposedBy: 'helmcrew',
      approvers: ['U9', 'U1', 'U2'],
    });
    // Once the retry succeeded, the next upgrade names nobody again.
    expect(proposalDetailsOf({ ...failed, lastAttemptedAt: '2026-01-04T00:00:00.000Z', lastAttemptFailed: false })).toEqual({});
  });
});
