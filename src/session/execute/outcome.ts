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
export function outcomeOf(release: HelmRelease, verb: MutatingVerb, requestId?: string, liftedFreeze?: string): Outcome {
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const pending: Outcome = { done: false, succeeded: false, message: `${key}: waiting for the controller` };
  const suspended = condition(release, ConditionType.Suspended);
  const ready = condition(release, ConditionType.Ready);
  const frozen = condition(release, ConditionType.Frozen);
  if (verb === 'unfreeze') {
    // The lifted freeze still named: the controller has not looked again yet. Another freeze: still held.
    if (frozen?.status === 'True')
      return frozen.message.includes(`freeze ${liftedFreeze} (`) ? pending : { done: true, succeeded: true, message: `${key}: still held. ${frozen.message}` };
    const outcome = outcomeAtGeneration(release);
    if (outcome === 'pending') return pending;
    return { done: true, succeeded: outcome === 'ready', message: `${key}: ${ready?.message ?? ''}` };
  }
  // A freeze holds it: the intent is recorded and waits for the freeze's end; nothing more to wait for here.
  if (frozen?.status === 'True' && frozen.observedGeneration === release.metadata.generation && verb !== 'suspend')
    return { done: true, succeeded: true, message: `${key}: recorded; ${frozen.message}` };
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
    case 'test': {
      const record = release.status?.lastTest;
      if (!record || record.requestId !== requestId) return pending;
      return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
    }
    case 'retry': {
      // Handled once the controller recorded the value; decided once its forced attempt reported (Reconciling gone).
      if (release.status?.lastHandledForceAt !== requestId) return pending;
      if (condition(release, ConditionType.Reconciling)?.status === 'True' || !ready || ready.status === 'Unknown') return pending;
      return { done: true, succeeded: ready.status === 'True', message: `${key}: ${ready.message}` };
    }
    case 'suspend':
      return suspended?.status === 'True' ? { done: true, succeeded: true, message: `${key}: ${suspended.message}` } : pending;
    case 'freeze':
      // A Freeze is its own object and targets no release: done when written (the plan and the summary say what it holds).
      return { done: true, succeeded: true, message: `${key}: freeze written` };
    case 'resume':
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
