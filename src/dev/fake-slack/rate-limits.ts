/**
 * Slack's rate limits as token buckets. chat.postMessage: about one message per second per
 * channel, short bursts allowed. Other methods: their documented tier (calls per minute per
 * workspace and method), also with bursts.
 */

export interface BucketLimit {
  /** Calls allowed at once after a quiet period. */
  burst: number;
  /** Sustained calls per second. */
  perSecond: number;
}

/** Tier 2 ~20/min, Tier 3 ~50/min, Tier 4 ~100/min (Slack's rate-limit documentation). */
export const TIER_2: BucketLimit = { burst: 20, perSecond: 20 / 60 };
export const TIER_3: BucketLimit = { burst: 50, perSecond: 50 / 60 };
export const TIER_4: BucketLimit = { burst: 100, perSecond: 100 / 60 };

export interface RateLimitConfig {
  /** chat.postMessage per channel (thread replies included: they are messages in the channel). */
  postMessagePerChannel: BucketLimit;
  /** Per method, for the whole workspace. Methods not listed are not limited. */
  methods: Record<string, BucketLimit>;
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  postMessagePerChannel: { burst: 3, perSecond: 1 },
  methods: {
    'chat.update': TIER_3,
    'chat.postEphemeral': TIER_4,
    'conversations.info': TIER_3,
    'conversations.open': TIER_3,
    'users.info': TIER_4,
    'usergroups.users.list': TIER_2,
    'usergroups.list': TIER_2,
    'auth.test': TIER_4,
  },
};

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets keyed by any string; the clock is injected so tests can drive it. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one call from the bucket: 0 when allowed, else the whole seconds to wait (Retry-After). */
  take(key: string, limit: BucketLimit): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
  }

  reset(): void {
    this.buckets.clear();
  }
}
