import type { HelmRelease } from '../../api/helmrelease.js';
import type { Condition } from '../../api/helmrelease-status.js';
import { ConditionType } from '../../api/vocabulary.js';

/** The marks a release carries on the pages; one vocabulary for the fleet, the release page and the filters. */
export const MARKS = ['ready', 'failed', 'progressing', 'suspended', 'frozen', 'drifted', 'proposal'] as const;
export type Mark = (typeof MARKS)[number];

export const MARK_LABEL: Record<Mark, string> = {
  ready: 'Ready',
  failed: 'Failed',
  progressing: 'Progressing',
  suspended: 'Suspended',
  frozen: 'Frozen',
  drifted: 'Drifted',
  proposal: 'proposal waiting',
};

export function isMark(value: string): value is Mark {
  return (MARKS as readonly string[]).includes(value);
}

export const conditionOf = (release: HelmRelease, type: string): Condition | undefined => release.status?.conditions?.find((c) => c.type === type);

/**
 * Pure: a release's marks. Ready, Failed (Stalled, or Ready=False with nothing in progress) or Progressing from its
 * conditions; Suspended from the spec; Frozen from the controller's condition or a freeze that
 * holds it now; Drifted from the condition; "proposal waiting" when a live proposal names it.
 */
export function releaseMarks(release: HelmRelease, facts: { frozenBy: number; proposals: number }): Mark[] {
  const marks: Mark[] = [];
  const ready = conditionOf(release, ConditionType.Ready);
  const stalled = conditionOf(release, ConditionType.Stalled)?.status === 'True';
  const reconciling = conditionOf(release, ConditionType.Reconciling)?.status === 'True';
  if (ready?.status === 'True' && !stalled) marks.push('ready');
  // Ready=False while the controller still works on it is progress, not failure (kstatus).
  else if (stalled || (ready?.status === 'False' && !reconciling)) marks.push('failed');
  else marks.push('progressing');
  if (release.spec.suspend) marks.push('suspended');
  if (facts.frozenBy > 0 || conditionOf(release, ConditionType.Frozen)?.status === 'True') marks.push('frozen');
  if (conditionOf(release, ConditionType.Drifted)?.status === 'True') marks.push('drifted');
  if (facts.proposals > 0) marks.push('proposal');
  return marks;
}
