import { createHash } from 'node:crypto';
import type { TeamChannel } from '../api/team.js';
import type { ChannelRef } from './contract.js';

/** The contract's ChannelRef for a channel as written in a Team (undefined for a malformed one the API server let through). */
export function channelRefOf(channel: TeamChannel): ChannelRef | undefined {
  if (channel.slack !== undefined && channel.webhook === undefined) return { kind: 'slack', channel: channel.slack };
  if (channel.webhook !== undefined && channel.slack === undefined) {
    return { kind: 'webhook', url: channel.webhook.url, secretRef: channel.webhook.secretRef };
  }
  return undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * A stable key for a channel, safe for Redis keys and logs: a webhook URL can carry a token in
 * its path or query, so webhooks are keyed by a digest of the URL, never the URL itself.
 */
export function channelKey(ref: ChannelRef): string {
  switch (ref.kind) {
    case 'slack':
      return `slack.${ref.channel}`;
    case 'webhook':
      return `webhook.${digest(ref.url)}`;
  }
}

/** How a channel is named in status and logs: the Slack channel, or a webhook's origin and URL digest. */
export function channelLabel(ref: ChannelRef): string {
  switch (ref.kind) {
    case 'slack':
      return ref.channel;
    case 'webhook':
      return `webhook ${safeOrigin(ref.url)} #${digest(ref.url)}`;
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
