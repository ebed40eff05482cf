import type { RedisConnection } from '../../core/redis.js';
import type { Freeze } from '../../api/freeze.js';
import type { Logger } from '../../core/log.js';
import { escapeMrkdwn } from '../../core/slack/mrkdwn.js';
import { describeScope, messageRefOf } from '../../session/plan/freeze.js';
import { heldInWindow, noticeKey, windowNotices, type WindowNotice } from '../../session/plan/window-notices.js';
import type { SlackMessage } from './blocks.js';
import type { ChannelPoster } from './channel-progress.js';

/** Claims outlive any window's news (plan/window-notices.ts) and then clean themselves up. */
const KEEP_SECONDS = 7 * 24 * 3600;

/**
 * The windows of freezes set from Slack, told in their channel: each opening `--warn` ahead, each
 * close with what it held. Runs in the freeze sweep, on every replica; a SET NX claim per notice
 * tells each once.
 */
export class WindowAnnouncer {
  constructor(private readonly deps: { redis: RedisConnection; prefix: string; poster: ChannelPoster; log: Logger }) {}

  async look(freezes: readonly Freeze[], now: Date): Promise<void> {
    for (const freeze of freezes) {
      const ref = messageRefOf(freeze);
      const uid = freeze.metadata.uid;
      if (!ref || !uid) continue;
      for (const notice of windowNotices(freeze, now)) {
        const claimed = await this.deps.redis.set(`${this.deps.prefix}:bot:freeze:window:${noticeKey(uid, notice)}`, '1', 'EX', KEEP_SECONDS, 'NX');
        if (claimed !== 'OK') continue;
        await this.deps.poster.post(ref.channel, windowMessage(freeze, notice));
        this.deps.log.info({ freeze: freeze.metadata.name, notice: notice.kind, start: notice.start.toISOString() }, 'freeze window told in its channel');
      }
    }
  }
}

/** Pure: the channel message of a window opening soon or just closed. */
export function windowMessage(freeze: Freeze, notice: WindowNotice): SlackMessage {
  const name = `Freeze ${escapeMrkdwn(freeze.metadata.name)} (${escapeMrkdwn(freeze.spec.reason)})`;
  const span = `${notice.start.toISOString()} – ${notice.end.toISOString()}`;
  if (notice.kind === 'opening') {
    const text = `:lock: ${name} opens a window at ${notice.start.toISOString()} until ${notice.end.toISOString()}: no helm action for ${escapeMrkdwn(describeScope(freeze.spec.scope))} while it is open`;
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
  }
  const { releases, more } = heldInWindow(freeze.status?.held, notice.start);
  const held = releases.length
    ? `It held ${releases.map((r) => `${escapeMrkdwn(r.release)} (${escapeMrkdwn(r.action)})`).join(', ')}${more ? ` and ${more} more` : ''}; they go on now.`
    : 'It held no release.';
  const text = `:unlock: ${name}: the window ${span} closed. ${held}`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
