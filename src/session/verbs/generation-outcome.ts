import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';
import { outcomeAtGeneration } from '../../core/release/reconciled.js';
import type { Outcome } from './verb-handler.js';

/** Pure: a spec change's outcome — pending until the controller has reported on the release's current generation, then Ready's word. */
export function generationOutcome(release: HelmRelease, pending: Outcome, key: string): Outcome {
  const outcome = outcomeAtGeneration(release, release.metadata.generation);
  if (outcome === 'pending') return pending;
  const ready = release.status?.conditions?.find((c) => c.type === ConditionType.Ready);
  return { done: true, succeeded: outcome === 'ready', message: `${key}: ${ready?.message ?? ''}` };
}
