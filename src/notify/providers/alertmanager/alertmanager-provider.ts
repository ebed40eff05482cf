import { type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import type { MSTeamsConfig } from '../msteams/msteams-provider.js';
import { statusLink } from '../msteams/card.js';
import { postForDelivery, type SigningKeys } from '../webhook.js';
import { alertsFor, DEFAULT_TOKEN_KEY } from './alert.js';
import { channelSecretText } from '../channel-secret.js';

type AlertmanagerRef = Extract<ChannelRef, { kind: 'alertmanager' }>;

/** The v2 API's alerts endpoint under an Alertmanager's base URL (which may carry a path prefix, --web.route-prefix). */
export function alertsEndpoint(base: string): string {
  return `${base.replace(/\/+$/, '')}/api/v2/alerts`;
}

/**
 * Alertmanager as a destination: a release's failure fires its alert (`HelmReleaseFailed`, labelled
 * with cluster, namespace and release), its recovery resolves it, and the organisation's own
 * Alertmanager routes decide who hears it (alert.ts decides what is sent). An optional bearer
 * token (behind an authenticating proxy) is read from the channel's Secret and sent nowhere else.
 * Config: HELMCREW_CLUSTER_NAME and HELMCREW_STATUS_URL, as Teams reads them.
 */
export class AlertmanagerProvider implements NotificationProvider<AlertmanagerRef> {
  readonly kind = 'alertmanager' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: MSTeamsConfig = {},
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: AlertmanagerRef): Promise<void> {
    const statusUrl = statusLink(this.config.statusUrl, notification.release);
    const alerts = alertsFor(notification, { cluster: this.config.cluster, statusUrl, now: this.now() });
    if (!alerts) return; // neither a failure nor a recovery: nothing for Alertmanager
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'helmcrew-notify' };
    if (channel.secretRef) {
      const token = await channelSecretText(this.keys, channel.secretRef, DEFAULT_TOKEN_KEY, 'the Alertmanager token');
      headers.authorization = `Bearer ${token}`;
    }
    await postForDelivery(alertsEndpoint(channel.url), {
      timeoutMs: this.timeoutMs,
      now: this.now,
      what: alerts[0]!.annotations ? 'the firing alert' : 'the resolved alert',
      headers,
      body: JSON.stringify(alerts),
    });
  }
}
