import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import {
  decideAfterFailure,
  failureIsFinal,
  remediationBackoffMs,
  remediationPolicy,
  type FailureFacts,
  type RemediationPolicy,
} from '../../src/controller/reconcile/decide/remediation-decision.js';
import { determineReleaseState, nextAction } from '../../src/controller/reconcile/decide/release-state.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { testedAction } from '../../src/controller/reconcile/decide/test-decision.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { ValuesDigester } from '../../src/core/release/values-digest.js';

const digester = new ValuesDigester(Buffer.alloc(32, 7));
const valuesDigest = (values: Record<string, unknown>) => digester.digest(values);

const stored = (revision: number, status: StoredRelease['status'], chartVersion: string): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion,
  config: {},
});
const now = new Date('2026-11-22T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const rollback0: RemediationPolicy = { retries: 0, strategy: 'rollback', remediateLastFailure: true };
const rollback2: RemediationPolicy = { retries: 2, strategy: 'rollback', remediateLastFailure: true };
const none: RemediationPolicy = { retries: 0, strategy: 'rollback', remediateLastFailure: false };
const failedUpgrade = summarizeHistory([stored(4, 'failed', '4.0.0'), stored(3, 'deployed', '3.0.0'), stored(2, 'superseded', '2.0.0')]);
const rolledBack = summarizeHistory([stored(5, 'deployed', '3.0.0'), stored(4, 'failed', '4.0.0'), stored(3, 'superseded', '3.0.0')]);
const testFailed = summarizeHistory([stored(4, 'deployed', '4.0.0'), stored(3, 'superseded', '3.0.0')]);

const facts = (over: Partial<FailureFacts>): FailureFacts => ({
  failed: 'upgrade',
  failures: 1,
  policy: rollback0,
  history: failedUpgrade,
  latestIsFailedAttempt: true,
  attemptedAt: ago(1000),
  now,
  ...over,
});

describe('remediationPolicy', () => {
  it.each([
    { name: 'nothing declared: report only', spec: {}, failed: 'upgrade' as const, want: none },
    { name: 'upgrade block, retries 0', spec: { upgrade: { remediation: { retries: 0 } } }, failed: 'upgrade' as const, want: rollback0 },
    {
      name: 'upgrade uninstall strategy',
      spec: { upgrade: { remediation: { retries: 1, strategy: 'uninstall' as const } } },
      failed: 'upgrade' as const,
      want: { retries: 1, strategy: 'uninstall', remediateLastFailure: true },
    },
    {
      name: 'remediateLastFailure off',
      spec: { upgrade: { remediation: { retries: 3, remediateLastFailure: false } } },
      failed: 'upgrade' as const,
      want: { retries: 3, strategy: 'rollback', remediateLastFailure: false },
    },
    {
      name: 'install always uninstalls',
      spec: { install: { remediation: { retries: 2 } } },
      failed: 'install' as const,
      want: { retries: 2, strategy: 'uninstall', remediateLastFailure: true },
    },
    {
      name: 'an upgrade block does not apply to installs',
      spec: { upgrade: { remediation: { retries: 2 } } },
      failed: 'install' as const,
      want: { retries: 0, strategy: 'uninstall', remediateLastFailure: false },
    },
  ])('$name', ({ spec, failed, want }) => {
    expect(remediationPolicy({ chart: { repository: 'https://x.test', name: 'unicorn' }, ...spec }, failed)).toEqual(want);
  });
});

describe('decideAfterFailure', () => {
  it.each([
    { name: 'no remediation declared: give up at once', given: facts({ policy: none }), want: { kind: 'give-up', reason: 'no-remediation' } },
    { name: 'retries 0, rollback: roll back the last failure', given: facts({}), want: { kind: 'rollback', from: 4, to: 3 } },
    {
      name: 'rolled back, retries 0: give up',
      given: facts({ history: rolledBack, latestIsFailedAttempt: false, remediation: { succeeded: true, at: ago(10) } }),
      want: { kind: 'give-up', reason: 'retries-exhausted' },
    },
    {
      name: 'rollback finished but its status was lost (crash): not done twice',
      given: facts({ history: rolledBack, latestIsFailedAttempt: false }),
      want: { kind: 'give-up', reason: 'retries-exhausted' },
    },
    {
      name: 'rollback itself failed: give up',
      given: facts({ remediation: { succeeded: false, at: ago(10) } }),
      want: { kind: 'give-up', reason: 'remediation-failed' },
    },
    { name: 'retries 2, first failure: roll back', given: facts({ policy: rollback2 }), want: { kind: 'rollback', from: 4, to: 3 } },
    {
      name: 'retries 2, rolled back 1 s ago: back off (2 s)',
      given: facts({ policy: rollback2, history: rolledBack, latestIsFailedAttempt: false, remediation: { succeeded: true, at: ago(1000) } }),
      want: { kind: 'back-off', retryInMs: 1000 },
    },
    {
      name: 'retries 2, rolled back 3 s ago: retry',
      given: facts({ policy: rollback2, history: rolledBack, latestIsFailedAttempt: false, remediation: { succeeded: true, at: ago(3000) } }),
      want: { kind: 'retry' },
    },
    {
      name: 'retries 2, second failure backs off 4 s',
      given: facts({ policy: rollback2, failures: 2, history: rolledBack, latestIsFailedAttempt: false, remediation: { succeeded: true, at: ago(3000) } }),
      want: { kind: 'back-off', retryInMs: 1000 },
    },
    {
      name: 'retries 2, third failure: last rollback, then give up',
      given: facts({ policy: rollback2, failures: 3 }),
      want: { kind: 'rollback', from: 4, to: 3 },
    },
    {
      name: 'retries 2, third failure, remediateLastFailure off: give up, failed revision left',
      given: facts({ policy: { ...rollback2, remediateLastFailure: false }, failures: 3 }),
      want: { kind: 'give-up', reason: 'retries-exhausted' },
    },
    {
      name: 'unlimited retries (-1), failure 50: still retries',
      given: facts({
        policy: { ...rollback2, retries: -1 },
        failures: 50,
        history: rolledBack,
        latestIsFailedAttempt: false,
        remediation: { succeeded: true, at: ago(600_000) },
      }),
      want: { kind: 'retry' },
    },
    {
      name: 'test failed after an upgrade: roll back the deployed revision to the superseded one',
      given: facts({ history: testFailed }),
      want: { kind: 'rollback', from: 4, to: 3 },
    },
    {
      name: 'nothing deployed before: nothing to roll back to',
      given: facts({ history: summarizeHistory([stored(1, 'failed', '4.0.0')]) }),
      want: { kind: 'give-up', reason: 'nothing-to-roll-back-to' },
    },
    { name: 'uninstall strategy', given: facts({ policy: { ...rollback0, strategy: 'uninstall' } }), want: { kind: 'uninstall' } },
    {
      name: 'install failure, retries 2: uninstall',
      given: facts({
        failed: 'install',
        policy: { retries: 2, strategy: 'uninstall', remediateLastFailure: true },
        history: summarizeHistory([stored(1, 'failed', '4.0.0')]),
      }),
      want: { kind: 'uninstall' },
    },
    {
      name: 'install uninstalled, no time recorded: retry',
      given: facts({
        failed: 'install',
        policy: { retries: 2, strategy: 'uninstall', remediateLastFailure: true },
        history: summarizeHistory([]),
        latestIsFailedAttempt: false,
        attemptedAt: undefined,
      }),
      want: { kind: 'retry' },
    },
  ])('$name', ({ given, want }) => {
    const decision = decideAfterFailure(given);
    const summary = decision.kind === 'rollback' ? { kind: 'rollback', from: decision.from.revision, to: decision.to.revision } : decision;
    expect(summary).toEqual(want);
  });

  it.each([
    { failures: 1, want: 2000 },
    { failures: 2, want: 4000 },
    { failures: 3, want: 8000 },
    { failures: 20, want: 300_000 },
  ])('backoff after $failures failures: $want ms', ({ failures, want }) => {
    expect(remediationBackoffMs(failures)).toBe(want);
  });

  it.each([
    { policy: none, failures: 1, want: true },
    { policy: rollback0, failures: 1, want: false },
    { policy: { ...rollback2, remediateLastFailure: false }, failures: 2, want: false },
    { policy: { ...rollback2, remediateLastFailure: false }, failures: 3, want: true },
  ])('failureIsFinal($policy, $failures) = $want', ({ policy, failures, want }) => {
    expect(failureIsFinal(policy, failures)).toBe(want);
  });
});

describe('determineReleaseState after a failed attempt of the current spec', () => {
  const desired: DesiredRelease = { chartName: 'unicorn', chartVersion: '4.0.0', values: {}, valuesDigest: valuesDigest({}), secrets: new SecretValues() };
  const release = (spec: Partial<HelmRelease['spec']>, status: HelmRelease['status']): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'unicorn', namespace: 'web', generation: 5, finalizers: [FINALIZER] },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '4.0.0' }, ...spec },
    status: {
      lastAttemptFailed: true,
      lastAttemptedGeneration: 5,
      lastAttemptedChartVersion: '4.0.0',
      lastAttemptedValuesDigest: desired.valuesDigest,
      lastAttemptedAction: 'upgrade',
      lastAttemptedAt: ago(5000),
      upgradeFailures: 1,
      ...status,
    },
  });
  const remediated = (failure: number, at = ago(100)) => ({
    lastRemediation: { action: 'rollback' as const, succeeded: true, failure, failedAction: 'upgrade' as const, generation: 5, message: 'm', at },
  });
  const clock = { now, timeoutSeconds: 300 };
  const rollbackRetries = (retries: number) => ({ upgrade: { remediation: { retries, strategy: 'rollback' as const } } });

  it.each([
    { name: 'no remediation: report (stalled)', spec: {}, status: {}, history: failedUpgrade, want: ['failed-unchanged', 'report-failure'] },
    { name: 'rollback wanted', spec: rollbackRetries(0), status: {}, history: failedUpgrade, want: ['failed-needs-rollback', 'remediate-rollback'] },
    {
      name: 'rolled back, no retries: stalled',
      spec: rollbackRetries(0),
      status: remediated(1),
      history: rolledBack,
      want: ['failed-unchanged', 'report-failure'],
    },
    {
      name: 'rolled back, a retry left, just now: wait',
      spec: rollbackRetries(1),
      status: remediated(1),
      history: rolledBack,
      want: ['failed-backing-off', 'wait-for-retry'],
    },
    {
      name: 'rolled back, a retry left, backoff over: upgrade again',
      spec: rollbackRetries(1),
      status: remediated(1, ago(10_000)),
      history: rolledBack,
      want: ['out-of-sync', 'upgrade'],
    },
    {
      name: 'remediation of an earlier generation does not count',
      spec: rollbackRetries(0),
      status: { lastRemediation: { ...remediated(1).lastRemediation, generation: 4 } },
      history: failedUpgrade,
      want: ['failed-needs-rollback', 'remediate-rollback'],
    },
    {
      name: 'install failed, retries left: uninstall',
      spec: { install: { remediation: { retries: 1 } } },
      status: { lastAttemptedAction: 'install', installFailures: 1 },
      history: summarizeHistory([stored(1, 'failed', '4.0.0')]),
      want: ['failed-needs-uninstall', 'remediate-uninstall'],
    },
    {
      name: 'install uninstalled, backoff over: install again',
      spec: { install: { remediation: { retries: 1 } } },
      status: {
        lastAttemptedAction: 'install',
        installFailures: 1,
        lastRemediation: { ...remediated(1, ago(10_000)).lastRemediation, action: 'uninstall' as const, failedAction: 'install' as const },
      },
      history: summarizeHistory([]),
      want: ['not-installed', 'install'],
    },
    {
      name: 'a rollback killed half-way (its revision unlocked as failed): roll back again',
      spec: rollbackRetries(0),
      status: {},
      history: summarizeHistory([stored(5, 'failed', '3.0.0'), stored(4, 'failed', '4.0.0'), stored(3, 'deployed', '3.0.0')]),
      want: ['failed-needs-rollback', 'remediate-rollback'],
    },
    {
      name: 'a pending record still comes first',
      spec: rollbackRetries(0),
      status: {},
      history: summarizeHistory([{ ...stored(5, 'pending-rollback', '3.0.0'), lastDeployed: ago(1000) }, stored(4, 'failed', '4.0.0')]),
      want: ['locked', 'wait-for-lock'],
    },
  ])('$name → $want', ({ spec, status, history, want }) => {
    const state = determineReleaseState(release(spec, status), desired, history, clock);
    expect([state.kind, nextAction(state).kind]).toEqual(want);
  });
});

describe('helm test decisions', () => {
  const desired: DesiredRelease = { chartName: 'unicorn', chartVersion: '3.0.0', values: {}, valuesDigest: valuesDigest({}), secrets: new SecretValues() };
  const clock = { now, timeoutSeconds: 300 };
  const base = (test: HelmRelease['spec']['test'], status: HelmRelease['status'] = {}): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'unicorn', namespace: 'web', generation: 2, finalizers: [FINALIZER] },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '3.0.0' }, test },
    status,
  });
  const deployed2 = summarizeHistory([stored(2, 'deployed', '3.0.0'), stored(1, 'superseded', '2.0.0')]);
  const lastTest = (revision: number, succeeded = true) => ({ lastTest: { revision, succeeded, message: 'm', at: ago(10) } });

  it.each([
    { name: 'tests off', test: undefined, status: {}, want: ['in-sync', 'report-ready'] },
    { name: 'tests on, revision 2 never tested', test: { enable: true }, status: {}, want: ['untested', 'test'] },
    { name: 'tests on, revision 1 tested: 2 is not', test: { enable: true }, status: lastTest(1), want: ['untested', 'test'] },
    { name: 'tests on, revision 2 tested', test: { enable: true }, status: lastTest(2), want: ['in-sync', 'report-ready'] },
    {
      name: 'revision 2 failed its test, ignored',
      test: { enable: true, ignoreFailures: true },
      status: lastTest(2, false),
      want: ['in-sync', 'report-ready'],
    },
  ])('$name → $want', ({ test, status, want }) => {
    const state = determineReleaseState(base(test, status), desired, deployed2, clock);
    expect([state.kind, nextAction(state).kind]).toEqual(want);
  });

  /** `/release test`: helmcrew.dev/test-request, handled once (status.lastTest.requestId), tests on or off. */
  it.each([
    { name: 'asked for, tests off', test: undefined, status: {}, want: { kind: 'test', scheduled: false, requestId: 'ts-1' } },
    { name: 'asked for, revision tested already', test: { enable: true }, status: lastTest(2), want: { kind: 'test', scheduled: false, requestId: 'ts-1' } },
    {
      name: 'asked for and untested: one test for both',
      test: { enable: true },
      status: lastTest(1),
      want: { kind: 'test', scheduled: true, requestId: 'ts-1' },
    },
    {
      name: 'handled already',
      test: undefined,
      status: { lastTest: { ...lastTest(2).lastTest, requestId: 'ts-1' } },
      want: { kind: 'report-ready' },
    },
  ])('$name → $want.kind', ({ test, status, want }) => {
    const release = base(test, status);
    release.metadata.annotations = { 'helmcrew.dev/test-request': 'ts-1' };
    expect(nextAction(determineReleaseState(release, desired, deployed2, clock))).toMatchObject(want);
  });

  it('a test asked for waits for the spec: an out-of-sync release is upgraded first', () => {
    const release = base(undefined, {});
    release.metadata.annotations = { 'helmcrew.dev/test-request': 'ts-1' };
    const state = determineReleaseState(release, { ...desired, chartVersion: '4.0.0' }, deployed2, clock);
    expect(nextAction(state).kind).toBe('upgrade');
  });

  it.each([
    {
      name: 'after an upgrade of this generation',
      status: { lastAttemptedGeneration: 2, lastAttemptedAction: 'upgrade' },
      history: deployed2,
      want: 'upgrade',
    },
    {
      name: 'after a reinstall of this generation',
      status: { lastAttemptedGeneration: 2, lastAttemptedAction: 'reinstall' },
      history: deployed2,
      want: 'install',
    },
    {
      name: 'tests just enabled, an earlier revision was deployed',
      status: { lastAttemptedGeneration: 1, lastAttemptedAction: 'install' },
      history: deployed2,
      want: 'upgrade',
    },
    { name: 'tests just enabled, first revision', status: {}, history: summarizeHistory([stored(1, 'deployed', '3.0.0')]), want: 'install' },
    {
      name: 'after a rollback on request: by history',
      status: { lastAttemptedGeneration: 2, lastAttemptedAction: 'rollback' },
      history: deployed2,
      want: 'upgrade',
    },
  ])('a failed test counts against: $name → $want', ({ status, history, want }) => {
    expect(testedAction(base({ enable: true }, status), history, history.deployed!)).toBe(want);
  });
});
