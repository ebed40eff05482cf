import type { CoreClient } from '../../core/kube/kube-clients.js';
import { attributionLine } from './attribution.js';
import { isNotFound } from '../../core/kube/errors.js';
import {
  PermanentDeliveryError,
  RetryableDeliveryError,
  type ChannelRef,
  type NotificationProvider,
  type ReleaseNotification,
  type SecretRef,
} from '../contract.js';
import { signWebhookBody } from './webhook-signature.js';

type WebhookRef = Extract<ChannelRef, { kind: 'webhook' }>;

/** Reads a webhook's signing key; undefined when the Secret or key is missing. */
export interface SigningKeys {
  read(ref: SecretRef, defaultKey?: string): Promise<Buffer | undefined>;
}

export const DEFAULT_SECRET_KEY = 'key';

/** Keys from Kubernetes Secrets (webhook signing keys, PagerDuty routing keys), kept for `cacheMs` so a busy channel does not read its Secret per message. */
export class SecretSigningKeys implements SigningKeys {
  private readonly cache = new Map<string, { key: Buffer | undefined; until: number }>();

  constructor(
    private readonly core: Pick<CoreClient, 'readNamespacedSecret'>,
    private readonly cacheMs = 10_000,
  ) {}

  async read(ref: SecretRef, defaultKey = DEFAULT_SECRET_KEY): Promise<Buffer | undefined> {
    const namespace = ref.namespace ?? 'default';
    const dataKey = ref.key ?? defaultKey;
    const id = `${namespace}/${ref.name}/${dataKey}`;
    const hit = this.cache.get(id);
    if (hit && hit.until > Date.now()) return hit.key;
    let key: Buffer | undefined;
    try {
      const secret = await this.core.readNamespacedSecret({ namespace, name: ref.name });
      const encoded = secret.data?.[dataKey];
      key = encoded ? Buffer.from(encoded, 'base64') : undefined;
    } catch (error) {
      if (!isNotFound(error)) throw new RetryableDeliveryError(`could not read Secret ${namespace}/${ref.name}`);
    }
    this.cache.set(id, { key, until: Date.now() + this.cacheMs });
    return key;
  }
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. Pure. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now.getTime()) : undefined;
}

export type ResponseVerdict = 'delivered' | 'retry' | 'refused';

/** What an HTTP status means for a delivery: 2xx delivered; 408, 425, 429 and 5xx retry; any other refused. Pure. */
export function webhookVerdict(status: number): ResponseVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retry';
  return 'refused';
}

/** The JSON a webhook receives: the notification, the Team it is for, and who started it in words ("by @alice"). */
export function webhookBody(notification: ReleaseNotification, team: string): string {
  const startedBy = attributionLine(notification, 'plain');
  return JSON.stringify({ ...notification, team, ...(startedBy ? { startedBy } : {}) });
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

/**
 * The generic webhook: POSTs the notification as JSON, signed with the key from the channel's
 * Secret (see webhook-signature.ts). Errors name only the URL's origin (a path can carry a
 * token) and never the key.
 */
export class WebhookProvider implements NotificationProvider<WebhookRef> {
  readonly kind = 'webhook' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: WebhookRef, team: string): Promise<void> {
    const key = await this.keys.read(channel.secretRef);
    if (!key) {
      const { namespace = 'default', name, key: dataKey = DEFAULT_SECRET_KEY } = channel.secretRef;
      throw new PermanentDeliveryError('secret_not_found', `the signing key (Secret ${namespace}/${name}, key ${dataKey}) does not exist`);
    }
    const body = webhookBody(notification, team);
    const timestamp = Math.floor(this.now().getTime() / 1000);
    await postForDelivery(channel.url, {
      timeoutMs: this.timeoutMs,
      now: this.now,
      what: 'the delivery',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'helmcrew-notify',
        'x-helmcrew-delivery': notification.id,
        'x-helmcrew-event': notification.event,
        'x-helmcrew-timestamp': String(timestamp),
        'x-helmcrew-signature': signWebhookBody(key, timestamp, body),
      },
      body,
    });
  }
}

/**
 * One POST of a notification to an HTTP endpoint, answered as webhooks are: 2xx delivered, 429
 * and 5xx retried (after Retry-After when given), any other status refused. Errors name only the
 * URL's origin: the URL may be a credential.
 */
export async function postForDelivery(
  url: string,
  opts: { timeoutMs: number; now: () => Date; what: string; headers: Record<string, string>; body: string },
): Promise<void> {
  const origin = originOf(url);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(opts.timeoutMs), headers: opts.headers, body: opts.body });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new RetryableDeliveryError(`could not reach ${origin}: ${cause}`);
  }
  await response.body?.cancel().catch(() => undefined);
  switch (webhookVerdict(response.status)) {
    case 'delivered':
      return;
    case 'retry':
      throw new RetryableDeliveryError(`${origin} answered ${response.status}`, parseRetryAfter(response.headers.get('retry-after'), opts.now()));
    case 'refused':
      throw new PermanentDeliveryError(`http_${response.status}`, `${origin} refused ${opts.what} with HTTP ${response.status}`);
  }
}
