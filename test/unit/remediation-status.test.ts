import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { summarizeHistory } from '../../src/core/helm-storage/release-storage.js';
import { failedStatus } from '../../src/controller/status/release-status.js';
import { stalledStatus, stallRecorded } from '../../src/controller/status/remediation-status.js';
import { dependencyProblemRecorded, dependencyWaitedMs, dependencyWaitingStatus } from '../../src/controller/status/dependency-status.js';

const now = new Date('2026-11-22T12:00:00Z');
const release = (status: HelmRelease['status'] = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', generation: 4 },
  spec: { chart: { repository: 'https://x.test', name: 'unicorn' } },
  status,
});
const type = (status: { conditions?: Array<{ type: string }> }, t: string) => status.conditions?.find((c) => c.type === t);

describe('failure status: final or not', () => {
  it.each([
    { final: true, stalled: 'True', reconciling: undefined },
    { final: false, stalled: undefined, reconciling: 'Remediating' },
  ])('final=$final → Stalled $stalled, Reconciling $reconciling', ({ final, stalled, reconciling }) => {
    const status = failedStatus(release({ upgradeFailures: 1 }), 'UpgradeFailed', 'boom', summarizeHistory([]), now, { final, counter: 'upgrade' });
    expect((type(status, 'Stalled') as { status?: string } | undefined)?.status).toBe(stalled);
    expect((type(status, 'Reconciling') as { reason?: string } | undefined)?.reason).toBe(reconciling);
    expect(status.upgradeFailures).toBe(2);
    expect(status.installFailures).toBeUndefined();
    expect(type(status, 'Ready')).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
  });
});

describe('a stall is recorded once', () => {
  const stalled = release(stalledStatus(release(), 'upgrade', 'do this', now));
  it.each([
    { name: 'same message', given: stalled, message: 'do this', want: true },
    { name: 'another message', given: stalled, message: 'do that', want: false },
    { name: 'not stalled yet', given: release(), message: 'do this', want: false },
    { name: 'stalled for an older generation', given: { ...stalled, metadata: { ...stalled.metadata, generation: 5 } }, message: 'do this', want: false },
  ])('$name → $want', ({ given, message, want }) => {
    expect(stallRecorded(given, message)).toBe(want);
  });
});

describe('waiting on dependencies', () => {
  it('counts the wait from when it started, and records the same problem once', () => {
    const started = release(dependencyWaitingStatus(release(), 'waiting for web/a', new Date(now.getTime() - 8000)));
    expect(dependencyWaitedMs(started, now)).toBe(8000);
    expect(dependencyWaitedMs(release(), now)).toBe(0);
    expect(dependencyProblemRecorded(started, 'waiting for web/a')).toBe(true);
    expect(dependencyProblemRecorded(started, 'waiting for web/b')).toBe(false);
  });
});
