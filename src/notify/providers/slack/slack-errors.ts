/**
 * Slack Web API failures mapped to the delivery contract, by the WebClient's error class and
 * Slack's error code (never by message text). The notify queue owns retrying, so the WebClient
 * is built with retries off and rejectRateLimitedCalls: a 429 arrives here with Retry-After.
 */
import { ErrorCode, type WebAPIHTTPError, type WebAPIPlatformError, type WebAPIRateLimitedError, type WebAPIRequestError } from '@slack/web-api';
import { PermanentDeliveryError, RetryableDeliveryError } from '../../contract.js';

/** Codes that no retry can fix: the token, the workspace or the channel is wrong. */
export const PERMANENT_SLACK_CODES: ReadonlySet<string> = new Set([
  'not_authed',
  'invalid_auth',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
  'team_access_not_granted',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'ekm_access_denied',
]);

/** Codes Slack documents as transient: its own trouble, worth another try. */
export const TRANSIENT_SLACK_CODES: ReadonlySet<string> = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
  'rate_limited',
]);

export type SlackFailureKind = 'permanent' | 'retryable';

/** The decision alone, for a platform error code: permanent unless Slack calls it transient. */
export function classifySlackCode(code: string): SlackFailureKind {
  if (TRANSIENT_SLACK_CODES.has(code)) return 'retryable';
  // Unknown codes are deterministic answers about the request (invalid_blocks, msg_too_long, …):
  // retrying the same request would get the same answer.
  return 'permanent';
}

/** The Slack error code of a platform error (`{ok: false, error}`), if it is one. */
export function slackErrorCode(error: unknown): string | undefined {
  const coded = error as { code?: unknown; data?: { error?: unknown } } | null;
  if (coded?.code === ErrorCode.PlatformError && typeof coded.data?.error === 'string') return (error as WebAPIPlatformError).data.error;
  return undefined;
}

/**
 * A contract error for any failure of a Slack call. `secrets` (the token) are cut out of every
 * message, so no error text can carry them into logs or the Team's status.
 */
export function toDeliveryError(error: unknown, what: string, secrets: readonly string[] = []): PermanentDeliveryError | RetryableDeliveryError {
  const redact = (text: string) => secrets.filter(Boolean).reduce((t, s) => t.split(s).join('[redacted]'), text);
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case ErrorCode.PlatformError: {
      const slackCode = (error as WebAPIPlatformError).data.error;
      const message = redact(`Slack refused ${what}: ${slackCode}`);
      return classifySlackCode(slackCode) === 'permanent' ? new PermanentDeliveryError(slackCode, message) : new RetryableDeliveryError(message);
    }
    case ErrorCode.RateLimitedError: {
      const seconds = (error as WebAPIRateLimitedError).retryAfter;
      return new RetryableDeliveryError(redact(`Slack rate-limited ${what}; retry after ${seconds}s`), Math.max(0, seconds) * 1000);
    }
    case ErrorCode.HTTPError: {
      const status = (error as WebAPIHTTPError).statusCode;
      const message = redact(`Slack answered HTTP ${status} to ${what}`);
      if (status >= 500 || status === 408 || status === 429) return new RetryableDeliveryError(message);
      return new PermanentDeliveryError(`http_${status}`, message);
    }
    case ErrorCode.RequestError: {
      const original = (error as WebAPIRequestError).original;
      return new RetryableDeliveryError(redact(`could not reach Slack for ${what}: ${original?.message ?? 'request failed'}`));
    }
    default:
      // A 429 without a usable Retry-After, a timeout, anything unforeseen: try again later.
      return new RetryableDeliveryError(redact(`Slack call for ${what} failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}
