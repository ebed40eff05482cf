import type { Condition } from '../../api/helmrelease-status.js';
import type { ConditionType, Reason } from '../../api/vocabulary.js';

export interface ConditionUpdate {
  type: ConditionType;
  status: 'True' | 'False' | 'Unknown';
  reason: Reason;
  message: string;
}

const MAX_MESSAGE = 4000;

/**
 * Sets one condition, keeping lastTransitionTime when the status did not change (kstatus and
 * `kubectl wait` read it that way). Pure: returns a new list.
 */
export function setCondition(conditions: Condition[] | undefined, update: ConditionUpdate, now: Date, generation?: number): Condition[] {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === update.type);
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message.length > MAX_MESSAGE ? `${update.message.slice(0, MAX_MESSAGE)}…` : update.message,
    lastTransitionTime: existing && existing.status === update.status ? existing.lastTransitionTime : now.toISOString(),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  return [...list.filter((c) => c.type !== update.type), next];
}

export function removeCondition(conditions: Condition[] | undefined, type: ConditionType): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function findCondition(conditions: Condition[] | undefined, type: ConditionType): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
