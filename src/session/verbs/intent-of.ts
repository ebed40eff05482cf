import type { IntentPatch } from '../../core/kube/helmrelease-api.js';
import type { Actor } from '../plan/actor.js';
import type { PreparedAction } from '../plan/prepared.js';
import type { SingleReleaseVerb } from '../plan/verb-kinds.js';
import { handlerOf } from './handlers.js';
import type { IntentInput, ReleaseVerbHandler } from './verb-handler.js';

/** Pure: the patch that carries out a confirmed release action, written by its verb's handler; `requestId` is set for the verbs whose row names a prefix. Freezes are objects of their own, not patches. */
export function intentPatch(action: PreparedAction, actor: Actor, now: Date, requestId: string | undefined): IntentPatch {
  const command = action.command;
  if (command.verb === 'freeze' || command.verb === 'unfreeze') throw new Error(`${command.verb} writes a Freeze, not a HelmRelease patch`);
  const input = { command, actor, now, requestId } as IntentInput<SingleReleaseVerb>;
  return (handlerOf(command.verb) as ReleaseVerbHandler<SingleReleaseVerb>).intent(input);
}
