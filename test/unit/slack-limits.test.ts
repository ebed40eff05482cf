import { describe, expect, it } from 'vitest';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { extendTimeline, isOutcomeOrError, joinsResume, resumeOperationOf, type OperationState } from '../../src/notify/providers/slack/operation-state.js';
import { renderOperationMessage } from '../../src/notify/providers/slack/render.js';

const AT = '2026-11-25T10:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(AT) + seconds * 1000).toISOString();

function notification(overrides: Partial<ReleaseNotification> = {}): ReleaseNotification {
  return {
    id: 'n1',
    operationId: 'uid-1:7:upgrade:abc',
    event: 'UpgradeStarted',
    severity: 'info',
    release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web', chart: 'unicorn', labels: {} },
    fromVersion: '2.0.0',
    toVersion: '3.0.0',
    cause: 'generation 7',
    message: 'Upgrading unicorn to 3.0.0',
    at: later(2),
    ...overrides,
  };
}

function state(overrides: Partial<OperationState> = {}): OperationState {
  return {
    operationId: 'uid-1:7:resume',
    channelRef: '#web',
    channelId: 'C1',
    ts: '1.000001',
    release: 'web/unicorn',
    timeline: [{ event: 'Resumed', severity: 'info', at: AT, count: 1 }],
    delivered: ['r1'],
    applied: 'r1',
    lastDetail: 'resumed-detail',
    updatedAt: AT,
    version: 2,
    ...overrides,
  };
}

describe('the Resumed message carries the upgrade that follows', () => {
  it.each([
    ['uid-1:7:upgrade:abc', 'uid-1:7:resume'],
    ['uid-1:7:install:k2', 'uid-1:7:resume'],
    ['uid-1:7:upgrade', 'uid-1:7:resume'],
    ['web/unicorn:3:upgrade:x', 'web/unicorn:3:resume'],
    ['uid-1:7:rollback:x', undefined],
    ['uid-1:7:resume', undefined],
    ['uid-1:7:drift', undefined],
  ])('%s follows the resume %s', (operationId, want) => expect(resumeOperationOf(operationId)).toBe(want));

  it.each([
    { name: 'right after the resume', resumed: state(), n: notification(), want: true },
    { name: 'the same upgrade again (its outcome)', resumed: state({ joined: 'uid-1:7:upgrade:abc' }), n: notification({ at: later(9) }), want: true },
    {
      name: 'a second upgrade (a retry) gets its own message',
      resumed: state({ joined: 'uid-1:7:upgrade:abc' }),
      n: notification({ operationId: 'uid-1:7:upgrade:def' }),
      want: false,
    },
    { name: 'long after the resume (a periodic upgrade of that generation)', resumed: state(), n: notification({ at: later(3600) }), want: false },
    { name: 'before the resume (clock order broken)', resumed: state(), n: notification({ at: later(-5) }), want: false },
    {
      name: 'a message that did not begin with Resumed',
      resumed: state({ timeline: [{ event: 'Suspended', severity: 'info', at: AT, count: 1 }] }),
      n: notification(),
      want: false,
    },
  ])('joins: $name → $want', ({ resumed, n, want }) => expect(joinsResume(resumed, n)).toBe(want));

  it('the message says both: "Resumed · Upgraded", with the versions and the whole timeline', () => {
    let timeline = extendTimeline([], { event: 'Resumed', severity: 'info', at: AT });
    timeline = extendTimeline(timeline, { event: 'UpgradeStarted', severity: 'info', at: later(2) });
    const done = notification({ id: 'n2', event: 'UpgradeSucceeded', at: later(6), revision: 5 });
    timeline = extendTimeline(timeline, done);
    const rendered = renderOperationMessage(done, timeline);
    expect(rendered.text).toBe('web/unicorn: Resumed · Upgraded (2.0.0 → 3.0.0)');
    expect(JSON.stringify(rendered.blocks)).toContain('*Resumed · Upgraded*');
    expect(JSON.stringify(rendered.blocks)).toMatch(/Resumed 10:00:00 → Upgrading 10:00:02 → Upgraded 10:00:06/);
    // Alone, a Resumed message is just that.
    expect(renderOperationMessage(notification({ event: 'Resumed', operationId: 'uid-1:7:resume' }), timeline.slice(0, 1)).text).toBe(
      'web/unicorn: Resumed (2.0.0 → 3.0.0)',
    );
  });
});

describe('what does not wait for the workspace’s edits', () => {
  it.each([
    { event: 'UpgradeSucceeded', severity: 'info', want: true },
    { event: 'InstallSucceeded', severity: 'info', want: true },
    { event: 'RollbackSucceeded', severity: 'info', want: true },
    { event: 'UpgradeFailed', severity: 'error', want: true },
    { event: 'ChartPullFailed', severity: 'error', want: true },
    { event: 'UpgradeStarted', severity: 'info', want: false },
    { event: 'Resumed', severity: 'info', want: false },
    { event: 'DriftCorrected', severity: 'info', want: false },
  ] as const)('$event → $want', ({ event, severity, want }) => expect(isOutcomeOrError({ event: event, severity })).toBe(want));
});
