import type { HelmRelease } from '../../api/helmrelease.js';
import { outcomeAtGeneration } from '../../core/release/reconciled.js';
import { ConditionType } from '../../api/vocabulary.js';
import type { MutatingVerb } from '../grammar/command.js';

export interface Outcome {
  done: boolean;
  succeeded: boolean;
  message: string;
}

const condition = (release: HelmRelease, type: string) => release.status?.conditions?.find((c) => c.type === type);

/**
 * Pure: has the controller acted on the intent yet, and how did it go? Read from status only:
 * what the controller reported, never what the bot assumes.
 */
export function outcomeOf(release: HelmRelease, verb: MutatingVerb, requestId?: string): Outcome {
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const pending: Outcome = { done: false, succeeded: false, message: `${key}: waiting for the controller` };
  const suspended = condition(release, ConditionType.Suspended);
  const ready = condition(release, ConditionType.Ready);
  switch (verb) {
    case 'rollback': {
      const record = release.status?.rollback;
      if (!record || record.requestId !== requestId || record.inProgress) return pending;
      return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
    }
    case 'correct': {
      const record = release.status?.lastDriftCorrection;
      if (!record || record.requestId !== requestId) return pending;
      return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
    }
    case 'suspend':
    case 'freeze':
      return suspended?.status === 'True' ? { done: true, succeeded: true, message: `${key}: ${suspended.message}` } : pending;
    case 'resume':
    case 'unfreeze':
    case 'upgrade': {
      const generation = release.metadata.generation;
      if (suspended && verb !== 'upgrade') return pending;
      if (verb === 'upgrade' && release.spec.suspend)
        return { done: true, succeeded: true, message: `${key}: version recorded; the release is suspended, so the controller upgrades on resume` };
      const outcome = outcomeAtGeneration(release, generation);
      if (outcome === 'pending') return pending;
      return { done: true, succeeded: outcome === 'ready', message: `${key}: ${ready?.message ?? ''}` };
    }
  }
}
