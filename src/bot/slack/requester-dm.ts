import type { RedisConnection } from '../../core/redis.js';
import { safeText } from '../../core/slack/mrkdwn.js';
import type { Logger } from '../../core/log.js';
import type { Outcome } from '../../session/execute/outcome.js';
import type { SlackMessage } from './blocks.js';

/**
 * Telling the person who started an action how it ended, in a direct message with a link to the
 * channel's audit message. On by default; `/release notify off` turns it off for that person.
 */

/** Slack's side: a link to a message (chat.getPermalink) and a direct message (conversations.open + chat.postMessage). */
export interface DirectMessages {
  permalink(channel: string, ts: string): Promise<string | undefined>;
  send(user: string, message: SlackMessage): Promise<void>;
}

/** Who said `/release notify off`: kept in Redis without expiry, per Slack user. */
export class DmPreferences {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
  ) {}

  private key(user: string): string {
    return `${this.prefix}:bot:dm-off:${user}`;
  }

  async set(user: string, setting: 'on' | 'off'): Promise<void> {
    if (setting === 'off') await this.redis.set(this.key(user), '1');
    else await this.redis.del(this.key(user));
  }

  async wantsDm(user: string): Promise<boolean> {
    return (await this.redis.exists(this.key(user))) === 0;
  }
}

/** Pure: the direct message: the outcome, each release's report, and where the channel saw it. */
export function outcomeDm(title: string, outcomes: readonly Outcome[], permalink: string | undefined): SlackMessage {
  const ok = outcomes.length > 0 && outcomes.every((o) => o.done && o.succeeded);
  const pending = outcomes.some((o) => !o.done);
  const state = ok ? ':white_check_mark: done' : pending ? ':hourglass: no report yet' : ':x: not done';
  const head = `${state}: ${safeText(title, 200)}`;
  const lines = outcomes.map((o) => `• ${safeText(o.message, 500)}`).slice(0, 20);
  // Slack shows a link as <url|label>; the permalink is Slack's own answer.
  const link = permalink && /^https:\/\/[^\s|<>]+$/.test(permalink) ? `<${permalink}|the channel's message>` : undefined;
  const text = [head, ...lines, ...(link ? [`See ${link}.`] : [])].join('\n');
  return {
    text: safeText(`${ok ? 'Done' : pending ? 'No report yet' : 'Not done'}: ${title}`, 300),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

export interface RequesterDmDeps {
  direct: DirectMessages;
  preferences: Pick<DmPreferences, 'wantsDm'>;
  log: Logger;
}

/** Sends the direct message unless the person turned it off; a failure is logged: the channel has the outcome anyway. */
export async function tellRequester(
  deps: RequesterDmDeps,
  user: string,
  where: { channel: string; ts: string },
  title: string,
  outcomes: readonly Outcome[],
): Promise<void> {
  try {
    if (!(await deps.preferences.wantsDm(user))) return;
    const permalink = await deps.direct.permalink(where.channel, where.ts).catch(() => undefined);
    await deps.direct.send(user, outcomeDm(title, outcomes, permalink));
  } catch (error) {
    deps.log.warn({ actor: `slack:${user}`, error: (error as Error).message }, 'could not tell the requester directly');
  }
}
