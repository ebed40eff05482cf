import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent, StateReason } from '../../api/vocabulary.js';
import { findCondition } from './conditions.js';
import { markStalled, markWaiting } from './kstatus.js';

/** Pure builders of the status of a release held by dependsOn. */

/** Waiting for dependencies to become Ready: still progressing (Reconciling), not Stalled. */
export function dependencyWaitingStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const mark = { reason: ReleaseEvent.DependencyNotReady, message };
  const conditions = markWaiting(release.status?.conditions, mark, mark, { now, generation: gen });
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** A missing dependency or a cycle: nothing moves until a spec changes (or the dependency appears). */
export function dependencyInvalidStatus(
  release: HelmRelease,
  message: string,
  now: Date,
  reason: StateReason | ReleaseEvent = StateReason.DependencyInvalid,
): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const conditions = markStalled(release.status?.conditions, { reason, message }, { now, generation: gen });
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** Does Ready already say exactly this? Then no new Event is recorded. */
export function dependencyProblemRecorded(release: HelmRelease, message: string): boolean {
  const ready = findCondition(release.status?.conditions, ConditionType.Ready);
  return ready?.status === 'False' && ready.message === message && ready.observedGeneration === release.metadata.generation;
}

/** How long the release has been waiting on dependencies (0 when it just started). */
export function dependencyWaitedMs(release: HelmRelease, now: Date): number {
  const reconciling = findCondition(release.status?.conditions, ConditionType.Reconciling);
  if (reconciling?.status !== 'True' || reconciling.reason !== ReleaseEvent.DependencyNotReady) return 0;
  const since = Date.parse(reconciling.lastTransitionTime);
  return Number.isNaN(since) ? 0 : Math.max(0, now.getTime() - since);
}
