import { PermanentDeliveryError, RetryableDeliveryError, type ChannelRef, type NotificationProvider, type ReleaseNotification } from '../../contract.js';
import { postsCard, statusLink } from '../msteams/card.js';
import type { MSTeamsConfig } from '../msteams/msteams-provider.js';
import { originOf, parseRetryAfter, webhookVerdict, type SigningKeys } from '../webhook.js';
import { DEFAULT_URL_KEY, googleChatMessage, threadedWebhookUrl } from './message.js';
import { channelSecretText } from '../channel-secret.js';

type GoogleChatRef = Extract<ChannelRef, { kind: 'googlechat' }>;

/** The query values of a webhook URL (its `key` and `token`): kept out of every error text. Pure. */
export function urlSecrets(url: string): string[] {
  try {
    return [...new URL(url).searchParams.values()].filter((value) => value.length >= 8);
  } catch {
    return [];
  }
}

/** Google's error body `{error: {code, message, status}}`, short, without the URL's key or token. */
async function refusal(response: Response, secrets: string[]): Promise<string> {
  let text = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown; status?: unknown } };
    const status = typeof body.error?.status === 'string' ? body.error.status : undefined;
    const message = typeof body.error?.message === 'string' ? body.error.message : undefined;
    if (status || message) text = `${text} ${[status, message].filter(Boolean).join(': ')}`;
  } catch {
    // not JSON: the status says it
  }
  for (const secret of secrets) text = text.replaceAll(secret, '[redacted]');
  return text.slice(0, 500);
}

/**
 * Google Chat through a space's incoming webhook. The URL carries the webhook's key and token, so
 * it lives in a Secret and errors name only its origin. An operation is one card, posted with its
 * outcome (a webhook cannot edit a message, so `…Started` is not posted, as for Teams); every
 * message of a release goes into the release's thread (`thread.threadKey` with
 * `messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`). 400 is refused for good with
 * Google's reason; 429 and 5xx are retried (Google sends no Retry-After: notify backs off).
 * Config: HELMCREW_CLUSTER_NAME and HELMCREW_STATUS_URL, as Teams reads them.
 */
export class GoogleChatProvider implements NotificationProvider<GoogleChatRef> {
  readonly kind = 'googlechat' as const;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: MSTeamsConfig = {},
    private readonly timeoutMs = 10_000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async deliver(notification: ReleaseNotification, channel: GoogleChatRef): Promise<void> {
    if (!postsCard(notification)) return;
    const written = await channelSecretText(this.keys, channel.secretRef, DEFAULT_URL_KEY, 'the Google Chat webhook URL');
    const url = threadedWebhookUrl(written);
    if (!url) throw new PermanentDeliveryError('invalid_url', 'the Google Chat webhook URL in the Secret is not an http(s) URL');
    const origin = originOf(url);
    const message = googleChatMessage(notification, {
      statusUrl: statusLink(this.config.statusUrl, notification.release),
      cluster: notification.cluster ?? this.config.cluster,
    });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { 'content-type': 'application/json; charset=UTF-8', 'user-agent': 'helmcrew-notify' },
        body: JSON.stringify(message),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new RetryableDeliveryError(`could not reach Google Chat at ${origin}: ${cause}`);
    }
    switch (webhookVerdict(response.status)) {
      case 'delivered':
        await response.body?.cancel().catch(() => undefined);
        return;
      case 'retry':
        await response.body?.cancel().catch(() => undefined);
        throw new RetryableDeliveryError(
          `Google Chat at ${origin} answered ${response.status}`,
          parseRetryAfter(response.headers.get('retry-after'), this.now()),
        );
      case 'refused': {
        const code = response.status === 400 ? 'googlechat_invalid_message' : `http_${response.status}`;
        throw new PermanentDeliveryError(code, `Google Chat at ${origin} refused the card: ${await refusal(response, urlSecrets(written))}`);
      }
    }
  }
}
