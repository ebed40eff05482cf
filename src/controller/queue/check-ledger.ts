import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import { ledgerWrites, withPending, type PendingCheck } from './check-ledger-writes.js';

/** A member that is no release key (those are namespace/name): while it is there, Redis has not lost the ledger. */
export const LEDGER_MARK = '~ledger';

/** How long a check's record may wait to share one write with the next ones (a burst ends passes every ~100 ms). */
export const LEDGER_FLUSH_MS = 1000;

/**
 * When each release was last checked, in Redis beside the queue (a sorted set scored by time),
 * shared by every replica. A check that finds nothing changed writes nothing to the API server, so
 * status.lastReconciledAt no longer moves with every check; the periodic resync reads this instead
 * to know what is due. Redis holds work, not truth: if it is wiped, every release is simply due
 * once more. So a pass does not wait for its record: records are gathered for up to `flushMs` and
 * sent as one ZADD (and one ZREM for releases gone); a record lost with its process only makes
 * that release due once more, sooner.
 */
export class CheckLedger {
  private readonly key: string;
  private pending = new Map<string, PendingCheck>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    private readonly onError: (error: Error) => void = () => undefined,
    private readonly flushMs = LEDGER_FLUSH_MS,
  ) {
    this.key = clusterKey(prefix, 'checked');
  }

  checked(releaseKey: string, atMs: number): void {
    this.later(releaseKey, atMs);
  }

  forget(releaseKey: string): void {
    this.later(releaseKey, 'forget');
  }

  /** Release key → epoch milliseconds of its last completed check (this replica's unsent ones included). */
  async all(): Promise<Map<string, number>> {
    return (await this.read()).checks;
  }

  /** The checks, and whether the ledger still holds the controller's mark (absent: Redis lost what it held). */
  async read(): Promise<{ checks: Map<string, number>; intact: boolean }> {
    const flat = await this.redis.zrange(this.key, 0, -1, 'WITHSCORES');
    const out = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    const checks = withPending(out, this.pending);
    const intact = checks.delete(LEDGER_MARK);
    return { checks, intact };
  }

  /** Writes the mark that read() looks for (with the next batch). */
  markIntact(atMs: number): void {
    this.later(LEDGER_MARK, atMs);
  }

  /** Sends what is pending now (and waits for any write under way). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { add, remove } = ledgerWrites(this.pending);
    this.pending = new Map();
    if (add.length === 0 && remove.length === 0) return this.flushing;
    const pipeline = this.redis.pipeline();
    if (add.length) pipeline.zadd(this.key, ...add);
    if (remove.length) pipeline.zrem(this.key, ...remove);
    const sent = pipeline.exec().then((results) => {
      const failed = results?.find(([error]) => error)?.[0];
      if (failed) throw failed;
    });
    this.flushing = Promise.all([this.flushing, sent.catch((error: Error) => this.onError(error))]).then(() => undefined);
    return this.flushing;
  }

  private later(releaseKey: string, at: PendingCheck): void {
    this.pending.set(releaseKey, at);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }
}
