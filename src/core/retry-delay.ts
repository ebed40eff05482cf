/** Backoff for a failed attempt: `baseMs`, doubling, capped at `capMs`. Pure; the controller's queue and the kept watches share it. */
export function retryDelayMs(attemptsMade: number, baseMs = 1000, capMs = 60_000): number {
  const exponent = Math.max(0, attemptsMade - 1);
  return Math.min(capMs, baseMs * 2 ** Math.min(exponent, 16));
}
