/** Delivery attempts per drain job by default (HELMCREW_NOTIFY_DELIVERY_ATTEMPTS): with the backoff below, about two hours before it waits for the next notification. */
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

/** How long a drain job may keep obeying Retry-After without using attempts (then attempts count again). */
export const PACED_LIMIT_MS = 60 * 60_000;
const MIN_PACED_WAIT_MS = 1000;

/**
 * A server that answers "come back in N s" (Retry-After) is pacing us, not failing: the drain job
 * waits as asked without using one of its attempts. Otherwise a busy workspace (Slack's chat.update
 * allows ~50 calls a minute for the whole workspace) would burn a job's 30 attempts in a minute of
 * 2 s waits and leave the notification stuck. At least 1 s (a Retry-After of 0 must not spin), at
 * most 15 min; after an hour of pacing in a row the normal attempts count again, so a server that
 * only ever answers Retry-After cannot hold a mailbox forever. Pure.
 */
export function pacedWait(retryAfterMs: number | undefined, pacedSince: number | undefined, now: number): { waitMs: number; pacedSince: number } | undefined {
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) return undefined;
  const since = pacedSince ?? now;
  if (now - since >= PACED_LIMIT_MS) return undefined;
  return { waitMs: Math.min(Math.max(retryAfterMs, MIN_PACED_WAIT_MS), MAX_RETRY_AFTER_MS), pacedSince: since };
}
