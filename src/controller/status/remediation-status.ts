import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus, RemediationRecord } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent, StateReason } from '../../api/vocabulary.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { FailedAction } from '../../core/release/failed-action.js';
import { findCondition, setCondition } from './conditions.js';
import { markReconciling, markStalled, markWaiting } from './kstatus.js';
import { historyFromStorage } from './release-status.js';

/**
 * Pure builders of the status written while a failed release is remediated, waits for its next
 * try, or is given up on. Remediated is True after a successful rollback/uninstall, False when
 * that failed; Stalled (abnormal-true) only once nothing more will be tried.
 */

export function failureEvent(failed: FailedAction): ReleaseEvent {
  return failed === 'install' ? ReleaseEvent.InstallFailed : ReleaseEvent.UpgradeFailed;
}

/** Written before helm starts, so a crash mid-remediation leaves a trace. */
export function remediationStartedStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const mark = { reason: StateReason.Remediating, message };
  const conditions = markReconciling(release.status?.conditions, mark, { now, generation: gen }, { status: 'Unknown', ...mark });
  return { conditions, lastReconciledAt: now.toISOString() };
}

export function remediationDoneStatus(
  release: HelmRelease,
  record: RemediationRecord,
  failed: FailedAction,
  history: ReleaseHistory,
  now: Date,
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const event = remediationEvent(record);
  const remediated = setCondition(
    release.status?.conditions,
    { type: ConditionType.Remediated, status: record.succeeded ? 'True' : 'False', reason: event, message: record.message },
    now,
    gen,
  );
  // The declared spec is not what runs: Ready stays False with the failure's reason; what
  // comes next (a retry or giving up) is decided in the pass that follows at once.
  const conditions = markReconciling(
    remediated,
    { reason: StateReason.Remediating, message: record.message },
    { now, generation: gen },
    { status: 'False', reason: failureEvent(failed), message: record.message },
  );
  return { conditions, observedGeneration: gen, history: historyFromStorage(history), lastRemediation: record, lastReconciledAt: now.toISOString() };
}

export function remediationEvent(record: Pick<RemediationRecord, 'action' | 'succeeded'>): ReleaseEvent {
  if (record.action === 'rollback') return record.succeeded ? ReleaseEvent.RollbackSucceeded : ReleaseEvent.RollbackFailed;
  return record.succeeded ? ReleaseEvent.UninstallSucceeded : ReleaseEvent.UninstallFailed;
}

/** Waiting for the next try of the same spec. */
export function backingOffStatus(release: HelmRelease, failed: FailedAction, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markWaiting(
    release.status?.conditions,
    { reason: StateReason.Remediating, message },
    { reason: failureEvent(failed), message },
    { now, generation: gen },
  );
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** Nothing more will be tried for this spec: a person must act (the message says what). */
export function stalledStatus(release: HelmRelease, failed: FailedAction, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markStalled(
    release.status?.conditions,
    { reason: StateReason.RetriesExceeded, message },
    { now, generation: gen },
    { reason: failureEvent(failed), message },
  );
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** Is exactly this stall already in status? Then only the check time is written, and no Event. */
export function stallRecorded(release: HelmRelease, message: string): boolean {
  const stalled = findCondition(release.status?.conditions, ConditionType.Stalled);
  const ready = findCondition(release.status?.conditions, ConditionType.Ready);
  const reconciling = findCondition(release.status?.conditions, ConditionType.Reconciling);
  return (
    stalled?.status === 'True' &&
    stalled.observedGeneration === release.metadata.generation &&
    (stalled.message === message || stalled.reason !== StateReason.RetriesExceeded) &&
    ready?.status === 'False' &&
    reconciling === undefined
  );
}
