import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent, StateReason } from '../../api/vocabulary.js';
import { describeHolding, type HoldingFreeze } from '../../core/release/freeze-match.js';
import { findCondition, removeCondition, setCondition } from './conditions.js';
import { markReadyAs, markSettled, markWaiting } from './kstatus.js';

/**
 * Pure builders of the status of a release a Freeze holds. `Frozen` is abnormal-true: present
 * only while a freeze holds an action; Ready says the spec is not applied, and why.
 */

export function frozenMessage(action: string, holding: readonly HoldingFreeze[]): string {
  return `The ${action} is held by ${describeHolding(holding)}; the spec is kept and applied when no freeze holds it`;
}

/** Already recorded with this very message: a periodic check writes nothing. */
export function frozenRecorded(release: HelmRelease, message: string): boolean {
  const frozen = findCondition(release.status?.conditions, ConditionType.Frozen);
  return frozen?.status === 'True' && frozen.message === message && release.status?.observedGeneration === release.metadata.generation;
}

export function frozenStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const gen = release.metadata.generation;
  const at = { now, generation: gen };
  const frozen = setCondition(
    markSettled(release.status?.conditions),
    { type: ConditionType.Frozen, status: 'True', reason: ReleaseEvent.Frozen, message },
    now,
    gen,
  );
  const conditions = markReadyAs(frozen, { status: 'False', reason: ReleaseEvent.Frozen, message }, at);
  // observedGeneration: the spec was seen and is held; periodic checks follow the interval, and the
  // freeze's end wakes the release at once.
  return { conditions, observedGeneration: gen, lastReconciledAt: now.toISOString() };
}

/** Nothing holds it any more: Frozen goes, and a Ready that said Frozen says the pass goes on (never read as an outcome). */
export function unfrozenStatus(release: HelmRelease, now: Date): HelmReleaseStatus {
  const conditions = removeCondition(release.status?.conditions, ConditionType.Frozen);
  if (findCondition(conditions, ConditionType.Ready)?.reason !== ReleaseEvent.Frozen) return { conditions };
  const message = 'No freeze holds the release any more; applying the spec';
  return {
    conditions: markReadyAs(conditions, { status: 'Unknown', reason: StateReason.Progressing, message }, { now, generation: release.metadata.generation }),
  };
}

/** Already says the fleet's freezes are unknown, with this message: a retry writes nothing. */
export function fleetFreezesUnknownRecorded(release: HelmRelease, message: string): boolean {
  const ready = findCondition(release.status?.conditions, ConditionType.Ready);
  return ready?.reason === StateReason.FleetFreezesUnknown && ready.message === message;
}

/** The fleet's freezes cannot be read: the spec waits (Ready=False, Reconciling) until they can. */
export function fleetFreezesUnknownStatus(release: HelmRelease, message: string, now: Date): HelmReleaseStatus {
  const mark = { reason: StateReason.FleetFreezesUnknown, message };
  return { conditions: markWaiting(release.status?.conditions, mark, mark, { now, generation: release.metadata.generation }) };
}
