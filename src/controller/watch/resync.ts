import type { HelmRelease } from '../../api/helmrelease.js';
import { releaseKey } from '../../core/release/release-target.js';
import { dueForResync } from './enqueue-policy.js';

/**
 * Periodic resync: every tick, enqueue the releases whose interval has passed since they were
 * last checked (the check ledger in Redis, shared by all replicas). It runs wherever the watches
 * run: on the leader with leader election, else on every replica, where the queue's deduplication
 * makes that one reconcile. A tick that cannot read the ledger is skipped:
 * enqueuing would fail the same way.
 */
export function startResync(opts: {
  list: () => HelmRelease[];
  lastChecked: () => Promise<Map<string, number>>;
  /** A pass for the release is already waiting in the queue (outstanding-jobs.ts): not queued again. */
  outstanding?: (key: string, lastCheckedMs: number | undefined) => boolean;
  onKey: (key: string, reason: string) => void;
  onError?: (error: Error) => void;
  /** Each round that runs (for the metrics). */
  onTick?: () => void;
  tickMs: number;
  /** How long past its timeout an attempt whose worker vanished is left before it is due again (kill-after.ts). */
  killMarginMs?: number;
  now?: () => number;
}): () => void {
  const now = opts.now ?? Date.now;
  let ticking = false;
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    opts.onTick?.();
    try {
      const checked = await opts.lastChecked();
      for (const release of opts.list()) {
        const key = releaseKey(release.metadata.namespace, release.metadata.name);
        const last = checked.get(key);
        if (dueForResync(release, now(), last, opts.killMarginMs) && !opts.outstanding?.(key, last)) opts.onKey(key, 'resync');
      }
    } catch (error) {
      opts.onError?.(error as Error);
    } finally {
      ticking = false;
    }
  };
  const timer = setInterval(() => void tick(), opts.tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
