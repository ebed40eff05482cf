import type { HelmRelease } from '../../api/helmrelease.js';
import { outcomeAtGeneration } from '../../core/release/reconciled.js';
import { ConditionType } from '../../api/vocabulary.js';
import type { MutatingVerb } from '../grammar/command.js';
import { handlerOf } from '../verbs/handlers.js';
import type { Outcome } from '../verbs/verb-handler.js';

export type { Outcome } from '../verbs/verb-handler.js';

const condition = (release: HelmRelease, type: string) => release.status?.conditions?.find((c) => c.type === type);

/**
 * Pure: has the controller acted on the intent yet, and how did it go? Read from status only:
 * what the controller reported, never what the bot assumes.
 */
export function outcomeOf(release: HelmRelease, verb: MutatingVerb, requestId?: string, liftedFreeze?: string): Outcome {
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const pending: Outcome = { done: false, succeeded: false, message: `${key}: waiting for the controller` };
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
  if (verb === 'freeze')
    // A Freeze is its own object and targets no release: done when written (the plan and the summary say what it holds).
    return { done: true, succeeded: true, message: `${key}: freeze written` };
  return handlerOf(verb).outcome(release, requestId, pending, key);
}
