import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { dependantsOf } from '../../src/controller/reconcile/decide/dependency-decision.js';
import { DependantsIndex } from '../../src/controller/watch/dependants-index.js';

const hr = (name: string, deps: Array<string | { name: string; namespace: string }> = [], namespace = 'web'): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace },
  spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, dependsOn: deps.map((d) => (typeof d === 'string' ? { name: d } : d)) },
});

const key = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

function indexOf(releases: HelmRelease[]): DependantsIndex {
  const index = new DependantsIndex();
  for (const r of releases) index.set(key(r), r);
  return index;
}

describe('DependantsIndex', () => {
  it('answers as a scan of every release does, across namespaces', () => {
    const releases = [hr('b', ['a']), hr('c', ['b']), hr('d', [{ name: 'a', namespace: 'web' }], 'other'), hr('a'), hr('e', ['a', 'b'])];
    const index = indexOf(releases);
    for (const k of ['web/a', 'web/b', 'web/c', 'web/none']) expect(index.dependantsOf(k).sort()).toEqual(dependantsOf(k, releases).sort());
  });

  it('follows a changed dependsOn and a deleted release', () => {
    const index = indexOf([hr('b', ['a']), hr('c', ['a'])]);
    index.set('web/b', hr('b', ['z']));
    expect(index.dependantsOf('web/a')).toEqual(['web/c']);
    expect(index.dependantsOf('web/z')).toEqual(['web/b']);
    index.set('web/b', hr('b'));
    expect(index.dependantsOf('web/z')).toEqual([]);
    index.delete('web/c');
    expect(index.dependantsOf('web/a')).toEqual([]);
  });

  it('finds the whole chain above a key once, and stops at a cycle', () => {
    const index = indexOf([hr('x', ['y']), hr('y', ['z']), hr('z', ['x']), hr('w', ['x']), hr('other', ['elsewhere'])]);
    expect(index.chainDependantsOf('web/z').sort()).toEqual(['web/w', 'web/x', 'web/y']);
    expect(index.chainDependantsOf('web/w')).toEqual([]);
    expect(index.chainDependantsOf('web/elsewhere')).toEqual(['web/other']);
  });
});
