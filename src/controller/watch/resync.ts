import type { HelmRelease } from '../../api/helmrelease.js';
import { releaseKey } from '../reconcile/release-target.js';
import { dueForResync } from './enqueue-policy.js';

/**
 * Periodic resync: every tick, enqueue the releases whose interval has passed since they were
 * last checked. Every replica ticks; the queue's deduplication makes that one reconcile.
 */
export function startResync(opts: {
  list: () => HelmRelease[];
  onKey: (key: string, reason: string) => void;
  tickMs: number;
  now?: () => number;
}): () => void {
  const now = opts.now ?? Date.now;
  const timer = setInterval(() => {
    for (const release of opts.list()) {
      if (dueForResync(release, now())) opts.onKey(releaseKey(release.metadata.namespace, release.metadata.name), 'resync');
    }
  }, opts.tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
