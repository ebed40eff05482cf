import { ConfigError, SHARED_ENV } from '../../../core/config/env.js';
import { NOTIFY_ENV } from '../../config.js';
import { PermanentDeliveryError, RetryableDeliveryError, type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import { originOf, parseRetryAfter, webhookVerdict, type SigningKeys } from '../webhook.js';
import { DEFAULT_ROUTING_KEY, pagerdutyEvent } from './event.js';
import { channelSecretText } from '../channel-secret.js';

type PagerDutyRef = Extract<ChannelRef, { kind: 'pagerduty' }>;

export const DEFAULT_PAGERDUTY_URL = NOTIFY_ENV.fallback('HELMCREW_PAGERDUTY_URL');

export interface PagerDutyConfig {
  /** The Events API v2 enqueue endpoint (HELMCREW_PAGERDUTY_URL, for a proxy or the local fake). */
  url: string;
  /** HELMCREW_CLUSTER_NAME: part of the incident's key, source and summary. */
  cluster?: string;
}

export function readPagerDutyConfig(env: Record<string, string | undefined>): PagerDutyConfig {
  const vars = NOTIFY_ENV.in(env);
  const url = vars.raw('HELMCREW_PAGERDUTY_URL')?.trim() || DEFAULT_PAGERDUTY_URL;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError(`HELMCREW_PAGERDUTY_URL must be an http(s) URL, got "${url}"`);
  return { url, cluster: SHARED_ENV.in(env).raw('HELMCREW_CLUSTER_NAME')?.trim() || undefined };
}

/** PagerDuty's 400 says what is wrong in `errors`; kept short, and never with the routing key in it. */
async function refusal(response: Response, routingKey: string): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(body.errors) ? body.errors.map(String).join('; ') : '';
    return `${typeof body.message === 'string' ? body.message : 'invalid event'}${errors ? `: ${errors}` : ''}`
      .replaceAll(routingKey, '[routing key]')
      .slice(0, 500);
  } catch {
    return 'invalid event';
  }
}

/**
 * PagerDuty Events API v2: a release's failure triggers its incident, later failures add to it,
 * its recovery resolves it (event.ts decides). The routing key is read from the channel's Secret
 * for each call (cached briefly) and goes nowhere but the request's routing_key.
 */
export class PagerDutyProvider implements NotificationProvider<PagerDutyRef> {
  readonly kind = 'pagerduty' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: PagerDutyConfig,
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: PagerDutyRef): Promise<void> {
    const routingKey = await channelSecretText(this.keys, channel.secretRef, DEFAULT_ROUTING_KEY, 'the routing key');
    const event = pagerdutyEvent(notification, routingKey, notification.cluster ?? this.config.cluster);
    if (!event) return; // neither a failure nor a recovery: nothing for PagerDuty
    const origin = originOf(this.config.url);
    let response: Response;
    try {
      response = await fetch(this.config.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { 'content-type': 'application/json', 'user-agent': 'helmcrew-notify' },
        body: JSON.stringify(event),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new RetryableDeliveryError(`could not reach PagerDuty at ${origin}: ${cause}`);
    }
    const verdict = webhookVerdict(response.status);
    if (verdict === 'refused') {
      const code = response.status === 400 ? 'pagerduty_invalid_event' : `http_${response.status}`;
      throw new PermanentDeliveryError(
        code,
        `PagerDuty refused the ${String(event.event_action)} event with HTTP ${response.status}: ${await refusal(response, routingKey)}`,
      );
    }
    await response.body?.cancel().catch(() => undefined);
    if (verdict === 'retry') {
      throw new RetryableDeliveryError(`PagerDuty answered ${response.status}`, parseRetryAfter(response.headers.get('retry-after'), this.now()));
    }
  }
}
