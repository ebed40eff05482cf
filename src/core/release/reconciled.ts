import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';

/** How a HelmRelease stands with one generation of its spec, read from its status alone. */
export type GenerationOutcome = 'pending' | 'ready' | 'failed';

/**
 * Pure: has the controller finished with `generation`? Finished means status and its Ready
 * condition both speak of that generation, Ready is decided (True or False, not Unknown) and no
 * operation is running. Every waiter (dev, tests, benches, the bot) and every decision that asks
 * "is this generation reconciled" reads it here.
 */
export function outcomeAtGeneration(release: HelmRelease, generation = release.metadata.generation): GenerationOutcome {
  const conditions = release.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === ConditionType.Ready);
  if (!ready || ready.status === 'Unknown' || ready.observedGeneration !== generation || release.status?.observedGeneration !== generation) return 'pending';
  if (conditions.find((c) => c.type === ConditionType.Reconciling)?.status === 'True') return 'pending';
  return ready.status === 'True' ? 'ready' : 'failed';
}

export function isReconciledAt(release: HelmRelease, generation = release.metadata.generation): boolean {
  return outcomeAtGeneration(release, generation) !== 'pending';
}

/** Ready=True, and both status and the condition speak of `generation` (what dependsOn waits for; a check in progress does not unready it). */
export function isReadyAtGeneration(release: HelmRelease, generation = release.metadata.generation): boolean {
  const ready = release.status?.conditions?.find((c) => c.type === ConditionType.Ready);
  return ready?.status === 'True' && ready.observedGeneration === generation && release.status?.observedGeneration === generation;
}
