import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { decideAfterFailure, failureIsFinal, remediationPolicy } from '../../src/controller/reconcile/decide/remediation-decision.js';

const stored = (revision: number, status: StoredRelease['status']): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion: `${revision}.0.0`,
  config: {},
});
const chart = { repository: 'https://charts.example.org', name: 'unicorn' };
const now = new Date('2026-11-25T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const failedUpgrade = summarizeHistory([stored(4, 'failed'), stored(3, 'deployed')]);

/** Issue 24: strategy RetryOnFailure retries every retryInterval, never rolling back or uninstalling. */
describe('strategy RetryOnFailure', () => {
  const retrying = (spec: Partial<HelmReleaseSpec>, failures: number, attemptedMsAgo: number) => {
    const policy = remediationPolicy({ chart, ...spec }, 'upgrade');
    return decideAfterFailure({
      failed: 'upgrade',
      failures,
      policy,
      history: failedUpgrade,
      latestIsFailedAttempt: true,
      attemptedAt: ago(attemptedMsAgo),
      now,
    });
  };

  it.each([
    {
      name: 'waits retryInterval after the failed attempt',
      spec: { upgrade: { strategy: { name: 'RetryOnFailure' as const, retryInterval: '30s' } } },
      failures: 1,
      ago: 10_000,
      want: { kind: 'back-off', retryInMs: 20_000 },
    },
    {
      name: 'then tries again, with no rollback first',
      spec: { upgrade: { strategy: { name: 'RetryOnFailure' as const, retryInterval: '30s' } } },
      failures: 1,
      ago: 30_000,
      want: { kind: 'retry' },
    },
    {
      name: 'the remediation block does not apply',
      spec: { upgrade: { strategy: { name: 'RetryOnFailure' as const, retryInterval: '30s' }, remediation: { retries: 1, strategy: 'rollback' as const } } },
      failures: 7,
      ago: 31_000,
      want: { kind: 'retry' },
    },
    {
      name: 'retryInterval defaults to 5m, as in Flux',
      spec: { upgrade: { strategy: { name: 'RetryOnFailure' as const } } },
      failures: 1,
      ago: 60_000,
      want: { kind: 'back-off', retryInMs: 240_000 },
    },
    {
      name: 'RemediateOnFailure is the remediation block as before (rollback)',
      spec: { upgrade: { strategy: { name: 'RemediateOnFailure' as const }, remediation: { retries: 1 } } },
      failures: 1,
      ago: 60_000,
      want: { kind: 'rollback' },
    },
  ])('$name', ({ spec, failures, ago: msAgo, want }) => {
    expect(retrying(spec, failures, msAgo)).toMatchObject(want);
  });

  it('a failure is never final under RetryOnFailure; install has its own strategy', () => {
    const spec: HelmReleaseSpec = { chart, upgrade: { strategy: { name: 'RetryOnFailure' } } };
    expect(failureIsFinal(remediationPolicy(spec, 'upgrade'), 100)).toBe(false);
    expect(failureIsFinal(remediationPolicy(spec, 'install'), 1)).toBe(true);
    expect(remediationPolicy({ chart, install: { strategy: { name: 'RetryOnFailure', retryInterval: '10s' } } }, 'install').retryIntervalMs).toBe(10_000);
  });
});
