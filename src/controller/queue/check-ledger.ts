import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';

/**
 * When each release was last checked, in Redis beside the queue (a sorted set scored by time),
 * shared by every replica. A check that finds nothing changed writes nothing to the API server, so
 * status.lastReconciledAt no longer moves with every check; the periodic resync reads this instead
 * to know what is due. Redis holds work, not truth: if it is wiped, every release is simply due
 * once more.
 */
export class CheckLedger {
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.key = clusterKey(prefix, 'checked');
  }

  async checked(releaseKey: string, atMs: number): Promise<void> {
    await this.redis.zadd(this.key, atMs, releaseKey);
  }

  async forget(releaseKey: string): Promise<void> {
    await this.redis.zrem(this.key, releaseKey);
  }

  /** Release key → epoch milliseconds of its last completed check. */
  async all(): Promise<Map<string, number>> {
    const flat = await this.redis.zrange(this.key, 0, -1, 'WITHSCORES');
    const out = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    return out;
  }
}
