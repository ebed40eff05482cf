// The one polling loop of the harness: read until the answer is there or the time is up.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  timeoutMs: number;
  /** Pause between reads; 250 ms unless said otherwise. */
  intervalMs?: number;
  /** Called before every read (a test samples memory there, say). */
  onTick?: () => void;
}

/**
 * Calls `read` until it returns something other than `undefined`, and returns that. When the time
 * is up it throws, with `describe()` saying what was last seen.
 */
export async function pollUntil<T>(read: () => Promise<T | undefined>, opts: PollOptions, describe: () => string): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    opts.onTick?.();
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() >= deadline) throw new Error(describe());
    await sleep(opts.intervalMs ?? 250);
  }
}
