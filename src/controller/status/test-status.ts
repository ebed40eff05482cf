import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus, TestRecord } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent, StateReason } from '../../api/vocabulary.js';
import { setCondition } from './conditions.js';
import { markReady, markReconciling } from './kstatus.js';

/** Pure builders of the status around `helm test`: the TestSuccess condition and status.lastTest. */

/** Written with an install/upgrade success when tests follow, so nobody reads Ready before they ran. */
export function withTestsPending(status: HelmReleaseStatus, release: HelmRelease, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const message = 'Running helm test';
  const mark = { reason: StateReason.Testing, message };
  let conditions = markReconciling(status.conditions, mark, { now, generation: gen }, { status: 'Unknown', ...mark });
  conditions = setCondition(conditions, { type: ConditionType.TestSuccess, status: 'Unknown', ...mark }, now, gen);
  return { ...status, conditions };
}

export function testStartedStatus(release: HelmRelease, now: Date): HelmReleaseStatus {
  return { conditions: withTestsPending({ conditions: release.status?.conditions }, release, now).conditions, lastReconciledAt: now.toISOString() };
}

/**
 * Tests passed, or failed with ignoreFailures, or failed when only asked for (`/release test`: a
 * check of the running release, not part of an attempt, so nothing is undone): Ready, with
 * TestSuccess saying which.
 */
export function testPassedOrIgnoredStatus(
  release: HelmRelease,
  record: TestRecord,
  now: Date,
  /** 'requested', or the field that ignores the failure (test-decision.ts testFailureIgnoredBy). */
  why = 'test.ignoreFailures',
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const event = record.succeeded ? ReleaseEvent.TestSucceeded : ReleaseEvent.TestFailed;
  const note = why === 'requested' ? 'asked for by request: nothing is undone' : `ignored: ${why}`;
  const ready = record.succeeded ? record.message : `${record.message} (${note})`;
  const conditions = markReady(release.status?.conditions, { reason: event, message: ready }, { now, generation: gen }, (list) =>
    setCondition(list, { type: ConditionType.TestSuccess, status: record.succeeded ? 'True' : 'False', reason: event, message: record.message }, now, gen),
  );
  return { conditions, observedGeneration: gen, lastTest: record, lastReconciledAt: now.toISOString() };
}

/** Added to a failure status when the failure was the test: TestSuccess=False and the record. */
export function withTestFailed(status: HelmReleaseStatus, release: HelmRelease, record: TestRecord, now: Date): HelmReleaseStatus {
  const conditions = setCondition(
    status.conditions,
    { type: ConditionType.TestSuccess, status: 'False', reason: ReleaseEvent.TestFailed, message: record.message },
    now,
    release.metadata.generation,
  );
  return { ...status, conditions, lastTest: record };
}
