import { FORCE_AT_ANNOTATION, REQUESTED_AT_ANNOTATION, RESET_AT_ANNOTATION } from '../../../api/annotations.js';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { ConditionType, StateReason } from '../../../api/vocabulary.js';
import { setCondition } from '../../status/conditions.js';

/**
 * Manual recovery, as Flux has it: a new value in `helmcrew.dev/requestedAt` (reconcile now),
 * `forceAt` (one forced install or upgrade, also of a spec whose attempt failed) or `resetAt`
 * (the failure counters start again) is handled once, and its value recorded in status.
 * Pure: which requests are new, and the status patch that records them.
 */
export interface RecoveryRequests {
  reconcileAt?: string;
  forceAt?: string;
  resetAt?: string;
}

/** Only the values not yet recorded as handled; annotations longer than status allows are cut alike on both sides. */
export function pendingRecovery(release: HelmRelease): RecoveryRequests {
  const annotations = release.metadata.annotations ?? {};
  const status = release.status ?? {};
  const fresh = (key: string, handled: string | undefined) => {
    const value = annotations[key]?.slice(0, 100);
    return value && value !== handled ? value : undefined;
  };
  const pending: RecoveryRequests = {};
  const reconcileAt = fresh(REQUESTED_AT_ANNOTATION, status.lastHandledReconcileAt);
  const forceAt = fresh(FORCE_AT_ANNOTATION, status.lastHandledForceAt);
  const resetAt = fresh(RESET_AT_ANNOTATION, status.lastHandledResetAt);
  if (reconcileAt) pending.reconcileAt = reconcileAt;
  if (forceAt) pending.forceAt = forceAt;
  if (resetAt) pending.resetAt = resetAt;
  return pending;
}

export function hasPendingRecovery(pending: RecoveryRequests): boolean {
  return pending.reconcileAt !== undefined || pending.forceAt !== undefined || pending.resetAt !== undefined;
}

/**
 * The status patch that marks the requests handled; a reset also puts the failure counters back
 * to 0, and a force says it is reconciling (Reconciling=True) until the forced attempt reports.
 */
export function recoveryHandledStatus(release: HelmRelease, pending: RecoveryRequests, now: Date): HelmReleaseStatus {
  const forcing =
    pending.forceAt !== undefined
      ? setCondition(
          release.status?.conditions,
          {
            type: ConditionType.Reconciling,
            status: 'True',
            reason: StateReason.Progressing,
            message: `Forced install or upgrade (helmcrew.dev/forceAt ${pending.forceAt})`,
          },
          now,
          release.metadata.generation,
        )
      : undefined;
  return {
    ...(forcing ? { conditions: forcing } : {}),
    ...(pending.reconcileAt !== undefined ? { lastHandledReconcileAt: pending.reconcileAt } : {}),
    ...(pending.forceAt !== undefined ? { lastHandledForceAt: pending.forceAt } : {}),
    ...(pending.resetAt !== undefined ? { lastHandledResetAt: pending.resetAt, failures: 0, installFailures: 0, upgradeFailures: 0 } : {}),
  };
}
