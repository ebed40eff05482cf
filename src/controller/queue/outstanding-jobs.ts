import type { CheckLedger } from './check-ledger.js';

/** How long a job this replica queued is trusted to be waiting, with no check of its release ended since. */
export const OUTSTANDING_TRUST_MS = 30_000;

/**
 * Pure: is a job for the release known to be waiting? This replica queued one (`enqueuedAt`), no
 * check of the release has ended since, and that was less than `trustMs` ago. A job lost some other
 * way (Redis failed over before the add was replicated) is then made again at most `trustMs` later.
 */
export function jobOutstanding(enqueuedAt: number | undefined, lastCheckedMs: number | undefined, now: number, trustMs = OUTSTANDING_TRUST_MS): boolean {
  if (enqueuedAt === undefined || now - enqueuedAt >= trustMs) return false;
  return lastCheckedMs === undefined || enqueuedAt > lastCheckedMs;
}

/**
 * The releases this replica has queued a pass for, so the periodic resync does not queue each one
 * again every tick while it waits (in a burst every release whose spec is not done yet is due at
 * every tick: each time a deduplicating add, ~6 Redis commands). A wiped Redis (the check ledger's
 * mark gone) forgets them all at once, so what was lost is queued again at the next tick.
 */
export class OutstandingJobs {
  private readonly at = new Map<string, number>();

  constructor(private readonly trustMs = OUTSTANDING_TRUST_MS) {}

  enqueued(key: string, at: number): void {
    this.at.set(key, at);
  }

  holds(key: string, lastCheckedMs: number | undefined, now: number): boolean {
    const held = jobOutstanding(this.at.get(key), lastCheckedMs, now, this.trustMs);
    if (!held) this.at.delete(key);
    return held;
  }

  /**
   * The resync's reads of the ledger and of what is outstanding, forgetting everything when Redis
   * lost the ledger. Each resync (a start, a leadership gained) marks the ledger as it begins, so
   * that its first tick can already tell (the passes its informers' first list queued are kept).
   */
  resyncGate(ledger: Pick<CheckLedger, 'read' | 'markIntact'>, now: () => number = Date.now) {
    ledger.markIntact(now());
    return {
      lastChecked: async () => {
        const { checks, intact } = await ledger.read();
        if (!intact) {
          this.at.clear();
          ledger.markIntact(now());
        }
        return checks;
      },
      outstanding: (key: string, lastCheckedMs: number | undefined) => this.holds(key, lastCheckedMs, now()),
    };
  }
}
