import { gitRevision } from '../../core/release/chart-revision.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Condition, HelmReleaseStatus, HistoryEntry } from '../../api/helmrelease-status.js';
import { ConditionType, StateReason, type ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../core/release/release-target.js';
import { findCondition, removeCondition, setCondition } from './conditions.js';
import { markReady, markReconciling, markSettled, markStalled, markWaiting } from './kstatus.js';

/**
 * Pure builders of the status the reconciler writes at each step. Ready summarizes; Reconciling
 * and Stalled follow kstatus (abnormal-true), so they are removed when things are normal.
 */

const HISTORY_LENGTH = 10;

export function historyFromStorage(history: ReleaseHistory): HistoryEntry[] {
  return history.releases.slice(0, HISTORY_LENGTH).map((r) => ({
    revision: r.revision,
    chartName: r.chartName,
    chartVersion: r.chartVersion,
    ...(r.appVersion ? { appVersion: r.appVersion } : {}),
    valuesDigest: r.valuesDigest ?? '',
    status: r.status,
    ...(r.lastDeployed ? { deployedAt: r.lastDeployed } : {}),
  }));
}

/** Recorded before helm starts, so a crash mid-operation leaves a trace of what was attempted. */
export function attemptStartedStatus(
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  action: 'install' | 'upgrade' | 'reinstall',
  now: Date,
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const reason = action === 'upgrade' ? StateReason.Upgrading : StateReason.Installing;
  const revision = gitRevision(desired.chartVersion, desired.chartDigest);
  const message = `${action === 'upgrade' ? 'Upgrading' : 'Installing'} ${desired.chartName}@${revision ?? desired.chartVersion}`;
  const conditions = markReconciling(
    release.status?.conditions,
    { reason, message },
    { now, generation: gen },
    {
      status: 'Unknown',
      reason: StateReason.Progressing,
      message,
    },
  );
  // A new spec (generation, chart or values) starts its failure count again; a retry keeps it.
  const sameSpec = sameAttempt(release, desired);
  return {
    conditions,
    installFailures: sameSpec ? (release.status?.installFailures ?? 0) : 0,
    upgradeFailures: sameSpec ? (release.status?.upgradeFailures ?? 0) : 0,
    lastAttemptedGeneration: gen,
    lastAttemptedChartVersion: desired.chartVersion,
    ...(desired.chartDigest ? { lastAttemptedChartDigest: desired.chartDigest } : {}),
    ...(revision ? { lastAttemptedRevision: revision } : {}),
    // `null` clears an earlier attempt's signer in the merge patch: an unverified chart says nothing.
    lastAttemptedChartVerification:
      desired.signedBy && desired.chartDigest
        ? { provider: 'cosign', digest: desired.chartDigest, signedBy: desired.signedBy }
        : (null as unknown as undefined),
    lastAttemptedValuesDigest: desired.valuesDigest,
    lastAttemptedAction: action,
    lastAttemptedAt: now.toISOString(),
    lastAttemptFailed: false,
    releaseName: target.releaseName,
    releaseNamespace: target.namespace,
  };
}

/**
 * The last attempt was of this very spec: generation, chart version (and, for oci://, the digest
 * its tag pointed at: a tag pushed again with a fix is a new attempt) and values.
 */
export function sameAttempt(release: HelmRelease, desired: DesiredRelease): boolean {
  const status = release.status;
  return (
    status !== undefined &&
    status.lastAttemptedGeneration === release.metadata.generation &&
    status.lastAttemptedChartVersion === desired.chartVersion &&
    (!desired.chartDigest || status.lastAttemptedChartDigest === desired.chartDigest) &&
    status.lastAttemptedValuesDigest === desired.valuesDigest
  );
}

/** Remediated describes a failure of an earlier spec once the current one is released. */
function dropStaleRemediated(conditions: Condition[], gen: number | undefined): Condition[] {
  const remediated = findCondition(conditions, ConditionType.Remediated);
  return remediated && remediated.observedGeneration !== gen ? removeCondition(conditions, ConditionType.Remediated) : conditions;
}

export function succeededStatus(release: HelmRelease, event: ReleaseEvent, message: string, history: ReleaseHistory, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markReady(release.status?.conditions, { reason: event, message }, { now, generation: gen }, (list) =>
    setCondition(dropStaleRemediated(list, gen), { type: ConditionType.Released, status: 'True', reason: event, message }, now, gen),
  );
  return {
    conditions,
    observedGeneration: gen,
    history: historyFromStorage(history),
    failures: 0,
    lastAttemptFailed: false,
    lastReconciledAt: now.toISOString(),
  };
}

/**
 * A helm operation failed. Final (no remediation or retry will follow): Stalled, and it is not
 * repeated until the spec (or its values) change. Otherwise the release is still Reconciling.
 */
export function failedStatus(
  release: HelmRelease,
  event: ReleaseEvent,
  message: string,
  history: ReleaseHistory,
  now: Date,
  opts: { final: boolean; counter?: 'install' | 'upgrade' } = { final: true },
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const at = { now, generation: gen };
  const released = setCondition(markSettled(release.status?.conditions), { type: ConditionType.Released, status: 'False', reason: event, message }, now, gen);
  const conditions = opts.final
    ? markStalled(released, { reason: event, message }, at)
    : markWaiting(released, { reason: StateReason.Remediating, message: `${message}; remediating` }, { reason: event, message }, at);
  const counters =
    opts.counter === 'install'
      ? { installFailures: (release.status?.installFailures ?? 0) + 1 }
      : opts.counter === 'upgrade'
        ? { upgradeFailures: (release.status?.upgradeFailures ?? 0) + 1 }
        : {};
  return {
    conditions,
    ...counters,
    observedGeneration: gen,
    history: historyFromStorage(history),
    failures: (release.status?.failures ?? 0) + 1,
    lastAttemptFailed: true,
    lastReconciledAt: now.toISOString(),
  };
}

/** Something that may clear up by itself (chart repository down, values source missing): retried. */
export function retryingStatus(release: HelmRelease, event: ReleaseEvent, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markReconciling(
    release.status?.conditions,
    { reason: event, message: `${message}; retrying` },
    { now, generation: gen },
    { status: 'False', reason: event, message },
  );
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** Nothing to do: keep the Ready reason of the last success, record the check. */
export function inSyncStatus(release: HelmRelease, desired: DesiredRelease, history: ReleaseHistory, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const deployed = history.deployed;
  const message = `${desired.chartName}@${desired.chartVersion} revision ${deployed?.revision ?? '?'} is deployed`;
  const ready = findCondition(release.status?.conditions, ConditionType.Ready);
  const keepReason = ready?.status === 'True';
  let conditions = markReady(
    release.status?.conditions,
    { reason: keepReason ? (ready.reason as ReleaseEvent) : StateReason.InSync, message: keepReason ? ready.message : message },
    { now, generation: gen },
    (list) => dropStaleRemediated(list, gen),
  );
  if (!findCondition(conditions, ConditionType.Released)) {
    conditions = setCondition(conditions, { type: ConditionType.Released, status: 'True', reason: StateReason.InSync, message }, now, gen);
  }
  return { conditions, observedGeneration: gen, history: historyFromStorage(history), lastAttemptFailed: false, lastReconciledAt: now.toISOString() };
}

/**
 * helmcrew will not act for this HelmRelease as it stands (a release owned by another, a target
 * the operator forbids): not a helm failure, so no failure is counted; a change of spec or of the
 * cluster is needed, which the periodic check notices.
 */
export function refusedStatus(release: HelmRelease, reason: ReleaseEvent, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markStalled(release.status?.conditions, { reason, message }, { now, generation: gen });
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

export function lockedStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markReconciling(release.status?.conditions, { reason: StateReason.ReleaseLocked, message }, { now, generation: gen });
  return { conditions, lastReconciledAt: now.toISOString() };
}

export function uninstallingStatus(release: HelmRelease, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markReconciling(
    release.status?.conditions,
    { reason: StateReason.Uninstalling, message: 'Uninstalling the release' },
    { now, generation: gen },
  );
  return { conditions };
}

export function checkedStatus(now: Date): HelmReleaseStatus {
  return { lastReconciledAt: now.toISOString() };
}

/** An install/upgrade cancelled because a newer generation arrived: still reconciling, no failure counted. */
export function supersededStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markReconciling(release.status?.conditions, { reason: StateReason.Progressing, message }, { now, generation: gen });
  return { conditions, lastAttemptFailed: false, lastReconciledAt: now.toISOString() };
}
