import type { HelmRelease, HelmReleaseSpec } from '../../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import type { FailedAction } from '../../../core/release/failed-action.js';
import { retryDelayMs } from '../../queue/retry-policy.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../../api/duration.js';

/**
 * Pure decisions about a failed install or upgrade (or its helm test): remediate it (rollback or
 * uninstall), try again after a backoff, or give up and say what a person should do.
 * Field meanings follow Flux's HelmRelease v2 `install.remediation` / `upgrade.remediation`.
 */

export type RemediationStrategy = 'rollback' | 'uninstall';

export interface RemediationPolicy {
  /** Attempts after the first failure; -1 = no limit. */
  retries: number;
  strategy: RemediationStrategy;
  /** Remediate the failure that used the last retry, too. */
  remediateLastFailure: boolean;
  /**
   * strategy RetryOnFailure: the failed action is tried again every retryIntervalMs, never
   * remediated and never given up on (the remediation block does not apply).
   */
  retryIntervalMs?: number;
}

/** Flux's default retryInterval. */
export const DEFAULT_RETRY_INTERVAL = '5m';

/**
 * No remediation block: no retries, nothing undone (the failure is reported and stalls, as
 * before). A declared block defaults remediateLastFailure to true, unlike Flux (which does so
 * only when retries > 0): someone who writes `strategy: rollback` wants the rollback.
 */
export function remediationPolicy(spec: HelmReleaseSpec, failed: FailedAction): RemediationPolicy {
  const block = failed === 'install' ? spec.install?.remediation : spec.upgrade?.remediation;
  const strategy = failed === 'install' ? 'uninstall' : (spec.upgrade?.remediation?.strategy ?? 'rollback');
  const retryStrategy = failed === 'install' ? spec.install?.strategy : spec.upgrade?.strategy;
  if (retryStrategy?.name === 'RetryOnFailure') {
    const interval = parseDuration(retryStrategy.retryInterval ?? DEFAULT_RETRY_INTERVAL);
    return {
      retries: -1,
      strategy,
      remediateLastFailure: false,
      retryIntervalMs: clampDuration(interval, DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxInterval),
    };
  }
  return { retries: block?.retries ?? 0, strategy, remediateLastFailure: block ? (block.remediateLastFailure ?? true) : false };
}

export function retriesLeft(policy: RemediationPolicy, failures: number): boolean {
  return policy.retries < 0 || failures <= policy.retries;
}

/** Will anything happen after this failure (remediation or a retry)? If not, it is final: Stalled. */
export function failureIsFinal(policy: RemediationPolicy, failures: number): boolean {
  return !retriesLeft(policy, failures) && !policy.remediateLastFailure;
}

/** Wait between a failure and the next attempt of the same spec: 2 s, 4 s, 8 s … capped at 5 minutes. */
export function remediationBackoffMs(failures: number): number {
  return retryDelayMs(failures, 2000, 5 * 60_000);
}

export interface FailureFacts {
  failed: FailedAction;
  /** Failed attempts of the current spec (≥ 1). */
  failures: number;
  policy: RemediationPolicy;
  history: ReleaseHistory;
  /** Is Helm's newest revision the failed attempt itself (not yet rolled back or uninstalled)? */
  latestIsFailedAttempt: boolean;
  /** status.lastRemediation, when it answered this very failure of this spec. */
  remediation?: { succeeded: boolean; at: string };
  /** When the failed attempt started. */
  attemptedAt?: string;
  now: Date;
}

export type GiveUpReason = 'no-remediation' | 'retries-exhausted' | 'remediation-failed' | 'nothing-to-roll-back-to';

export type FailureDecision =
  | { kind: 'rollback'; from: StoredRelease; to: StoredRelease }
  | { kind: 'uninstall' }
  | { kind: 'retry' }
  | { kind: 'back-off'; retryInMs: number }
  | { kind: 'give-up'; reason: GiveUpReason };

export function decideAfterFailure(facts: FailureFacts): FailureDecision {
  const { policy, failures } = facts;
  if (policy.retryIntervalMs !== undefined) return retryAfter(facts, policy.retryIntervalMs);
  const canRetry = retriesLeft(policy, failures);
  if (facts.remediation && !facts.remediation.succeeded) return { kind: 'give-up', reason: 'remediation-failed' };
  // Each failure is remediated once; Helm's storage says whether it still needs it (crash safe:
  // a rollback that finished before its status was written is not done twice).
  if (!facts.remediation && facts.latestIsFailedAttempt && (canRetry || policy.remediateLastFailure)) {
    if (policy.strategy === 'uninstall') return { kind: 'uninstall' };
    const from = facts.history.latest!;
    const to = lastGoodRevision(facts.history, from);
    if (!to) return { kind: 'give-up', reason: 'nothing-to-roll-back-to' };
    return { kind: 'rollback', from, to };
  }
  if (!canRetry) return { kind: 'give-up', reason: policy.remediateLastFailure || policy.retries !== 0 ? 'retries-exhausted' : 'no-remediation' };
  return retryAfter(facts, remediationBackoffMs(failures));
}

/** Try again once `waitMs` has passed since the attempt (or its remediation). */
function retryAfter(facts: FailureFacts, waitMs: number): FailureDecision {
  const since = Date.parse(facts.remediation?.at ?? facts.attemptedAt ?? '');
  const waited = Number.isNaN(since) ? Infinity : facts.now.getTime() - since;
  return waited >= waitMs ? { kind: 'retry' } : { kind: 'back-off', retryInMs: waitMs - waited };
}

/**
 * The revision to roll back to: the newest one older than `from` that was deployed (it is still
 * `deployed` after a failed upgrade, `superseded` after an upgrade whose test failed).
 */
export function lastGoodRevision(history: ReleaseHistory, from: StoredRelease): StoredRelease | undefined {
  return history.releases.find((r) => r.revision < from.revision && (r.status === 'deployed' || r.status === 'superseded'));
}

/** Which attempt failed, from status.lastAttemptedAction (reinstall counts as install). */
export function failedActionOf(release: HelmRelease): FailedAction {
  return release.status?.lastAttemptedAction === 'upgrade' ? 'upgrade' : 'install';
}

export function failureCount(release: HelmRelease, failed: FailedAction): number {
  const status = release.status;
  return Math.max(1, (failed === 'install' ? status?.installFailures : status?.upgradeFailures) ?? 1);
}

/** status.lastRemediation, if it was for this failure of this generation. */
export function remediationOfThisFailure(release: HelmRelease, failed: FailedAction, failures: number): { succeeded: boolean; at: string } | undefined {
  const record = release.status?.lastRemediation;
  if (!record || record.failedAction !== failed || record.failure !== failures || record.generation !== release.metadata.generation) return undefined;
  return { succeeded: record.succeeded, at: record.at };
}

/** What a person reads when the controller gives up: what happened, and what to do. */
export function describeGiveUp(
  reason: GiveUpReason,
  f: { failed: FailedAction; failures: number; chart: string; policy: RemediationPolicy; deployed?: StoredRelease; lastError?: string },
): string {
  const attempts = `${f.failed === 'install' ? 'Install' : 'Upgrade'} of ${f.chart} failed ${f.failures === 1 ? 'once' : `${f.failures} times`}`;
  const running = f.deployed ? `revision ${f.deployed.revision} (${f.deployed.chartName}@${f.deployed.chartVersion}) is deployed` : 'nothing is deployed';
  const error = f.lastError ? ` Last error: ${f.lastError}` : '';
  switch (reason) {
    case 'no-remediation':
      return `${attempts}; ${running}. Fix the chart or values and apply the HelmRelease again, or set ${f.failed}.remediation to have failures retried or undone automatically.${error}`;
    case 'retries-exhausted':
      return `${attempts} (retries: ${f.policy.retries}); ${running}. No retries left: fix the chart or values and apply a changed spec, which starts the count again.${error}`;
    case 'remediation-failed':
      return `${attempts} and undoing it (${f.policy.strategy}) failed too; ${running}. A person must look at the release (helm history, kubectl get events) and repair it, or apply a changed spec.${error}`;
    case 'nothing-to-roll-back-to':
      return `${attempts} and there is no earlier deployed revision to roll back to; ${running}. Fix the chart or values and apply a changed spec, or use upgrade.remediation.strategy: uninstall.${error}`;
  }
}
