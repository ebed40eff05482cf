import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { indexSources } from '../../src/cli/import/flux/flux-objects.js';
import { mapFluxRelease } from '../../src/cli/import/flux/map-release.js';
import { parseFluxYaml } from '../../src/cli/import/flux/read-flux.js';
import { crdsPolicy } from '../../src/controller/crds/crd-policy.js';
import { valuesBaseFlag } from '../../src/controller/helm/helm-flags.js';
import { SPLIT_SCRIPT_FILE } from '../../src/controller/helm/post-render-split.js';
import { pluginManifest } from '../../src/controller/helm/post-renderer-plugin.js';
import { determineReleaseState, nextAction } from '../../src/controller/reconcile/decide/release-state.js';
import { testFailureIgnoredBy } from '../../src/controller/reconcile/decide/test-decision.js';
import { composeDesiredRelease } from '../../src/controller/reconcile/desired/compose-desired.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { actionOptions } from '../../src/core/release/action-options.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { postRenderDigest, postRenderOf } from '../../src/core/release/post-render.js';
import { SecretValues } from '../../src/core/release/secret-values.js';

/** Issue 34: Flux's action options that helmcrew lacked, decided purely. */

const release = (spec: Partial<HelmRelease['spec']> = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', generation: 3, finalizers: [FINALIZER] },
  spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn', version: '2.0.0' }, ...spec },
});

const stored = (config: Record<string, unknown>, chartName = 'unicorn'): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision: 1,
  status: 'deployed',
  chartName,
  chartVersion: '2.0.0',
  config,
  labels: { owner: 'helm', 'helmcrew.dev/owner-namespace': 'web', 'helmcrew.dev/owner-name': 'unicorn' },
});

const desired = (values: Record<string, unknown>, over: Partial<DesiredRelease> = {}): DesiredRelease => ({
  chartName: 'unicorn',
  chartVersion: '2.0.0',
  values,
  valuesDigest: 'digest',
  secrets: new SecretValues(),
  ...over,
});

const clock = { now: new Date('2026-11-26T12:00:00Z'), timeoutSeconds: 300 };
const decide = (hr: HelmRelease, record: StoredRelease, want: DesiredRelease) => nextAction(determineReleaseState(hr, want, summarizeHistory([record]), clock));

describe('remediation.ignoreTestFailures (install, upgrade) over test.ignoreFailures', () => {
  it.each([
    { name: 'neither set: remediated', spec: {}, tested: 'upgrade', want: undefined },
    { name: 'test.ignoreFailures', spec: { test: { ignoreFailures: true } }, tested: 'upgrade', want: 'test.ignoreFailures' },
    {
      name: 'upgrade’s own',
      spec: { upgrade: { remediation: { ignoreTestFailures: true } } },
      tested: 'upgrade',
      want: 'upgrade.remediation.ignoreTestFailures',
    },
    { name: 'upgrade’s does not cover an install', spec: { upgrade: { remediation: { ignoreTestFailures: true } } }, tested: 'install', want: undefined },
    {
      name: 'install’s own',
      spec: { install: { remediation: { ignoreTestFailures: true } } },
      tested: 'install',
      want: 'install.remediation.ignoreTestFailures',
    },
    {
      name: 'an action’s false wins over test.ignoreFailures (Flux: MustIgnoreTestFailures)',
      spec: { test: { ignoreFailures: true }, install: { remediation: { ignoreTestFailures: false } } },
      tested: 'install',
      want: undefined,
    },
  ] as const)('$name', ({ spec, tested, want }) => {
    expect(testFailureIgnoredBy(release(spec as Partial<HelmRelease['spec']>), tested)).toBe(want);
  });
});

describe('upgrade.preserveValues', () => {
  it('spells --reuse-values instead of --reset-values', () => {
    expect([valuesBaseFlag(false), valuesBaseFlag(true)]).toEqual(['--reset-values', '--reuse-values']);
    expect(actionOptions(release({ upgrade: { preserveValues: true } }).spec).upgrade.preserveValues).toBe(true);
    expect(actionOptions(release().spec).upgrade.preserveValues).toBe(false);
  });

  it('in sync when every declared value is in the release’s (values kept from before do not count); equal values otherwise', () => {
    const kept = stored({ color: 'blue', extra: { a: 1 } });
    const hr = release({ upgrade: { preserveValues: true } });
    expect(decide(hr, kept, desired({ color: 'blue' }, { preserveValues: true })).kind).toBe('report-ready');
    expect(decide(hr, kept, desired({ extra: { a: 1 } }, { preserveValues: true })).kind).toBe('report-ready');
    expect(decide(hr, kept, desired({ color: 'red' }, { preserveValues: true })).kind).toBe('upgrade');
    expect(decide(hr, kept, desired({ extra: { b: 2 } }, { preserveValues: true })).kind).toBe('upgrade');
    // Without it the kept value is a difference: --reset-values drops it.
    expect(decide(release(), kept, desired({ color: 'blue' })).kind).toBe('upgrade');
  });

  it('the desired release carries it from the spec, for every chart source', () => {
    const parts = (spec: Partial<HelmRelease['spec']>) => ({
      spec,
      source: {
        chartName: 'unicorn',
        chartVersion: '2.0.0',
        chartSource: { repository: 'https://x.test', access: { insecure: false, cacheKey: 'k' } },
        secrets: [],
      },
      composed: { values: {}, secrets: new SecretValues() },
    });
    expect(composeDesiredRelease(parts({ upgrade: { preserveValues: true } }), () => 'd').preserveValues).toBe(true);
    expect(composeDesiredRelease(parts({}), () => 'd').preserveValues).toBeUndefined();
  });
});

describe('upgrade.chartNameChangeStrategy', () => {
  const renamed = stored({ color: 'blue' }, 'unicorn-old');
  it.each([
    { strategy: undefined, want: 'upgrade' },
    { strategy: 'InPlaceUpdate', want: 'upgrade' },
    { strategy: 'Reinstall', want: 'reinstall' },
  ] as const)('chart name changed, $strategy → $want', ({ strategy, want }) => {
    const action = decide(release(strategy ? { upgrade: { chartNameChangeStrategy: strategy } } : {}), renamed, desired({ color: 'blue' }));
    expect(action.kind).toBe(want);
    if (action.kind === 'reinstall') {
      expect(action.release).toBe(renamed);
      expect(action.why).toBe('chart unicorn-old → unicorn (upgrade.chartNameChangeStrategy: Reinstall)');
    }
  });

  it('only a new chart name reinstalls: a new version or new values upgrade', () => {
    const hr = release({ upgrade: { chartNameChangeStrategy: 'Reinstall' } });
    expect(decide(hr, stored({ color: 'blue' }), desired({ color: 'red' })).kind).toBe('upgrade');
    expect(decide(hr, stored({ color: 'blue' }), desired({ color: 'blue' }, { chartVersion: '2.1.0' })).kind).toBe('upgrade');
  });
});

describe('install.skipCRDs (Flux’s deprecated spelling of crds: Skip)', () => {
  it.each([
    { spec: { install: { skipCRDs: true } }, want: 'Skip' },
    { spec: { install: { skipCRDs: false } }, want: 'Create' },
    { spec: { install: { skipCRDs: true, crds: 'CreateReplace' } }, want: 'CreateReplace' },
  ] as const)('$spec → $want', ({ spec, want }) => {
    expect(crdsPolicy('install', spec)).toBe(want);
  });
});

describe('postRenderStrategy', () => {
  const patches = { postRenderers: [{ kustomize: { images: [{ name: 'nginx', newTag: '1.27' }] } }] };
  it('kept on the post-rendering when not helm 4’s combined, so a change is an upgrade; nothing to post-render, nothing kept', () => {
    const combined = postRenderOf({ ...patches, postRenderStrategy: 'combined' });
    expect(combined).toEqual(postRenderOf(patches));
    expect(postRenderOf({ ...patches, postRenderStrategy: 'nohooks' })?.strategy).toBe('nohooks');
    expect(postRenderOf({ ...patches, postRenderStrategy: 'separate' })?.strategy).toBe('separate');
    const digests = new Set(['combined', 'nohooks', 'separate'].map((s) => postRenderDigest(postRenderOf({ ...patches, postRenderStrategy: s as 'nohooks' }))));
    expect(digests.size).toBe(3);
    expect(postRenderOf({ postRenderStrategy: 'nohooks' })).toBeUndefined();
  });

  it('combined runs the shell script; nohooks and separate the Node program that splits hooks from templates', () => {
    const shell = JSON.parse(pluginManifest('/bin/kustomize', 'layers/0')) as {
      runtimeConfig: { platformCommand: Array<{ command: string; args: string[] }> };
    };
    expect(shell.runtimeConfig.platformCommand[0]).toEqual({ command: '/bin/sh', args: ['${HELM_PLUGIN_DIR}/post-render.sh', '/bin/kustomize', 'layers/0'] });
    const split = JSON.parse(
      pluginManifest('/bin/kustomize', 'layers/0', { strategy: 'nohooks', node: '/usr/bin/node', yamlModule: '/m/yaml.js' }),
    ) as typeof shell;
    expect(split.runtimeConfig.platformCommand[0]).toEqual({
      command: '/usr/bin/node',
      args: [`\${HELM_PLUGIN_DIR}/${SPLIT_SCRIPT_FILE}`, '${HELM_PLUGIN_DIR}', '/bin/kustomize', 'layers/0', 'nohooks', '/m/yaml.js'],
    });
  });
});

describe('helmcrew import flux: the new options', () => {
  const flux = parseFluxYaml(
    `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: { name: charts, namespace: apps }
spec: { url: https://charts.example.test }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: web, namespace: apps }
spec:
  chart: { spec: { chart: web, sourceRef: { kind: HelmRepository, name: charts } } }
  postRenderStrategy: separate
  postRenderers: [{ kustomize: { images: [{ name: nginx, newTag: "1.27" }] } }]
  install: { skipCRDs: true, remediation: { ignoreTestFailures: true } }
  upgrade: { preserveValues: true, chartNameChangeStrategy: Reinstall, remediation: { ignoreTestFailures: false } }
  rollback: { recreate: true, force: true }
`,
    'flux.yaml',
  );
  const result = mapFluxRelease(
    flux.find((o) => o.kind === 'HelmRelease')!,
    indexSources(flux, 'default'),
  );

  it('carries each under its own name', () => {
    const spec = result.release!.spec;
    expect(spec.postRenderStrategy).toBe('separate');
    expect(spec.install).toEqual({ skipCRDs: true, remediation: { ignoreTestFailures: true } });
    expect(spec.upgrade).toEqual({ preserveValues: true, chartNameChangeStrategy: 'Reinstall', remediation: { ignoreTestFailures: false } });
  });

  it('reports rollback.recreate as not carried, with why (helm 4 removed it)', () => {
    expect(result.release!.spec.rollback).toEqual({ force: true });
    expect(result.notes.find((n) => n.path === 'spec.rollback.recreate')?.reason).toMatch(/helm 4 removed pod recreation/);
  });
});
