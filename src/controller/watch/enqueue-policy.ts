import type { HelmRelease } from '../../api/helmrelease.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../api/duration.js';
import {
  DRIFT_CORRECTION_REQUEST_ANNOTATION,
  FORCE_AT_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  RESET_AT_ANNOTATION,
  ROLLBACK_REQUEST_ANNOTATION,
  SUSPENSION_ANNOTATION,
  TEST_REQUEST_ANNOTATION,
} from '../../api/annotations.js';
import { driftMode, slotPassed, slotPhaseMs } from '../drift/drift-schedule.js';
import { KILL_AFTER_MARGIN_SECONDS } from '../helm/kill-after.js';
import { pendingRollback } from '../../core/release/rollback-decision.js';
import { checkIntervalMs, DEFAULT_TIMEOUT, releaseKey } from '../../core/release/release-target.js';

/** The parts of an object whose change means "reconcile"; status-only updates are not among them. */
export interface SeenState {
  generation?: number;
  deleting: boolean;
  requestedAt?: string;
  /** Manual recovery (forceAt, resetAt) changes only annotations. */
  forceAt?: string;
  resetAt?: string;
  /** A rollback asked for on an already suspended release changes only annotations. */
  rollbackRequest?: string;
  suspension?: string;
  /** "Correct now" from chat changes only an annotation. */
  driftCorrectionRequest?: string;
  /** `/release test` changes only an annotation. */
  testRequest?: string;
}

export function seenState(release: HelmRelease): SeenState {
  return {
    generation: release.metadata.generation,
    deleting: !!release.metadata.deletionTimestamp,
    requestedAt: release.metadata.annotations?.[REQUESTED_AT_ANNOTATION],
    forceAt: release.metadata.annotations?.[FORCE_AT_ANNOTATION],
    resetAt: release.metadata.annotations?.[RESET_AT_ANNOTATION],
    rollbackRequest: release.metadata.annotations?.[ROLLBACK_REQUEST_ANNOTATION],
    suspension: release.metadata.annotations?.[SUSPENSION_ANNOTATION],
    driftCorrectionRequest: release.metadata.annotations?.[DRIFT_CORRECTION_REQUEST_ANNOTATION],
    testRequest: release.metadata.annotations?.[TEST_REQUEST_ANNOTATION],
  };
}

/** Pure: does this update need a reconcile? Our own status writes must not loop back. */
export function shouldEnqueueOnUpdate(previous: SeenState | undefined, next: SeenState): boolean {
  if (!previous) return true;
  return (
    previous.generation !== next.generation ||
    previous.deleting !== next.deleting ||
    previous.requestedAt !== next.requestedAt ||
    previous.forceAt !== next.forceAt ||
    previous.resetAt !== next.resetAt ||
    previous.rollbackRequest !== next.rollbackRequest ||
    previous.suspension !== next.suspension ||
    previous.driftCorrectionRequest !== next.driftCorrectionRequest ||
    previous.testRequest !== next.testRequest
  );
}

/**
 * Pure: is this release due for its periodic check (drift, range resolution, retries), given when
 * it was last checked (the check ledger; status.lastReconciledAt for the last written one)? A spec
 * the controller has not finished with is always due: Redis holds work, not truth, so a job lost
 * with a wiped or failed-over Redis is made again from what the API server says.
 */
export function dueForResync(release: HelmRelease, now: number, lastCheckedMs?: number, killMarginMs = KILL_AFTER_MARGIN_SECONDS * 1000): boolean {
  if (release.metadata.deletionTimestamp) return true;
  // Suspended releases are left alone, except for a rollback asked for and not done yet
  // (a job lost with a wiped Redis is made again).
  if (release.spec?.suspend) return pendingRollback(release) !== undefined;
  if (release.status?.observedGeneration !== release.metadata.generation) return !inFlight(release, now, killMarginMs);
  // A quiet check is not written to status, only to the check ledger: the later of the two counts.
  const written = release.status?.lastReconciledAt ? Date.parse(release.status.lastReconciledAt) : NaN;
  const last = Math.max(Number.isNaN(written) ? -Infinity : written, lastCheckedMs ?? -Infinity);
  if (last === -Infinity) return true;
  let intervalMs: number;
  try {
    intervalMs = checkIntervalMs(release.spec ?? {});
  } catch {
    return false;
  }
  // A check that looks for drift reads every object of the release: spread over the interval (drift-schedule.ts).
  if (driftMode(release.spec) !== 'disabled')
    return slotPassed(last, now, intervalMs, slotPhaseMs(releaseKey(release.metadata.namespace, release.metadata.name), intervalMs));
  return now - last >= intervalMs;
}

/**
 * A helm operation for this very generation started recently enough that it may still be
 * running: enqueuing it again would only add a redundant pass after it. One older than its
 * timeout plus the margin after which helm is killed (kill-after.ts) has lost its worker and is due again.
 */
export function inFlight(release: HelmRelease, now: number, killMarginMs = KILL_AFTER_MARGIN_SECONDS * 1000): boolean {
  const status = release.status;
  if (!status) return false;
  const reconciling = status.conditions?.find((c) => c.type === 'Reconciling');
  if (reconciling?.status !== 'True' || status.lastAttemptedGeneration !== release.metadata.generation || !status.lastAttemptedAt) return false;
  let timeoutMs: number;
  try {
    timeoutMs = clampDuration(parseDuration(release.spec?.timeout ?? DEFAULT_TIMEOUT), DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout);
  } catch {
    return false;
  }
  return now - Date.parse(status.lastAttemptedAt) < timeoutMs + killMarginMs;
}
