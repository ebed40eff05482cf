import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { pendingRecovery, recoveryHandledStatus } from '../../src/controller/reconcile/decide/manual-recovery.js';

const release = (annotations: Record<string, string>, status: HelmRelease['status'] = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', annotations },
  spec: { chart: { repository: 'https://charts.example.org', name: 'unicorn' } },
  status,
});

/** Issue 24: requestedAt, forceAt and resetAt are each handled once, recorded in status. */
describe('manual recovery requests', () => {
  it.each([
    { name: 'nothing asked', given: release({}), want: {} },
    { name: 'a new forceAt', given: release({ 'helmcrew.dev/forceAt': 'a' }), want: { forceAt: 'a' } },
    { name: 'a forceAt already handled', given: release({ 'helmcrew.dev/forceAt': 'a' }, { lastHandledForceAt: 'a' }), want: {} },
    {
      name: 'all three, one handled',
      given: release(
        { 'helmcrew.dev/requestedAt': 'r', 'helmcrew.dev/forceAt': 'f2', 'helmcrew.dev/resetAt': 'x' },
        { lastHandledForceAt: 'f1', lastHandledResetAt: 'x' },
      ),
      want: { reconcileAt: 'r', forceAt: 'f2' },
    },
  ])('$name', ({ given, want }) => {
    expect(pendingRecovery(given)).toEqual(want);
  });

  it('a reset puts every failure counter back to 0; the others only record the value', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    expect(recoveryHandledStatus(release({}), { resetAt: 'x' }, now)).toEqual({ lastHandledResetAt: 'x', failures: 0, installFailures: 0, upgradeFailures: 0 });
    expect(recoveryHandledStatus(release({}), { reconcileAt: 'r' }, now)).toEqual({ lastHandledReconcileAt: 'r' });
    const forced = recoveryHandledStatus(release({}), { forceAt: 'f' }, now);
    expect(forced.lastHandledForceAt).toBe('f');
    expect(forced.conditions).toEqual([expect.objectContaining({ type: 'Reconciling', status: 'True', message: expect.stringContaining('forceAt f') })]);
  });
});
