import { ConfigError } from '../../../core/config/env.js';
import { PermanentDeliveryError, RetryableDeliveryError, type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import { originOf, parseRetryAfter, webhookVerdict, type SigningKeys } from '../webhook.js';
import { DEFAULT_URL_KEY, postsCard, teamsMessage } from './card.js';

type MSTeamsRef = Extract<ChannelRef, { kind: 'msteams' }>;

export interface MSTeamsConfig {
  /** HELMCREW_STATUS_URL: where a card's link points, with `{namespace}` and `{name}`; no link without it. */
  statusUrl?: string;
  cluster?: string;
}

export function readMSTeamsConfig(env: Record<string, string | undefined>): MSTeamsConfig {
  const statusUrl = env.HELMCREW_STATUS_URL?.trim() || undefined;
  if (statusUrl && !/^https?:\/\/[^\s]+$/.test(statusUrl)) throw new ConfigError(`HELMCREW_STATUS_URL must be an http(s) URL, got "${statusUrl}"`);
  return { statusUrl, cluster: env.HELMCREW_CLUSTER_NAME?.trim() || undefined };
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
    const url = (await this.keys.read(channel.secretRef, DEFAULT_URL_KEY))?.toString('utf8').trim();
    if (!url) {
      const { namespace = 'default', name, key = DEFAULT_URL_KEY } = channel.secretRef;
      throw new PermanentDeliveryError('secret_not_found', `the Workflows webhook URL (Secret ${namespace}/${name}, key ${key}) does not exist`);
    }
    if (!/^https?:\/\/[^\s]+$/.test(url)) throw new PermanentDeliveryError('invalid_url', 'the Workflows webhook URL in the Secret is not an http(s) URL');
    const origin = originOf(url);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { 'content-type': 'application/json', 'user-agent': 'helmcrew-notify' },
        body: JSON.stringify(teamsMessage(notification, this.config.statusUrl, this.config.cluster)),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new RetryableDeliveryError(`could not reach ${origin}: ${cause}`);
    }
    await response.body?.cancel().catch(() => undefined);
    switch (webhookVerdict(response.status)) {
      case 'delivered':
        return;
      case 'retry':
        throw new RetryableDeliveryError(`${origin} answered ${response.status}`, parseRetryAfter(response.headers.get('retry-after'), this.now()));
      case 'refused':
        throw new PermanentDeliveryError(`http_${response.status}`, `${origin} refused the card with HTTP ${response.status}`);
    }
  }
}
