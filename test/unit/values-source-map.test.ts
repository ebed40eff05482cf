import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { releasesUsingValuesSource, valuesSourceChanged } from '../../src/controller/watch/values-source-map.js';

const hr = (namespace: string, name: string, valuesFrom: HelmRelease['spec']['valuesFrom']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace },
  spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, valuesFrom },
});

describe('valuesFrom sources map back to their HelmReleases', () => {
  const releases = [
    hr('web', 'a', [{ kind: 'ConfigMap', name: 'shared' }]),
    hr('web', 'b', [
      { kind: 'Secret', name: 'shared' },
      { kind: 'ConfigMap', name: 'b-values' },
    ]),
    hr('other', 'c', [{ kind: 'ConfigMap', name: 'shared' }]),
    hr('web', 'd', undefined),
    {
      ...hr('web', 'e', undefined),
      spec: { chart: { repository: 'oci://r.test/c', name: 'unicorn', secretRef: { name: 'login' }, certSecretRef: { name: 'ca' } } },
    },
    {
      ...hr('web', 'f', undefined),
      spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, decryption: { provider: 'sops' as const, secretRef: { name: 'sops-age' } } },
    },
    {
      ...hr('web', 'g', undefined),
      spec: { chart: { repository: 'https://x.test', name: 'unicorn', verify: { provider: 'pgp' as const, secretRef: { name: 'chart-keys' } } } },
    },
    {
      ...hr('web', 'h', undefined),
      spec: { chart: { name: 'unicorn', git: { url: 'https://g.test/c.git', verify: { secretRef: { name: 'git-keys' } } } } },
    },
  ];
  it.each([
    { kind: 'ConfigMap' as const, namespace: 'web', name: 'shared', want: ['web/a'] },
    { kind: 'Secret' as const, namespace: 'web', name: 'shared', want: ['web/b'] },
    { kind: 'ConfigMap' as const, namespace: 'web', name: 'b-values', want: ['web/b'] },
    { kind: 'ConfigMap' as const, namespace: 'other', name: 'shared', want: ['other/c'] },
    { kind: 'ConfigMap' as const, namespace: 'web', name: 'nobody', want: [] },
    { kind: 'Secret' as const, namespace: 'web', name: 'login', want: ['web/e'] },
    { kind: 'Secret' as const, namespace: 'web', name: 'ca', want: ['web/e'] },
    { kind: 'ConfigMap' as const, namespace: 'web', name: 'login', want: [] },
    { kind: 'Secret' as const, namespace: 'other', name: 'login', want: [] },
    { kind: 'Secret' as const, namespace: 'web', name: 'sops-age', want: ['web/f'] },
    { kind: 'Secret' as const, namespace: 'web', name: 'chart-keys', want: ['web/g'] },
    { kind: 'Secret' as const, namespace: 'web', name: 'git-keys', want: ['web/h'] },
    { kind: 'ConfigMap' as const, namespace: 'web', name: 'sops-age', want: [] },
  ])('$kind $namespace/$name → $want', ({ kind, namespace, name, want }) => {
    expect(releasesUsingValuesSource(kind, namespace, name, releases)).toEqual(want);
  });

  it.each([
    { event: 'add' as const, synced: false, before: undefined, now: '1', want: false },
    { event: 'add' as const, synced: true, before: undefined, now: '1', want: true },
    { event: 'update' as const, synced: true, before: '1', now: '1', want: false },
    { event: 'update' as const, synced: true, before: '1', now: '2', want: true },
    { event: 'delete' as const, synced: true, before: '2', now: '2', want: true },
  ])('$event (synced $synced, $before → $now) → $want', ({ event, synced, before, now, want }) => {
    expect(valuesSourceChanged(event, synced, before, now)).toBe(want);
  });
});
