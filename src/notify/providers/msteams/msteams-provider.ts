import { ConfigError, SHARED_ENV } from '../../../core/config/env.js';
import { NOTIFY_ENV } from '../../config.js';
import { PermanentDeliveryError, type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import { postForDelivery, type SigningKeys } from '../webhook.js';
import { DEFAULT_URL_KEY, postsCard, teamsMessage } from './card.js';
import { channelSecretText } from '../channel-secret.js';

type MSTeamsRef = Extract<ChannelRef, { kind: 'msteams' }>;

export interface MSTeamsConfig {
  /** HELMCREW_STATUS_URL: where a card's link points, with `{namespace}` and `{name}`; no link without it. */
  statusUrl?: string;
  cluster?: string;
}

export function readMSTeamsConfig(env: Record<string, string | undefined>): MSTeamsConfig {
  const vars = NOTIFY_ENV.in(env);
  const statusUrl = vars.raw('HELMCREW_STATUS_URL')?.trim() || undefined;
  if (statusUrl && !/^https?:\/\/[^\s]+$/.test(statusUrl)) throw new ConfigError(`HELMCREW_STATUS_URL must be an http(s) URL, got "${statusUrl}"`);
  return { statusUrl, cluster: SHARED_ENV.in(env).raw('HELMCREW_CLUSTER_NAME')?.trim() || undefined };
}

/**
 * Microsoft Teams through a Workflows webhook ("When a Teams webhook request is received"): the
 * webhook's URL is a credential, so it lives in a Secret and errors name only its origin.
 */
export class MSTeamsProvider implements NotificationProvider<MSTeamsRef> {
  readonly kind = 'msteams' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: MSTeamsConfig = {},
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: MSTeamsRef): Promise<void> {
    if (!postsCard(notification)) return;
    const url = await channelSecretText(this.keys, channel.secretRef, DEFAULT_URL_KEY, 'the Workflows webhook URL');
    if (!/^https?:\/\/[^\s]+$/.test(url)) throw new PermanentDeliveryError('invalid_url', 'the Workflows webhook URL in the Secret is not an http(s) URL');
    await postForDelivery(url, {
      timeoutMs: this.timeoutMs,
      now: this.now,
      what: 'the card',
      headers: { 'content-type': 'application/json', 'user-agent': 'helmcrew-notify' },
      body: JSON.stringify(teamsMessage(notification, this.config.statusUrl, notification.cluster ?? this.config.cluster)),
    });
  }
}
