import { createHash } from 'node:crypto';
import type { TeamChannel } from '../api/team.js';
import type { ChannelRef, SecretRef } from './contract.js';
import { DEFAULT_URL_KEY } from './providers/msteams/card.js';
import { DEFAULT_TOKEN_KEY } from './providers/alertmanager/alert.js';
import { DEFAULT_URL_KEY as GOOGLECHAT_URL_KEY } from './providers/googlechat/message.js';
import { DEFAULT_TOKEN_KEY as INCIDENTIO_TOKEN_KEY } from './providers/incidentio/alert-event.js';
import { DEFAULT_ROUTING_KEY } from './providers/pagerduty/event.js';

/** The contract's ChannelRef for a channel as written in a Team (undefined for a malformed one the API server let through). */
export function channelRefOf(channel: TeamChannel): ChannelRef | undefined {
  const kinds = [channel.slack, channel.webhook, channel.pagerduty, channel.msteams, channel.alertmanager, channel.incidentio, channel.googlechat].filter(
    (set) => set !== undefined,
  ).length;
  if (kinds !== 1) return undefined;
  if (channel.slack !== undefined) return { kind: 'slack', channel: channel.slack };
  if (channel.webhook !== undefined) return { kind: 'webhook', url: channel.webhook.url, secretRef: channel.webhook.secretRef };
  if (channel.pagerduty !== undefined) return { kind: 'pagerduty', secretRef: channel.pagerduty.secretRef };
  if (channel.msteams !== undefined) return { kind: 'msteams', secretRef: channel.msteams.secretRef };
  if (channel.alertmanager !== undefined)
    return { kind: 'alertmanager', url: channel.alertmanager.url, ...(channel.alertmanager.secretRef ? { secretRef: channel.alertmanager.secretRef } : {}) };
  if (channel.incidentio !== undefined) return { kind: 'incidentio', url: channel.incidentio.url, secretRef: channel.incidentio.secretRef };
  if (channel.googlechat !== undefined) return { kind: 'googlechat', secretRef: channel.googlechat.secretRef };
  return undefined;
}

/** `namespace/name#key` of a Secret key: names only, never its value. */
const secretName = (ref: SecretRef, defaultKey: string) => `${ref.namespace ?? 'default'}/${ref.name}#${ref.key ?? defaultKey}`;

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
    case 'pagerduty':
      return `pagerduty.${digest(secretName(ref.secretRef, DEFAULT_ROUTING_KEY))}`;
    case 'msteams':
      return `msteams.${digest(secretName(ref.secretRef, DEFAULT_URL_KEY))}`;
    case 'alertmanager':
      return `alertmanager.${digest(`${ref.url}|${ref.secretRef ? secretName(ref.secretRef, DEFAULT_TOKEN_KEY) : ''}`)}`;
    case 'incidentio':
      return `incidentio.${digest(`${ref.url}|${secretName(ref.secretRef, INCIDENTIO_TOKEN_KEY)}`)}`;
    case 'googlechat':
      return `googlechat.${digest(secretName(ref.secretRef, GOOGLECHAT_URL_KEY))}`;
  }
}

/** How a channel is named in status and logs: the Slack channel, a webhook's (Alertmanager's, incident.io's) origin and URL digest, the Secret a PagerDuty, Teams or Google Chat channel reads. */
export function channelLabel(ref: ChannelRef): string {
  switch (ref.kind) {
    case 'slack':
      return ref.channel;
    case 'webhook':
      return `webhook ${safeOrigin(ref.url)} #${digest(ref.url)}`;
    case 'pagerduty':
      return `pagerduty (Secret ${secretName(ref.secretRef, DEFAULT_ROUTING_KEY)})`;
    case 'msteams':
      return `msteams (Secret ${secretName(ref.secretRef, DEFAULT_URL_KEY)})`;
    case 'alertmanager':
      return `alertmanager ${safeOrigin(ref.url)} #${digest(ref.url)}`;
    case 'incidentio':
      return `incidentio ${safeOrigin(ref.url)} #${digest(ref.url)}`;
    case 'googlechat':
      return `googlechat (Secret ${secretName(ref.secretRef, GOOGLECHAT_URL_KEY)})`;
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
