import type { Redis } from 'ioredis';

// A token bucket in Redis, on Redis' own clock, so every notify replica shares one limit per channel.
// KEYS: bucket. ARGV: ratePerSec, burst. Returns 0 when a token was taken, else ms to wait.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return wait`;

/** Keeps each channel to about `ratePerSec` messages (Slack: ~1 per second per channel), short bursts allowed. */
export class ChannelRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ratePerSec = 1,
    private readonly burst = 1,
  ) {}

  /** 0 when the caller may send now, else how long to wait before asking again. */
  async take(channelKey: string): Promise<number> {
    const wait = await this.redis.eval(TAKE, 1, `${this.prefix}:notify:rate:${channelKey}`, this.ratePerSec, this.burst);
    return Number(wait);
  }
}
