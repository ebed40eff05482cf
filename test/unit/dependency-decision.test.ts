import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import {
  chainDependantsOf,
  dependantsOf,
  dependantsToWake,
  dependencyRetryMs,
  evaluateDependencies,
} from '../../src/controller/reconcile/decide/dependency-decision.js';
import { isReadyAtGeneration } from '../../src/core/release/reconciled.js';
import { gatedByDependencies, type ReleaseActionName } from '../../src/controller/reconcile/decide/release-state.js';

type Ready = 'ready' | 'not-ready' | 'old-generation';
const hr = (name: string, deps: Array<string | { name: string; namespace: string }> = [], ready: Ready = 'ready', namespace = 'web'): HelmRelease => {
  const generation = 2;
  const observed = ready === 'old-generation' ? 1 : generation;
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace, generation },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, dependsOn: deps.map((d) => (typeof d === 'string' ? { name: d } : d)) },
    status: {
      observedGeneration: observed,
      conditions: [
        {
          type: 'Ready',
          status: ready === 'not-ready' ? 'False' : 'True',
          reason: 'X',
          message: '',
          lastTransitionTime: '2026-11-22T00:00:00Z',
          observedGeneration: observed,
        },
      ],
    },
  };
};
const world = (...releases: HelmRelease[]) => {
  const byKey = new Map(releases.map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r]));
  return (key: string) => byKey.get(key);
};

describe('evaluateDependencies', () => {
  it.each([
    { name: 'no dependsOn', self: hr('b'), others: [], want: { kind: 'ready' } },
    { name: 'dependency Ready at its generation', self: hr('b', ['a']), others: [hr('a')], want: { kind: 'ready' } },
    { name: 'dependency not Ready', self: hr('b', ['a']), others: [hr('a', [], 'not-ready')], want: { kind: 'waiting', notReady: ['web/a'] } },
    {
      name: 'dependency Ready for an older generation',
      self: hr('b', ['a']),
      others: [hr('a', [], 'old-generation')],
      want: { kind: 'waiting', notReady: ['web/a'] },
    },
    { name: 'another namespace', self: hr('b', [{ name: 'mesh', namespace: 'infra' }]), others: [hr('mesh', [], 'ready', 'infra')], want: { kind: 'ready' } },
    { name: 'missing', self: hr('b', ['a', 'ghost']), others: [hr('a')], want: { kind: 'missing', missing: ['web/ghost'] } },
    { name: 'depends on itself', self: hr('a', ['a']), others: [], want: { kind: 'cycle', cycle: ['web/a', 'web/a'] } },
    { name: 'two-cycle', self: hr('x', ['y']), others: [hr('y', ['x'])], want: { kind: 'cycle', cycle: ['web/x', 'web/y', 'web/x'] } },
    {
      name: 'three-cycle, seen from y',
      self: hr('y', ['z']),
      others: [hr('x', ['y']), hr('z', ['x'])],
      want: { kind: 'cycle', cycle: ['web/y', 'web/z', 'web/x', 'web/y'] },
    },
    {
      name: 'behind a cycle, not on it: waits',
      self: hr('w', ['x']),
      others: [hr('x', ['y'], 'not-ready'), hr('y', ['x'], 'not-ready')],
      want: { kind: 'waiting', notReady: ['web/x'] },
    },
    { name: 'diamond is not a cycle', self: hr('d', ['b', 'c']), others: [hr('b', ['a']), hr('c', ['a']), hr('a')], want: { kind: 'ready' } },
  ])('$name', ({ self, others, want }) => {
    expect(evaluateDependencies(self, world(self, ...others))).toEqual(want);
  });
});

describe('waking and waiting', () => {
  it('dependantsOf finds the releases naming a key, in any namespace', () => {
    const releases = [hr('b', ['a']), hr('c', ['b']), hr('d', [{ name: 'a', namespace: 'web' }], 'ready', 'other'), hr('a')];
    expect(dependantsOf('web/a', releases)).toEqual(['web/b', 'other/d']);
    expect(dependantsOf('web/c', releases)).toEqual([]);
  });

  it('chainDependantsOf finds every release whose dependsOn reaches a key, once, and stops at a cycle', () => {
    const releases = [hr('x', ['y']), hr('y', ['z']), hr('z', ['x']), hr('w', ['x']), hr('other', ['elsewhere'])];
    expect(chainDependantsOf('web/z', (k) => dependantsOf(k, releases)).sort()).toEqual(['web/w', 'web/x', 'web/y']);
    expect(chainDependantsOf('web/w', (k) => dependantsOf(k, releases))).toEqual([]);
    expect(chainDependantsOf('web/elsewhere', (k) => dependantsOf(k, releases))).toEqual(['web/other']);
  });

  it.each([
    { event: 'add' as const, specChanged: false, wasReady: undefined, ready: false, want: 'chain' },
    { event: 'add' as const, specChanged: false, wasReady: undefined, ready: true, want: 'chain' },
    { event: 'update' as const, specChanged: true, wasReady: true, ready: false, want: 'chain' },
    { event: 'update' as const, specChanged: false, wasReady: false, ready: true, want: 'direct' },
    { event: 'update' as const, specChanged: false, wasReady: undefined, ready: true, want: 'direct' },
    { event: 'update' as const, specChanged: false, wasReady: true, ready: true, want: 'none' },
    { event: 'update' as const, specChanged: false, wasReady: true, ready: false, want: 'none' },
  ])('dependantsToWake($event, spec changed $specChanged, was $wasReady, now $ready) = $want', ({ event, specChanged, wasReady, ready, want }) => {
    expect(dependantsToWake(event, specChanged, wasReady, ready)).toBe(want);
  });

  it.each([
    { waited: 0, want: 2000 },
    { waited: 4000, want: 4000 },
    { waited: 8000, want: 8000 },
    { waited: 600_000, want: 60_000 },
  ])('after waiting $waited ms, look again in $want ms', ({ waited, want }) => {
    expect(dependencyRetryMs(waited)).toBe(want);
  });

  it('isReadyAtGeneration needs both status and the condition at the current generation', () => {
    expect(isReadyAtGeneration(hr('a'))).toBe(true);
    expect(isReadyAtGeneration(hr('a', [], 'old-generation'))).toBe(false);
    expect(isReadyAtGeneration(hr('a', [], 'not-ready'))).toBe(false);
  });

  it.each<[ReleaseActionName, boolean]>([
    ['install', true],
    ['reinstall', true],
    ['upgrade', true],
    ['test', false],
    ['remediate-rollback', false],
    ['report-ready', false],
  ])('%s waits for dependencies: %s', (action, want) => {
    expect(gatedByDependencies(action)).toBe(want);
  });
});
