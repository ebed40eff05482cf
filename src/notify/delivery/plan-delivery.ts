import type { ReleaseNotification } from '../contract.js';

/** What was last delivered on a mailbox (one release on one channel of one team). */
export interface LastDelivered {
  id: string;
  event: string;
  operationId: string;
  /** The delivered notification's own time, ms. */
  atMs: number;
}

export type DeliveryPlan =
  | { kind: 'idle' }
  /** Deliver `notification`; `consume` (its id and the earlier states it supersedes) leave the mailbox once done. */
  | { kind: 'deliver'; notification: ReleaseNotification; consume: string[] }
  /** Nothing new to say: the same event of the same operation was delivered within the window. */
  | { kind: 'suppress'; notification: ReleaseNotification; consume: string[] };

/**
 * Decides the next delivery of a mailbox from what waits in it, oldest first. Pure.
 *
 * - The head and the states right behind it of the same operation collapse into the latest one
 *   (upgrading → failed while the channel's rate limit held us back: say "failed" once; a
 *   provider that edits one message per operation then shows the latest state, never an older).
 * - The same event of the same operation as the last delivery, within `windowMs`, is suppressed
 *   (ChartPullFailed retried with backoff, which would otherwise say the same thing again and again).
 * - Different operations stay separate and in order.
 */
export function planDelivery(pending: readonly ReleaseNotification[], last: LastDelivered | undefined, windowMs: number): DeliveryPlan {
  const head = pending[0];
  if (!head) return { kind: 'idle' };
  let end = 1;
  while (end < pending.length && pending[end]!.operationId === head.operationId) end++;
  const run = pending.slice(0, end);
  const latest = run[run.length - 1]!;
  const consume = run.map((n) => n.id);
  const repeated = last !== undefined && last.event === latest.event && last.operationId === latest.operationId && Date.parse(latest.at) - last.atMs < windowMs;
  return repeated ? { kind: 'suppress', notification: latest, consume } : { kind: 'deliver', notification: latest, consume };
}
