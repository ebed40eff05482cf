import { Counter, Histogram, type Registry } from 'prom-client';
import { actionLabel } from '../../core/slack/action-ids.js';
import { parseReleaseCommand } from '../../session/grammar/parse.js';

/** Pure: the verb label of a typed request: the parsed verb, or 'invalid' when it does not parse. */
export function commandVerb(text: string): string {
  const parsed = parseReleaseCommand(text);
  return parsed.ok ? parsed.command.verb : 'invalid';
}

/** Pure: the verb label of a button: 'confirm', 'rollback'… or 'other' for an id that is not in core/slack's closed set. */
export function buttonVerb(actionId: string): string {
  return actionLabel(actionId) ?? 'other';
}

export type CommandOutcome = 'handled' | 'error';

const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The bot's metrics: per verb and outcome, never per user, channel or release. */
export class BotMetrics {
  private readonly commands: Counter<'verb' | 'outcome' | 'via'>;
  private readonly ack: Histogram<'via'>;

  constructor(registry: Registry) {
    this.commands = new Counter({
      name: 'helmcrew_bot_commands_total',
      help: 'Chat requests handled, by verb, outcome (handled, error) and how they came (command, mention, button).',
      labelNames: ['verb', 'outcome', 'via'],
      registers: [registry],
    });
    this.ack = new Histogram({
      name: 'helmcrew_bot_ack_duration_seconds',
      help: "From the listener's start to Slack's ack sent (Slack allows 3 s), by how the request came.",
      labelNames: ['via'],
      buckets: ACK_BUCKETS,
      registers: [registry],
    });
  }

  acked(via: string, seconds: number): void {
    this.ack.observe({ via }, seconds);
  }

  handled(verb: string, via: string, outcome: CommandOutcome): void {
    this.commands.inc({ verb, outcome, via });
  }
}
