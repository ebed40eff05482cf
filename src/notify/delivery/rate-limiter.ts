import type { Redis } from 'ioredis';

// A token bucket in Redis, on Redis' own clock, so every notify replica shares one limit per channel.
// A reservation always takes a token, going into debt when there is none: the caller is given the
// moment its message may go, so waiting senders are served in the order they asked (no one
// starves behind luckier retries).
// KEYS: bucket. ARGV: ratePerSec, burst. Returns the ms until the reserved slot (0: now).
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000) - 1
local wait = 0
if tokens < 0 then wait = math.ceil(-tokens * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], wait + math.ceil(burst * 1000 / rate) + 1000)
return wait`;

/** Keeps each channel to about `ratePerSec` messages (Slack: ~1 per second per channel), short bursts allowed. */
export class ChannelRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ratePerSec = 1,
    private readonly burst = 1,
  ) {}

  /** Reserves the channel's next slot: 0 when the caller may send now, else how long until its slot. */
  async reserve(channelKey: string): Promise<number> {
    const wait = await this.redis.eval(RESERVE, 1, `${this.prefix}:notify:rate:${channelKey}`, this.ratePerSec, this.burst);
    return Number(wait);
  }
}
