import type { SuspensionRecord } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus, RollbackRecord } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent, StateReason } from '../../api/vocabulary.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { removeCondition, setCondition } from './conditions.js';
import { markReadyAs, markReconciling, markSettled } from './kstatus.js';
import { historyFromStorage } from './release-status.js';

/**
 * Pure builders of the status written while a release is suspended, rolled back on request, or
 * resumed. `Suspended` is abnormal-true: present only while spec.suspend holds the release.
 */

export function describeSuspension(record: SuspensionRecord | undefined): string {
  if (!record) return 'Suspended by spec.suspend';
  const from = record.channel ? ` in ${record.channel}` : '';
  return `Suspended by ${record.by}${from} at ${record.at}${record.reason ? `: ${record.reason}` : ''}`;
}

export function suspendedStatus(release: HelmRelease, record: SuspensionRecord | undefined, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = setCondition(
    markSettled(release.status?.conditions),
    { type: ConditionType.Suspended, status: 'True', reason: StateReason.Suspended, message: describeSuspension(record) },
    now,
    gen,
  );
  // `null` removes a stale record in a merge patch (suspended by kubectl after a chat suspension).
  return { conditions, observedGeneration: gen, suspension: record ?? (null as unknown as undefined), lastReconciledAt: now.toISOString() };
}

/** Back to the declared spec: the suspension is over; the pass that follows reconciles the spec. */
export function resumedStatus(release: HelmRelease): HelmReleaseStatus {
  const conditions = removeCondition(release.status?.conditions, ConditionType.Suspended);
  return { conditions, suspension: null as unknown as undefined };
}

/** Written before helm starts, with the chosen revision, so a crash mid-rollback is finished, not redone differently. */
export function rollbackStartedStatus(release: HelmRelease, record: RollbackRecord, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const message = record.message;
  const mark = { reason: StateReason.RollingBack, message };
  const conditions = markReconciling(release.status?.conditions, mark, { now, generation: gen }, { status: 'Unknown', ...mark });
  return { conditions, rollback: wholeRecord({ ...record, inProgress: true }), lastAttemptedAction: 'rollback', lastAttemptedAt: now.toISOString() };
}

export function rollbackDoneStatus(
  release: HelmRelease,
  record: RollbackRecord,
  suspension: SuspensionRecord | undefined,
  history: ReleaseHistory,
  now: Date,
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const event = record.succeeded ? ReleaseEvent.RollbackSucceeded : ReleaseEvent.RollbackFailed;
  const status = record.succeeded ? 'True' : 'False';
  let conditions = setCondition(
    markSettled(release.status?.conditions),
    { type: ConditionType.Suspended, status: 'True', reason: StateReason.Suspended, message: describeSuspension(suspension) },
    now,
    gen,
  );
  conditions = setCondition(conditions, { type: ConditionType.Released, status, reason: event, message: record.message }, now, gen);
  conditions = markReadyAs(conditions, { status, reason: event, message: record.message }, { now, generation: gen });
  return {
    conditions,
    observedGeneration: gen,
    history: historyFromStorage(history),
    rollback: wholeRecord({ ...record, inProgress: false }),
    suspension: suspension ?? (null as unknown as undefined),
    lastReconciledAt: now.toISOString(),
  };
}

/** A merge patch merges nested objects; absent keys are sent as null so an older record leaves nothing behind. */
function wholeRecord(record: RollbackRecord): RollbackRecord {
  const keys = ['fromRevision', 'toRevision', 'revision'] as const;
  const cleared = Object.fromEntries(keys.filter((k) => record[k] === undefined).map((k) => [k, null]));
  return { ...record, ...cleared };
}
