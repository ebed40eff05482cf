import type { CommandOf, MutatingCommand } from '../grammar/command.js';
import type { SingleReleaseVerb } from '../plan/verb-kinds.js';
import { handlerOf } from '../verbs/handlers.js';
import type { ReleaseVerbHandler } from '../verbs/verb-handler.js';
import type { Actor } from '../plan/actor.js';

/** Pure: the audit lines (Events on the release, log, chat summary) for what someone asked and was refused. */

/** "via web", and "via an assistant" (web/views/timeline.ts reads both back, and the older "via assistant"). */
const who = (actor: Actor) =>
  `${actor.id}${actor.channel ? ` in ${actor.channel}` : ''}${actor.via ? ` via ${actor.via === 'assistant' ? 'an assistant' : actor.via}` : ''}`;

export function auditMessage(command: MutatingCommand, actor: Actor, key: string, breakGlass?: { freezes: string[]; approvedBy: string }): string {
  const handler = command.verb === 'freeze' || command.verb === 'unfreeze' ? undefined : (handlerOf(command.verb) as ReleaseVerbHandler<SingleReleaseVerb>);
  const what = handler?.audit?.(command as CommandOf<SingleReleaseVerb>, key) ?? `${command.verb} of ${key}`;
  const glass = breakGlass ? ` (BREAK-GLASS through freeze ${breakGlass.freezes.join(', ')}, approved by ${breakGlass.approvedBy})` : '';
  return `${who(actor)} asked for the ${what}${glass}${command.reason ? `: ${command.reason}` : ''}`;
}

export function refusalMessage(actor: Actor, what: string, why: string): string {
  return `${who(actor)} was refused ${what}: ${why}`;
}
