/** Backoff for a failed reconcile: 1 s, 2 s, 4 s … capped at a minute. Pure. */
export function retryDelayMs(attemptsMade: number, baseMs = 1000, capMs = 60_000): number {
  const exponent = Math.max(0, attemptsMade - 1);
  return Math.min(capMs, baseMs * 2 ** Math.min(exponent, 16));
}

/** How many times one queued reconcile is tried before it waits for the next periodic check. */
export const RECONCILE_ATTEMPTS = 8;
