import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { assertNever } from './assert-never.js';
import { gitRevision } from '../../../core/release/chart-revision.js';
import { CHART_DIGEST_LABEL, chartDigestLabel, determineOwnership, POST_RENDER_LABEL, recordedTimeoutSeconds } from './ownership.js';
import { NO_POST_RENDER } from '../../../core/release/post-render.js';
import { sameChartVersion } from './chart-version.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { canonicalJson, mergeValues } from '../../../core/release/values.js';
import { sameAttempt } from '../../status/release-status.js';
import { pendingTestRequest, untested } from './test-decision.js';
import {
  decideAfterFailure,
  describeGiveUp,
  failedActionOf,
  failureCount,
  remediationOfThisFailure,
  remediationPolicy,
  type GiveUpReason,
} from './remediation-decision.js';

/**
 * Decide, then act: these functions look at the HelmRelease, what it asks for and Helm's stored
 * release, and name the state and the next action (once the lifecycle, lifecycle-state.ts, lets the
 * spec be reconciled). No I/O here; the reconciler does what they say.
 */

export type ReleaseState =
  | { kind: 'not-installed' }
  | { kind: 'failed-install'; release: StoredRelease }
  | { kind: 'locked'; release: StoredRelease }
  | { kind: 'stale-lock'; release: StoredRelease }
  /** `handover`: a release Flux installed, taken over by this upgrade (handover.ts). */
  | { kind: 'out-of-sync'; deployed: StoredRelease; why: string; handover?: Handover }
  /** spec.chart.name changed and upgrade.chartNameChangeStrategy is Reinstall. */
  | { kind: 'chart-renamed'; deployed: StoredRelease; why: string }
  | { kind: 'failed-unchanged'; message: string; reason: GiveUpReason }
  | { kind: 'failed-needs-rollback'; from: StoredRelease; to: StoredRelease }
  | { kind: 'failed-needs-uninstall'; release: StoredRelease }
  | { kind: 'failed-backing-off'; retryInMs: number; failures: number }
  /** `scheduled`: the revision's own test (spec.test.enable); `requestId`: a test asked for (`/release test`). */
  | { kind: 'untested'; deployed: StoredRelease; scheduled: boolean; requestId?: string }
  | { kind: 'in-sync'; deployed: StoredRelease };

/** How long past its own timeout a pending operation may run before its holder counts as gone. */
export const LOCK_GRACE_MS = 10_000;

/** helm's own default --timeout: what a record without a recorded timeout may have run with. */
export const HELM_DEFAULT_TIMEOUT_SECONDS = 300;

export interface Clock {
  now: Date;
  /** The observing HelmRelease's timeout; only a floor for records whose holder recorded none. */
  timeoutSeconds: number;
  /** Its rollback's timeout: a pending rollback ran with it (its record carries another's labels). */
  rollbackTimeoutSeconds?: number;
  /** This process's last lock-taking helm for the release, once exited (helm/exited-helm-runs.ts). */
  ownHelmRun?: { startedAt: number; exitedAt: number };
}

export function determineReleaseState(
  release: HelmRelease,
  desired: DesiredRelease,
  history: ReleaseHistory,
  clock: Clock,
  /** helmcrew.dev/forceAt: one install or upgrade now, whatever failed before and even when in sync. */
  force = false,
): ReleaseState {
  const { latest, deployed } = history;
  if (latest?.status.startsWith('pending-')) {
    const abandoned = isStaleLock(latest, clock) || leftByOwnFailedAttempt(release, latest) || madeByExitedHelm(latest, clock.ownHelmRun);
    return abandoned ? { kind: 'stale-lock', release: latest } : { kind: 'locked', release: latest };
  }
  // A handed-over release is upgraded once even when nothing differs: that upgrade writes
  // helmcrew's owner labels (and drops Flux's labels from the objects), as the next revision.
  const ownership = determineOwnership(release, history);
  if (ownership.kind === 'handover' && deployed) {
    const { kind: _kind, ...handover } = ownership;
    return { kind: 'out-of-sync', deployed, why: `taking over revision ${ownership.revision} from ${ownership.from}`, handover };
  }
  if (force) {
    if (!latest || latest.status === 'uninstalled') return { kind: 'not-installed' };
    if (!deployed) return { kind: 'failed-install', release: latest };
    return { kind: 'out-of-sync', deployed, why: FORCED_WHY };
  }
  // A failed attempt of this very spec is remediated, retried after a backoff, or given up on;
  // decided before "in sync", since an upgrade whose helm test failed is deployed and equal.
  if (lastAttemptFailedForThis(release, desired)) {
    const failure = determineFailureState(release, desired, history, clock);
    if (failure) return failure;
  }
  // In sync only when the newest revision is the deployed one: after a failed upgrade the
  // cluster may hold half of it, so going back to the deployed spec re-applies it.
  if (deployed && deployed === latest && isSameRelease(deployed, desired)) {
    // A test asked for runs only on a release in sync: what it tests is the declared spec, deployed.
    const scheduled = untested(release, deployed);
    const requestId = pendingTestRequest(release);
    if (scheduled || requestId) return { kind: 'untested', deployed, scheduled, ...(requestId ? { requestId } : {}) };
    return { kind: 'in-sync', deployed };
  }
  if (!latest || latest.status === 'uninstalled') return { kind: 'not-installed' };
  if (!deployed) return { kind: 'failed-install', release: latest };
  const why = describeDifference(deployed, desired, latest);
  if (deployed.chartName !== desired.chartName && release.spec.upgrade?.chartNameChangeStrategy === 'Reinstall') {
    return { kind: 'chart-renamed', deployed, why: `${why} (upgrade.chartNameChangeStrategy: Reinstall)` };
  }
  return { kind: 'out-of-sync', deployed, why };
}

/** The state after a failed attempt of the current spec; undefined when it is due for a retry. */
function determineFailureState(release: HelmRelease, desired: DesiredRelease, history: ReleaseHistory, clock: Clock): ReleaseState | undefined {
  const failed = failedActionOf(release);
  const failures = failureCount(release, failed);
  const policy = remediationPolicy(release.spec, failed);
  const { latest } = history;
  const decision = decideAfterFailure({
    failed,
    failures,
    policy,
    history,
    // The attempt itself, or a remediation of it that died half-way (a rollback left failed or
    // unlocked after its helm was killed): either way the release still needs remediating.
    latestIsFailedAttempt: !!latest && latest.status !== 'uninstalled' && (isSameRelease(latest, desired) || latest.status === 'failed'),
    remediation: remediationOfThisFailure(release, failed, failures),
    attemptedAt: release.status?.lastAttemptedAt,
    now: clock.now,
  });
  switch (decision.kind) {
    case 'rollback':
      return { kind: 'failed-needs-rollback', from: decision.from, to: decision.to };
    case 'uninstall':
      return { kind: 'failed-needs-uninstall', release: latest! };
    case 'back-off':
      return { kind: 'failed-backing-off', retryInMs: decision.retryInMs, failures };
    case 'retry':
      return undefined;
    case 'give-up': {
      const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
      // The helm error was written when the attempt failed; a remediation since then replaced it.
      const lastError = release.status?.lastRemediation ? undefined : ready?.message;
      const chart = `${desired.chartName}@${desired.chartVersion}`;
      const message = describeGiveUp(decision.reason, { failed, failures, chart, policy, deployed: history.deployed, lastError });
      return { kind: 'failed-unchanged', message, reason: decision.reason };
    }
    default:
      return assertNever(decision);
  }
}

/**
 * The queue never runs two reconciles of one release, so a pending record seen here was left by
 * a helm process that died (or by a person). It is taken as abandoned once it is older than the
 * timeout its holder recorded on it plus a grace period, since helm's own --timeout would have
 * ended it by then. The observer's timeout says nothing about the holder's helm; a record
 * without a recorded timeout (helm by hand, or written before helmcrew recorded it) gets the
 * longer of the observer's timeout and helm's default. helm copies a rollback's labels from the
 * revision it rolls back to, so a pending rollback's recorded timeout is that revision's, not the
 * rollback's: the longer of it and the spec's rollback timeout is taken.
 */
export function isStaleLock(pending: StoredRelease, clock: Clock): boolean {
  const started = pending.lastDeployed ? Date.parse(pending.lastDeployed) : NaN;
  if (Number.isNaN(started)) return true;
  const recorded = recordedTimeoutSeconds(pending);
  const rollback = pending.status === 'pending-rollback' ? clock.rollbackTimeoutSeconds : undefined;
  const holderTimeoutSeconds = recorded === undefined ? Math.max(clock.timeoutSeconds, HELM_DEFAULT_TIMEOUT_SECONDS) : Math.max(recorded, rollback ?? 0);
  return clock.now.getTime() - started > holderTimeoutSeconds * 1000 + LOCK_GRACE_MS;
}

/**
 * A pending record this HelmRelease's own last attempt wrote, and that attempt is over: status says
 * it failed (written only after its helm exited), and the record was made between the attempt's
 * start and that failure being recorded. helm that fails because the API server went away mid-way
 * leaves its record pending; nothing holds it, so waiting out its timeout (minutes) would hold the
 * release for nothing. A person's helm after the failure makes a later record and is not matched;
 * while an attempt runs, its started status says lastAttemptFailed false, so it is never matched
 * either; a controller killed mid-helm never wrote the failure, and its record waits the timeout.
 */
export function leftByOwnFailedAttempt(release: HelmRelease, pending: StoredRelease): boolean {
  const status = release.status;
  if (status?.lastAttemptFailed !== true || !status.lastAttemptedAt || !status.lastReconciledAt || !pending.lastDeployed) return false;
  const made = Date.parse(pending.lastDeployed);
  return made >= Date.parse(status.lastAttemptedAt) && made <= Date.parse(status.lastReconciledAt);
}

/** A pending record made while this process's helm ran, that helm now exited: nobody holds it (helm/exited-helm-runs.ts). */
export function madeByExitedHelm(pending: StoredRelease, run: { startedAt: number; exitedAt: number } | undefined): boolean {
  if (!run || !pending.lastDeployed) return false;
  const made = Date.parse(pending.lastDeployed);
  return made >= run.startedAt && made <= run.exitedAt;
}

export function isSameRelease(stored: StoredRelease, desired: DesiredRelease): boolean {
  return (
    stored.chartName === desired.chartName &&
    sameChartVersion(stored.chartVersion, desired.chartVersion) &&
    sameChartDigest(stored, desired) &&
    samePostRender(stored, desired) &&
    sameValues(stored, desired)
  );
}

/** Equal values; with upgrade.preserveValues, the desired ones merged over the stored ones change nothing. */
function sameValues(stored: StoredRelease, desired: DesiredRelease): boolean {
  const storedJson = canonicalJson(stored.config);
  if (desired.preserveValues) return canonicalJson(mergeValues(stored.config ?? {}, desired.values)) === storedJson;
  return storedJson === canonicalJson(desired.values);
}

/** oci:// and git charts: installed from the digest the tag points at now, or the commit (a moved tag, a new commit is a change). Others have none to compare. */
export function sameChartDigest(stored: StoredRelease, desired: DesiredRelease): boolean {
  return !desired.chartDigest || stored.labels?.[CHART_DIGEST_LABEL] === chartDigestLabel(desired.chartDigest);
}

/** Rendered through the same post-renderers and common metadata (none, for a record from before they existed). */
function samePostRender(stored: StoredRelease, desired: DesiredRelease): boolean {
  return (stored.labels?.[POST_RENDER_LABEL] ?? NO_POST_RENDER) === (desired.postRenderDigest ?? NO_POST_RENDER);
}

/** A failed attempt is not repeated for the same generation, chart and values; a change retries. */
export function lastAttemptFailedForThis(release: HelmRelease, desired: DesiredRelease): boolean {
  return release.status?.lastAttemptFailed === true && sameAttempt(release, desired);
}

/** Why an upgrade that was forced (helmcrew.dev/forceAt) runs: the act stage then names the request it answers. */
export const FORCED_WHY = 'forced (helmcrew.dev/forceAt)';

function describeDifference(stored: StoredRelease, desired: DesiredRelease, latest?: StoredRelease): string {
  if (latest && latest !== stored && isSameRelease(stored, desired))
    return `revision ${latest.revision} ${latest.status}; re-applying revision ${stored.revision}'s chart and values`;
  if (stored.chartName !== desired.chartName) return `chart ${stored.chartName} → ${desired.chartName}`;
  if (!sameChartVersion(stored.chartVersion, desired.chartVersion)) return `chart version ${stored.chartVersion} → ${desired.chartVersion}`;
  if (!sameChartDigest(stored, desired)) {
    const revision = gitRevision(desired.chartVersion, desired.chartDigest);
    return revision
      ? `chart ${desired.chartName} at a new commit: ${revision}`
      : `chart ${desired.chartVersion} moved to digest ${desired.chartDigest!.slice(0, 19)}…`;
  }
  if (!samePostRender(stored, desired)) return 'post-renderers or common metadata changed';
  return 'values changed';
}

/**
 * What reconciling the spec against Helm's records calls for, with what it needs to do it: decided
 * once here (as helm-controller's actionForState), dispatched once by the act stage.
 */
export type ReleaseAction =
  | { kind: 'install' }
  /** `why`: a reinstall of a deployed release (chart-renamed); absent: after a failed first install. */
  | { kind: 'reinstall'; release: StoredRelease; why?: string }
  | { kind: 'upgrade'; deployed: StoredRelease; why: string; handover?: Handover }
  | { kind: 'wait-for-lock'; release: StoredRelease }
  | { kind: 'unlock'; release: StoredRelease }
  | { kind: 'report-failure'; message: string; reason: GiveUpReason }
  | { kind: 'remediate-rollback'; from: StoredRelease; to: StoredRelease }
  | { kind: 'remediate-uninstall'; release: StoredRelease }
  | { kind: 'wait-for-retry'; retryInMs: number; failures: number }
  | { kind: 'test'; deployed: StoredRelease; scheduled: boolean; requestId?: string }
  | { kind: 'report-ready'; deployed: StoredRelease };

export type ReleaseActionName = ReleaseAction['kind'];

/** A release Flux installed, taken over by the upgrade that follows (handover.ts). */
export type Handover = { release: string; from: string; revision: number };

/** Pure: the action a state calls for, carrying the state's data. */
export function nextAction(state: ReleaseState): ReleaseAction {
  switch (state.kind) {
    case 'not-installed':
      return { kind: 'install' };
    case 'failed-install':
      return { kind: 'reinstall', release: state.release };
    case 'locked':
      return { kind: 'wait-for-lock', release: state.release };
    case 'stale-lock':
      return { kind: 'unlock', release: state.release };
    case 'chart-renamed':
      return { kind: 'reinstall', release: state.deployed, why: state.why };
    case 'out-of-sync':
      return { kind: 'upgrade', deployed: state.deployed, why: state.why, ...(state.handover ? { handover: state.handover } : {}) };
    case 'failed-unchanged':
      return { kind: 'report-failure', message: state.message, reason: state.reason };
    case 'failed-needs-rollback':
      return { kind: 'remediate-rollback', from: state.from, to: state.to };
    case 'failed-needs-uninstall':
      return { kind: 'remediate-uninstall', release: state.release };
    case 'failed-backing-off':
      return { kind: 'wait-for-retry', retryInMs: state.retryInMs, failures: state.failures };
    case 'untested':
      return { kind: 'test', deployed: state.deployed, scheduled: state.scheduled, ...(state.requestId ? { requestId: state.requestId } : {}) };
    case 'in-sync':
      return { kind: 'report-ready', deployed: state.deployed };
    default:
      return assertNever(state);
  }
}

/** Only what changes the release waits for dependsOn; tests and remediation follow what already ran. */
export function gatedByDependencies(action: ReleaseActionName): boolean {
  return action === 'install' || action === 'reinstall' || action === 'upgrade';
}
