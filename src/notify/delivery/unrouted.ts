import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import type { ReleaseNotification } from '../contract.js';

/**
 * Notifications of a release published but not yet routed. Routing runs concurrently (several
 * workers, several replicas), so a later notification can reach its mailbox before an earlier
 * one; a drainer that sees an earlier notification of the same release still unrouted waits for
 * it, which keeps order per release. The publisher marks before it adds the job (same
 * connection, so Redis sees the mark first); the router unmarks once every mailbox has it. A mark
 * older than `staleMs` (its publisher died between mark and add) no longer holds anyone back.
 */
export class UnroutedMarks {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly staleMs = 30_000,
  ) {}

  private key(release: string): string {
    return clusterKey(this.prefix, 'notifyUnrouted', release);
  }

  static releaseOf(n: ReleaseNotification): string {
    return `${n.release.namespace}/${n.release.name}`;
  }

  static scoreOf(n: ReleaseNotification): number {
    const ms = Date.parse(n.at);
    return Number.isFinite(ms) ? ms : 0;
  }

  /**
   * Not awaited by the publisher: it must not add a round trip to a reconcile. Two commands in one
   * write, not a MULTI (which costs Redis two more): Redis runs them in order either way, and a
   * connection lost between them leaves at worst a mark without its day's expiry until the
   * release's next mark sets it.
   */
  mark(n: ReleaseNotification): Promise<unknown> {
    const key = this.key(UnroutedMarks.releaseOf(n));
    return this.redis
      .pipeline()
      .zadd(key, UnroutedMarks.scoreOf(n), n.id)
      .pexpire(key, 24 * 3600_000)
      .exec();
  }

  async unmark(n: ReleaseNotification): Promise<void> {
    await this.redis.zrem(this.key(UnroutedMarks.releaseOf(n)), n.id);
  }

  /** Is a notification of this release published before `n` still waiting to be routed? */
  async earlierUnrouted(n: ReleaseNotification, now = Date.now()): Promise<boolean> {
    const score = UnroutedMarks.scoreOf(n);
    const marks = await this.redis.zrangebyscore(this.key(UnroutedMarks.releaseOf(n)), now - this.staleMs, score, 'WITHSCORES', 'LIMIT', 0, 20);
    for (let i = 0; i < marks.length; i += 2) {
      const id = marks[i]!;
      const markScore = Number(marks[i + 1]);
      if (id !== n.id && (markScore < score || id < n.id)) return true;
    }
    return false;
  }
}
