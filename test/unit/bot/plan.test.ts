import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { Freeze } from '../../../src/api/freeze.js';
import { planFreeze } from '../../../src/session/plan/freeze.js';
import { planReleaseCommand } from '../../../src/session/plan/plan.js';
import { summarizeHistory, type StoredRelease } from '../../../src/core/helm-storage/release-storage.js';
import { containing, matching } from './matchers.js';

const release = (spec: Partial<HelmRelease['spec']> = {}, labels?: Record<string, string>): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', generation: 4, labels },
  spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '3.0.0' }, ...spec },
});
const stored = (revision: number, status: StoredRelease['status'], chartVersion: string, config: Record<string, unknown> = {}): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion,
  appVersion: chartVersion,
  config,
});
const history = summarizeHistory([
  stored(3, 'deployed', '3.0.0', { color: 'green' }),
  stored(2, 'superseded', '2.0.0', { color: 'blue', replicas: 2 }),
  stored(1, 'superseded', '1.0.0'),
]);

const driftedRelease = (): HelmRelease => ({
  ...release(),
  status: {
    conditions: [
      {
        type: 'Drifted',
        status: 'True',
        reason: 'DriftDetected',
        message: '1 object differs from revision 3: ConfigMap web/page (deleted)',
        lastTransitionTime: 't',
      },
    ],
  },
});

describe('the rollback plan’s object diff', () => {
  const page = (color: string, replicas: number) =>
    `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unicorn-page', namespace: 'web', labels: { 'app.kubernetes.io/version': color === 'green' ? '3.0.0' : '2.0.0' } }, data: { 'index.html': `<h1 style="color:${color}">unicorn</h1>`, replicas: String(replicas) } })}\n`;
  const withManifests = summarizeHistory([
    { ...stored(3, 'deployed', '3.0.0', { color: 'green' }), manifest: page('green', 1) },
    { ...stored(2, 'superseded', '2.0.0', { color: 'blue' }), manifest: page('blue', 2) },
  ]);

  it('says what changes back, value by value, at readable paths', () => {
    const plan = planReleaseCommand({ verb: 'rollback', release: { name: 'unicorn' } }, release(), withManifests);
    expect(plan.lines).toEqual(
      containing([
        'objects: 1 changed',
        '~ ConfigMap web/unicorn-page',
        '  data["index.html"]: <h1 style="color:green">unicorn</h1> → <h1 style="color:blue">unicorn</h1>',
        '  data.replicas: 1 → 2',
        '  metadata.labels["app.kubernetes.io/version"]: 3.0.0 → 2.0.0',
      ]),
    );
  });

  it('shows paths only when the release takes values from Secrets, which the bot cannot read to hide', () => {
    const fromSecret = release({ valuesFrom: [{ kind: 'Secret', name: 'unicorn-secrets' }] });
    const plan = planReleaseCommand({ verb: 'rollback', release: { name: 'unicorn' } }, fromSecret, withManifests);
    expect(plan.lines).toEqual(
      containing(['  data["index.html"]: changed (value not shown)', 'values not shown: this release takes values from Secrets (or SOPS)']),
    );
    expect(plan.lines.join('\n')).not.toMatch(/green|blue/);
  });
});

describe('planReleaseCommand', () => {
  it.each([
    {
      name: 'rollback to previous',
      command: { verb: 'rollback', release: { name: 'unicorn' } },
      given: release(),
      want: {
        doable: true,
        title: 'roll back web/unicorn: revision 3 → 2',
        lines: [
          'revision 3 (unicorn 3.0.0, app 3.0.0) → revision 2 (unicorn 2.0.0, app 2.0.0)',
          'values: changed color; added replicas',
          matching(/suspended so the controller does not undo it/),
        ],
      },
    },
    {
      name: 'rollback to a revision not kept',
      command: { verb: 'rollback', release: { name: 'unicorn' }, revision: 9 },
      given: release(),
      want: { doable: false, lines: [matching(/revision 9 is not in the release history/)] },
    },
    {
      name: 'suspend, with the reason shown',
      command: { verb: 'suspend', release: { name: 'unicorn' }, reason: 'db down' },
      given: release(),
      want: { doable: true, lines: containing(['reason: db down']) },
    },
    {
      name: 'suspend an already suspended release',
      command: { verb: 'suspend', release: { name: 'unicorn' } },
      given: release({ suspend: true }),
      want: { doable: false, lines: ['web/unicorn is already suspended'] },
    },
    {
      name: 'correct drift: the plan names what drifted and what is re-applied',
      command: { verb: 'correct', release: { name: 'unicorn' } },
      given: driftedRelease(),
      want: { doable: true, lines: containing(['1 object differs from revision 3: ConfigMap web/page (deleted)', matching(/revision 3's manifest again/)]) },
    },
    {
      name: 'correct a suspended release',
      command: { verb: 'correct', release: { name: 'unicorn' } },
      given: release({ suspend: true }),
      want: { doable: false },
    },
    {
      name: 'test: helm test of the deployed revision, nothing undone',
      command: { verb: 'test', release: { name: 'unicorn' } },
      given: release(),
      want: { doable: true, title: 'test web/unicorn: helm test of revision 3', lines: containing([matching(/nothing is rolled back or changed/)]) },
    },
    {
      name: 'test a suspended release',
      command: { verb: 'test', release: { name: 'unicorn' } },
      given: release({ suspend: true }),
      want: { doable: false, lines: ['web/unicorn is suspended: resume it first'] },
    },
    { name: 'resume a release that is not suspended', command: { verb: 'resume', release: { name: 'unicorn' } }, given: release(), want: { doable: false } },
    {
      name: 'upgrade to the version already declared',
      command: { verb: 'upgrade', release: { name: 'unicorn' }, version: '3.0.0' },
      given: release(),
      want: { doable: false },
    },
    {
      name: 'upgrade a suspended release says when it happens',
      command: { verb: 'upgrade', release: { name: 'unicorn' }, version: '4.0.0' },
      given: release({ suspend: true }),
      want: { doable: true, lines: containing(['the release is suspended: the controller upgrades on resume']) },
    },
    {
      name: 'upgrade an Argo CD-owned release warns',
      command: { verb: 'upgrade', release: { name: 'unicorn' }, version: '4.0.0' },
      given: release({}, { 'argocd.argoproj.io/instance': 'web' }),
      want: { warnings: [matching(/^Argo CD manages this HelmRelease/)] },
    },
    {
      name: 'suspend a Flux-owned release says so',
      command: { verb: 'suspend', release: { name: 'unicorn' } },
      given: release({}, { 'kustomize.toolkit.fluxcd.io/name': 'apps' }),
      want: { warnings: [matching(/^Flux \(kustomize-controller\) manages this HelmRelease/)] },
    },
    {
      name: 'rollback of an Argo CD-owned release says so',
      command: { verb: 'rollback', release: { name: 'unicorn' } },
      given: release({}, { 'argocd.argoproj.io/instance': 'web' }),
      want: { warnings: [matching(/^Argo CD manages this HelmRelease/)] },
    },
  ] as const)('$name', ({ command, given, want }) => {
    expect(planReleaseCommand(command as Parameters<typeof planReleaseCommand>[0], given, history)).toMatchObject(want);
  });
});

describe('planFreeze', () => {
  const NOW = new Date('2026-11-26T12:00:00Z');
  const freeze = (scope: Freeze['spec']['scope']): Freeze => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'Freeze',
    metadata: { name: 'web-1' },
    spec: { scope, reason: 'sale', setBy: 'slack:U1' },
  });
  it('says what it holds, that specs are kept, and how it ends', () => {
    expect(planFreeze(freeze({ namespaces: ['web'] }), [release({ suspend: true })], [], NOW)).toMatchObject({
      doable: true,
      title: 'freeze namespace web (web-1)',
      lines: [
        matching(/^creates Freeze web-1: the controller runs no helm action/),
        'covers 1 release now: web/unicorn',
        matching(/^specs are kept/),
        'until lifted: /release unfreeze web-1',
        'reason: sale',
      ],
      warnings: [],
    });
  });
  it('a freeze over GitOps-owned releases says the syncs cannot undo it', () => {
    const owned = release({}, { 'kustomize.toolkit.fluxcd.io/name': 'apps' });
    expect(planFreeze(freeze({ all: true }), [owned], [], NOW).warnings).toEqual([
      matching(/^1 of these is managed by Flux \(kustomize-controller\): the freeze is its own object/),
    ]);
  });
  it('a windowed freeze says when it opens next, for how long, and what the channel hears', () => {
    const windowed: Freeze = {
      ...freeze({ namespaces: ['prod'] }),
      metadata: { name: 'prod-1', annotations: { 'helmcrew.dev/window-warning': '30m' } },
      spec: { scope: { namespaces: ['prod'] }, reason: 'weekend', windows: [{ schedule: '0 18 * * FRI', duration: '64h' }] },
    };
    // NOW is a Thursday: the next Friday 18:00 UTC.
    expect(planFreeze(windowed, [], [], NOW).lines).toEqual(
      expect.arrayContaining([
        `holds only while a window is open: "0 18 * * FRI" (UTC) for 64h each; next opens 2026-11-27T18:00:00.000Z`,
        'the channel is told 30m before each window opens, and when each closes, with what it held',
        matching(/applied when the window closes$/),
      ]),
    );
  });
  it('a window whose schedule cannot be computed cannot be confirmed, and says why', () => {
    const bad: Freeze = {
      ...freeze({ namespaces: ['prod'] }),
      spec: { scope: { namespaces: ['prod'] }, reason: 'x', windows: [{ schedule: '0 18 * * FUNDAY', duration: '1h' }] },
    };
    expect(planFreeze(bad, [], [], NOW)).toMatchObject({ doable: false, lines: [matching(/^window "0 18 \* \* FUNDAY" \(UTC\): .*write a cron like/)] });
  });
  it('an unknown Team is warned about', () => {
    expect(planFreeze(freeze({ teams: ['ghosts'] }), [release()], [], NOW).warnings).toEqual([
      'no Team named ghosts: this freeze holds nothing until one exists',
    ]);
  });
});
