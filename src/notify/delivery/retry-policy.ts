/** Delivery attempts per drain job: with the backoff below, about two hours before it waits for the next notification. */
export const DELIVERY_ATTEMPTS = 30;

const MAX_RETRY_AFTER_MS = 15 * 60_000;

/**
 * Backoff for a failed delivery: what the server asked for (Retry-After, capped at 15 min), else
 * 1 s, 2 s, 4 s … capped at 5 minutes. Pure.
 */
export function deliveryRetryDelayMs(attemptsMade: number, retryAfterMs?: number, baseMs = 1000, capMs = 5 * 60_000): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const exponent = Math.max(0, attemptsMade - 1);
  return Math.min(capMs, baseMs * 2 ** Math.min(exponent, 20));
}
