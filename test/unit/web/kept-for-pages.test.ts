import { describe, expect, it } from 'vitest';
import { keptForPages } from '../../../src/web/live/release-watch.js';

describe('keptForPages', () => {
  it('drops managedFields and the last-applied copy, keeps every other annotation and the rest', () => {
    const obj = {
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'HelmRelease',
      metadata: {
        name: 'web',
        namespace: 'shop',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"values":{"password":"x"}}}', 'helmcrew.dev/requested-at': '1' },
      },
      spec: { chart: { name: 'app' } },
    };
    expect(keptForPages(obj)).toEqual({
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'HelmRelease',
      metadata: { name: 'web', namespace: 'shop', annotations: { 'helmcrew.dev/requested-at': '1' } },
      spec: { chart: { name: 'app' } },
    });
  });

  it('an object without annotations gets none', () => {
    expect(keptForPages({ metadata: { name: 'f' } })).toEqual({ metadata: { name: 'f' } });
  });

  it('keeps an object once: one already kept is given back as it is, not walked again', () => {
    // Counts the walks: sharing strings writes every property back.
    let writes = 0;
    let spec: unknown = { chart: { name: 'app' } };
    const obj = { metadata: { name: 'g' } } as { metadata: { name: string }; spec?: unknown };
    Object.defineProperty(obj, 'spec', { enumerable: true, get: () => spec, set: (v) => ((spec = v), (writes += 1)) });
    const once = keptForPages(obj);
    expect(writes).toBe(1);
    expect(keptForPages(once)).toBe(once);
    expect(writes).toBe(1);
    // A fresh object (a watch event) is trimmed, even when equal to a kept one.
    const fresh = { metadata: { name: 'g', managedFields: [{ manager: 'kubectl' }] } };
    expect(keptForPages(fresh)).toEqual({ metadata: { name: 'g' } });
  });
});
