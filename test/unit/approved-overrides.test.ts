import { describe, expect, it } from 'vitest';
import { overlayApprovedOverrides } from '../../src/controller/reconcile/desired/approved-overrides.js';

describe('overlayApprovedOverrides', () => {
  const declared = { image: { repository: 'shop/web', tag: '1.4.2' }, replicas: 2 };

  it('puts an approved tag in place while the declared value is still the one it replaced', () => {
    const { values, outcomes } = overlayApprovedOverrides(declared, [{ valuesPath: 'image.tag', value: '1.5.0', declared: '1.4.2' }]);
    expect(values).toEqual({ image: { repository: 'shop/web', tag: '1.5.0' }, replicas: 2 });
    expect(outcomes.map((o) => o.kind)).toEqual(['in-effect']);
    expect(declared.image.tag).toBe('1.4.2');
  });

  it('gives way when the declared spec sets another value there later', () => {
    const changed = { image: { repository: 'shop/web', tag: '1.6.0' } };
    const { values, outcomes } = overlayApprovedOverrides(changed, [{ valuesPath: 'image.tag', value: '1.5.0', declared: '1.4.2' }]);
    expect(values).toBe(changed);
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'gave-way', declaredNow: '1.6.0' })]);
  });

  it('a path the chart defaults (nothing declared) stays overridden until something is declared', () => {
    const { values } = overlayApprovedOverrides({}, [{ valuesPath: 'image.digest', value: 'sha256:ab' }]);
    expect(values).toEqual({ image: { digest: 'sha256:ab' } });
    const later = overlayApprovedOverrides({ image: { digest: 'sha256:cd' } }, [{ valuesPath: 'image.digest', value: 'sha256:ab' }]);
    expect(later.outcomes[0]!.kind).toBe('gave-way');
  });

  it('names a path that cannot be parsed, and leaves the values alone', () => {
    const { values, outcomes } = overlayApprovedOverrides(declared, [{ valuesPath: 'image..tag', value: '1.5.0', declared: '1.4.2' }]);
    expect(values).toBe(declared);
    expect(outcomes[0]).toMatchObject({ kind: 'invalid', why: 'valuesPath "image..tag" has an empty key' });
  });

  it('lists and escaped dots work as in valuesFrom targetPath', () => {
    const list = { containers: [{ image: 'a:1' }] };
    const { values } = overlayApprovedOverrides(list, [{ valuesPath: 'containers[0].image', value: 'a:2', declared: 'a:1' }]);
    expect(values).toEqual({ containers: [{ image: 'a:2' }] });
  });
});
