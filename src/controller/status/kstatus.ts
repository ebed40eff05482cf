import type { Condition } from '../../api/helmrelease-status.js';
import { ConditionType, type Reason } from '../../api/vocabulary.js';
import { removeCondition, setCondition } from './conditions.js';

/**
 * The kstatus rules, written once (in the spirit of fluxcd/pkg runtime/conditions): Ready
 * summarizes; Reconciling and Stalled are abnormal-true, present only while they hold, and never
 * both once a pass has settled. Each helper is pure and returns a new list; every status builder
 * in this folder goes through them instead of removing and setting conditions by hand.
 */

/** A condition's reason and message. */
export interface Mark {
  reason: Reason;
  message: string;
}

/** When, and for which generation (observedGeneration on each condition). */
export interface At {
  now: Date;
  generation: number | undefined;
}

/** Work in progress: Reconciling=True. What it does to Ready, if anything, is said with `ready`. */
export function markReconciling(conditions: Condition[] | undefined, reconciling: Mark, at: At, ready?: ReadyMark): Condition[] {
  const list = setCondition(conditions, { type: ConditionType.Reconciling, status: 'True', ...reconciling }, at.now, at.generation);
  return ready ? markReadyAs(list, ready, at) : list;
}

/**
 * Still progressing after a problem that may clear (a retry follows, a dependency may become
 * Ready): Stalled goes, Reconciling=True, Ready=False saying why.
 */
export function markWaiting(conditions: Condition[] | undefined, reconciling: Mark, notReady: Mark, at: At): Condition[] {
  return markReconciling(removeCondition(conditions, ConditionType.Stalled), reconciling, at, { status: 'False', ...notReady });
}

/** Nothing more will happen until a person or the spec changes something: Reconciling goes, Stalled=True, Ready=False. */
export function markStalled(conditions: Condition[] | undefined, stalled: Mark, at: At, notReady: Mark = stalled): Condition[] {
  const list = setCondition(markSettled(conditions), { type: ConditionType.Stalled, status: 'True', ...stalled }, at.now, at.generation);
  return markReadyAs(list, { status: 'False', ...notReady }, at);
}

/** The spec is applied: Reconciling and Stalled go, Ready=True. `before` runs between (for conditions set in that order). */
export function markReady(conditions: Condition[] | undefined, ready: Mark, at: At, before: (list: Condition[]) => Condition[] = (l) => l): Condition[] {
  return markReadyAs(before(removeCondition(markSettled(conditions), ConditionType.Stalled)), { status: 'True', ...ready }, at);
}

/** The pass ends here for now (held, suspended, an outcome recorded): Reconciling goes. */
export function markSettled(conditions: Condition[] | undefined): Condition[] {
  return removeCondition(conditions, ConditionType.Reconciling);
}

/** Ready with an explicit status, for the summaries that are neither an outcome nor a stall (Unknown while in progress). */
export interface ReadyMark extends Mark {
  status: Condition['status'];
}

export function markReadyAs(conditions: Condition[] | undefined, ready: ReadyMark, at: At): Condition[] {
  return setCondition(conditions, { type: ConditionType.Ready, ...ready }, at.now, at.generation);
}
