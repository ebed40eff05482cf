import { describe, expect, it } from 'vitest';
import { heldSpec, leaseName, leaseStep, microTime } from '../../src/controller/leader/lease-decision.js';

const at = (iso: string) => Date.parse(iso);

describe('leader election decisions', () => {
  const held = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 2 };

  it('creates a missing Lease, renews its own, follows a live holder', () => {
    expect(leaseStep(undefined, 'a', 0)).toEqual({ kind: 'create' });
    expect(leaseStep({ ...held, holderIdentity: 'a' }, 'a', at('2026-01-01T01:00:00Z'))).toEqual({ kind: 'renew' });
    expect(leaseStep(held, 'a', at('2026-01-01T00:00:14Z'))).toEqual({ kind: 'follow', holder: 'b' });
  });

  it('takes over a Lease not renewed within its duration, or handed back', () => {
    expect(leaseStep(held, 'a', at('2026-01-01T00:00:16Z'))).toEqual({ kind: 'take-over' });
    expect(leaseStep({ ...held, holderIdentity: null }, 'a', at('2026-01-01T00:00:01Z'))).toEqual({ kind: 'take-over' });
    expect(leaseStep({ holderIdentity: 'b' }, 'a', 0)).toEqual({ kind: 'take-over' });
  });

  it('writes MicroTime with six digits, counts transitions on take-over only', () => {
    const now = at('2026-01-01T00:00:20.123Z');
    expect(microTime(now)).toBe('2026-01-01T00:00:20.123000Z');
    expect(heldSpec({ kind: 'take-over' }, held, 'a', now, 15)).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:20.123000Z',
      renewTime: '2026-01-01T00:00:20.123000Z',
      leaseTransitions: 3,
    });
    expect(heldSpec({ kind: 'renew' }, { ...held, holderIdentity: 'a' }, 'a', now, 15)).toMatchObject({
      renewTime: '2026-01-01T00:00:20.123000Z',
      leaseTransitions: 2,
    });
    expect(heldSpec({ kind: 'create' }, undefined, 'a', now, 15).leaseTransitions).toBe(0);
  });

  it('names the Lease after the queue prefix, as a DNS label', () => {
    expect(leaseName('helmcrew')).toBe('helmcrew-controller-leader');
    expect(leaseName('Hc_Test.1')).toBe('hc-test-1-controller-leader');
    // A Redis Cluster hash tag (docs/redis.md): the braces become dashes, still a valid object name.
    expect(leaseName('{helmcrew}')).toBe('helmcrew--controller-leader');
    expect(leaseName('x'.repeat(80)).length).toBeLessThanOrEqual(63);
  });
});
