import { PermanentDeliveryError, RetryableDeliveryError, type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import type { MSTeamsConfig } from '../msteams/msteams-provider.js';
import { statusLink } from '../msteams/card.js';
import { originOf, parseRetryAfter, webhookVerdict, type SigningKeys } from '../webhook.js';
import { DEFAULT_TOKEN_KEY, incidentIoEvent } from './alert-event.js';
import { channelSecretText } from '../channel-secret.js';

type IncidentIoRef = Extract<ChannelRef, { kind: 'incidentio' }>;

/** incident.io's error body: `{type, status, request_id, errors: [{code, message, source?: {field}}], rate_limit?: {retry_after}}`. */
interface ErrorBody {
  type?: unknown;
  errors?: { code?: unknown; message?: unknown; source?: { field?: unknown } }[];
  rate_limit?: { retry_after?: unknown };
}

async function errorBody(response: Response): Promise<ErrorBody> {
  try {
    return (await response.json()) as ErrorBody;
  } catch {
    return {};
  }
}

/** What incident.io said, short, and never with the token in it. Pure. */
export function refusalText(body: ErrorBody, token: string): string {
  const errors = Array.isArray(body.errors)
    ? body.errors
        .map((e) => {
          const said = typeof e.message === 'string' ? e.message : typeof e.code === 'string' ? e.code : '';
          return said && typeof e.source?.field === 'string' ? `${e.source.field}: ${said}` : said;
        })
        .filter(Boolean)
    : [];
  const text = [typeof body.type === 'string' ? body.type : 'refused', ...errors].join(': ');
  return (token ? text.replaceAll(token, '[token]') : text).slice(0, 500);
}

/** A permanent refusal's stable code: the token (401/403), the event (400/422), else the status. Pure. */
export function refusalCode(status: number): string {
  if (status === 401 || status === 403) return 'incidentio_unauthorized';
  if (status === 400 || status === 422) return 'incidentio_invalid_event';
  return `http_${status}`;
}

/**
 * incident.io through an HTTP alert source (Alert Events API v2): a release's failure fires its
 * alert, later failures update it, its recovery resolves it (alert-event.ts decides). The source's
 * URL is on the channel; its bearer token is read from the channel's Secret and goes nowhere but
 * the Authorization header. 429 waits for Retry-After (the header, else the body's
 * `rate_limit.retry_after`). Config: HELMCREW_CLUSTER_NAME and HELMCREW_STATUS_URL, as Teams reads them.
 */
export class IncidentIoProvider implements NotificationProvider<IncidentIoRef> {
  readonly kind = 'incidentio' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: MSTeamsConfig = {},
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: IncidentIoRef): Promise<void> {
    const cluster = notification.cluster ?? this.config.cluster;
    const event = incidentIoEvent(notification, { cluster, statusUrl: statusLink(this.config.statusUrl, notification.release) });
    if (!event) return; // neither a failure nor a recovery: nothing for incident.io
    const token = await channelSecretText(this.keys, channel.secretRef, DEFAULT_TOKEN_KEY, 'the incident.io token');
    const origin = originOf(channel.url);
    let response: Response;
    try {
      response = await fetch(channel.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { 'content-type': 'application/json', 'user-agent': 'helmcrew-notify', authorization: `Bearer ${token}` },
        body: JSON.stringify(event),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new RetryableDeliveryError(`could not reach incident.io at ${origin}: ${cause}`);
    }
    const verdict = webhookVerdict(response.status);
    if (verdict === 'delivered') {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    const body = await errorBody(response);
    if (verdict === 'retry') {
      const retryAfter =
        parseRetryAfter(response.headers.get('retry-after'), this.now()) ??
        (typeof body.rate_limit?.retry_after === 'string' ? parseRetryAfter(body.rate_limit.retry_after, this.now()) : undefined);
      throw new RetryableDeliveryError(`incident.io at ${origin} answered ${response.status}`, retryAfter);
    }
    throw new PermanentDeliveryError(
      refusalCode(response.status),
      `incident.io at ${origin} refused the ${event.status} event with HTTP ${response.status}: ${refusalText(body, token)}`,
    );
  }
}
