import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';

// Token buckets in Redis, on Redis' own clock, so every notify replica shares one limit per key.
// A reservation always takes its tokens, going into debt when there are none: the caller is given
// the moment its call may go, so waiting senders are served in the order they asked (no one
// starves behind luckier retries). Several buckets are reserved in one atomic step (a channel's
// messages and Slack's workspace-wide chat.update tier), so a delivery never holds one while
// racing for the other.
// KEYS: buckets. ARGV[1]: the longest wait the caller accepts (ms; -1: any), then per bucket
// rate/s, burst, count. Returns the ms until every bucket has reached the caller's first token
// (0: now), or -1 without taking anything when that is further away than the caller accepts; a
// count of 2 is sent back to back, inside the burst the service allows, and the debt makes the
// next caller wait for both.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local within = tonumber(ARGV[1])
local wait = 0
local refilled = {}
for i = 1, #KEYS do
  local rate = tonumber(ARGV[i * 3 - 1])
  local burst = tonumber(ARGV[i * 3])
  local count = tonumber(ARGV[i * 3 + 1])
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local at = tonumber(state[2]) or now
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  if count > 0 and tokens < 1 then wait = math.max(wait, math.ceil((1 - tokens) * 1000 / rate)) end
  refilled[i] = tokens
end
if within >= 0 and wait > within then return -1 end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[i * 3 - 1])
  local burst = tonumber(ARGV[i * 3])
  local tokens = refilled[i] - tonumber(ARGV[i * 3 + 1])
  redis.call('HSET', KEYS[i], 'tokens', tostring(tokens), 'at', tostring(now))
  local debt = 0
  if tokens < 0 then debt = math.ceil(-tokens * 1000 / rate) end
  redis.call('PEXPIRE', KEYS[i], debt + math.ceil(burst * 1000 / rate) + 1000)
end
return wait`;

/** A limit: sustained calls per second and the calls allowed at once after a quiet period. */
export interface BucketLimit {
  perSecond: number;
  burst: number;
}

/** One reservation: `count` tokens of the bucket `key` (shared by every replica on the same Redis and prefix). */
export interface BucketReservation {
  key: string;
  limit: BucketLimit;
  count: number;
}

/** Keeps each channel to about `ratePerSec` messages (Slack: ~1 per second per channel), short bursts allowed. */
export class ChannelRateLimiter {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly ratePerSec = 1,
    private readonly burst = 1,
  ) {}

  /** Reserves the channel's next slot: 0 when the caller may send now, else how long until its slot. */
  async reserve(channelKey: string, messages = 1): Promise<number> {
    return this.reserveAll([{ key: this.channelBucket(channelKey), limit: { perSecond: this.ratePerSec, burst: this.burst }, count: messages }]);
  }

  /** The channel's bucket key, for reserving it together with others (channel keys are `slack.…`, `webhook.…`). */
  channelBucket(channelKey: string): string {
    return channelKey;
  }

  /** The channel's limit as configured (HELMCREW_NOTIFY_RATE_PER_SECOND / _BURST). */
  channelLimit(): BucketLimit {
    return { perSecond: this.ratePerSec, burst: this.burst };
  }

  /** Reserves every bucket at once: the ms until all of them have the caller's first token. */
  async reserveAll(reservations: readonly BucketReservation[]): Promise<number> {
    return (await this.reserveBuckets(reservations, -1))!;
  }

  /**
   * Reserves every bucket at once if the caller's first token is at most `maxWaitMs` away (the
   * wait, ms); otherwise takes nothing and answers undefined, so a caller with another way to
   * say its message does not queue behind others for this one.
   */
  async reserveWithin(reservations: readonly BucketReservation[], maxWaitMs: number): Promise<number | undefined> {
    return this.reserveBuckets(reservations, Math.max(0, maxWaitMs));
  }

  private async reserveBuckets(reservations: readonly BucketReservation[], within: number): Promise<number | undefined> {
    const wanted = reservations.filter((r) => r.count > 0);
    if (wanted.length === 0) return 0;
    const keys = wanted.map((r) => clusterKey(this.prefix, 'notifyRate', r.key));
    const args = wanted.flatMap((r) => [r.limit.perSecond, r.limit.burst, r.count]);
    const wait = Number(await this.redis.eval(RESERVE, keys.length, ...keys, within, ...args));
    return wait < 0 ? undefined : wait;
  }
}
