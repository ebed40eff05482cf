import type { DriftCorrectionRecord, HelmReleaseStatus } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent } from '../../api/vocabulary.js';
import { removeCondition, setCondition } from './conditions.js';

/**
 * Pure: the drift part of the status a quiet check writes, layered on the in-sync status. Drifted
 * is abnormal-true (like Stalled): present only while live objects differ, so a release that
 * never drifts never gets a write for it.
 */

export function withDrifted(status: HelmReleaseStatus, message: string, now: Date, generation?: number): HelmReleaseStatus {
  return {
    ...status,
    conditions: setCondition(status.conditions, { type: ConditionType.Drifted, status: 'True', reason: ReleaseEvent.DriftDetected, message }, now, generation),
  };
}

export function withoutDrifted(status: HelmReleaseStatus): HelmReleaseStatus {
  return { ...status, conditions: removeCondition(status.conditions, ConditionType.Drifted) };
}

/** After a correction: Drifted only if something could not be put back. */
export function withCorrection(status: HelmReleaseStatus, record: DriftCorrectionRecord, now: Date, generation?: number): HelmReleaseStatus {
  const next = record.succeeded ? withoutDrifted(status) : withDrifted(status, record.message, now, generation);
  return { ...next, lastDriftCorrection: record };
}
