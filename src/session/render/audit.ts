import type { MutatingCommand } from '../grammar/command.js';
import type { Actor } from '../plan/actor.js';

/** Pure: the audit lines (Events on the release, log, chat summary) for what someone asked and was refused. */

const who = (actor: Actor) => `${actor.id}${actor.channel ? ` in ${actor.channel}` : ''}`;

export function auditMessage(command: MutatingCommand, actor: Actor, key: string, breakGlass?: { freezes: string[]; approvedBy: string }): string {
  const what =
    command.verb === 'rollback'
      ? `rollback of ${key} to ${command.revision ?? 'the previous revision'}`
      : command.verb === 'upgrade'
        ? `upgrade of ${key} to ${command.version}`
        : command.verb === 'correct'
          ? `drift correction of ${key}`
          : command.verb === 'retry'
            ? `forced retry of ${key}`
            : `${command.verb} of ${key}`;
  const glass = breakGlass ? ` (BREAK-GLASS through freeze ${breakGlass.freezes.join(', ')}, approved by ${breakGlass.approvedBy})` : '';
  return `${who(actor)} asked for the ${what}${glass}${command.reason ? `: ${command.reason}` : ''}`;
}

export function refusalMessage(actor: Actor, what: string, why: string): string {
  return `${who(actor)} was refused ${what}: ${why}`;
}
