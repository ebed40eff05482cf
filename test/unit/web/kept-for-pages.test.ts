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
});
