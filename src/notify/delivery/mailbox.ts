import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import type { ReleaseNotification } from '../contract.js';
import type { LastDelivered } from './plan-delivery.js';

/**
 * A mailbox holds what waits to be delivered to one release on one channel of one team, in
 * order, in Redis. Entering is idempotent on the notification id (a routing job run twice after
 * a crash adds nothing twice, and nothing already delivered comes back); entries leave only when
 * delivered, suppressed or refused for good.
 */
export function mailboxId(team: string, channelKey: string, release: string): string {
  return `${team}|${channelKey}|${release}`;
}

const KEEP_DONE = 500;

// KEYS: pending, items, done. ARGV: id, score, json. Returns 1 when added.
const ENQUEUE = `
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1`;

// KEYS: pending, items, done, last. ARGV: nowMs, keepDone, lastJson ('' = keep), ids...
const CONSUME = `
for i = 4, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
  redis.call('ZADD', KEYS[3], ARGV[1], ARGV[i])
end
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[2])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, extra - 1) end
if ARGV[3] ~= '' then redis.call('SET', KEYS[4], ARGV[3]) end
-- What was delivered is remembered for a week, then forgotten with the mailbox's idle keys.
redis.call('PEXPIRE', KEYS[3], 604800000)
if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('PEXPIRE', KEYS[4], 604800000) end
return 1`;

// KEYS: lock. ARGV: token, ttlMs. Takes or renews the lock.
const LOCK = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Orders notifications of one release by time, ties broken by id (ids sort in publishing order). */
function scoreOf(notification: ReleaseNotification): number {
  const ms = Date.parse(notification.at);
  return Number.isFinite(ms) ? ms : Date.now();
}

export class Mailboxes {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
  ) {}

  private keys(id: string) {
    const base = clusterKey(this.prefix, 'notifyMailbox', id);
    return { pending: `${base}:pending`, items: `${base}:items`, done: `${base}:done`, last: `${base}:last`, lock: `${base}:lock` };
  }

  async enqueue(id: string, notification: ReleaseNotification): Promise<boolean> {
    const k = this.keys(id);
    const added = await this.redis.eval(ENQUEUE, 3, k.pending, k.items, k.done, notification.id, scoreOf(notification), JSON.stringify(notification));
    return added === 1;
  }

  /** The oldest waiting notifications, in order. */
  async pending(id: string, limit = 50): Promise<ReleaseNotification[]> {
    const k = this.keys(id);
    const ids = await this.redis.zrange(k.pending, 0, limit - 1);
    if (ids.length === 0) return [];
    const values = await this.redis.hmget(k.items, ...ids);
    return values.flatMap((value) => (value ? [JSON.parse(value) as ReleaseNotification] : []));
  }

  async lastDelivered(id: string): Promise<LastDelivered | undefined> {
    const value = await this.redis.get(this.keys(id).last);
    return value ? (JSON.parse(value) as LastDelivered) : undefined;
  }

  /** Removes `ids` as handled; `delivered` (when given) becomes the last delivery, for coalescing. */
  async consume(id: string, ids: string[], delivered?: LastDelivered): Promise<void> {
    const k = this.keys(id);
    await this.redis.eval(CONSUME, 4, k.pending, k.items, k.done, k.last, Date.now(), KEEP_DONE, delivered ? JSON.stringify(delivered) : '', ...ids);
  }

  /** Takes or renews the drain lock: one drainer per mailbox across replicas keeps its order. */
  async lock(id: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(LOCK, 1, this.keys(id).lock, token, ttlMs)) === 1;
  }

  async unlock(id: string, token: string): Promise<void> {
    await this.redis.eval(UNLOCK, 1, this.keys(id).lock, token);
  }
}
