import { Redis, type RedisOptions } from 'ioredis';
import { describeRedisTarget, parseRedisUrl } from './redis-url.js';

export interface ConnectOptions {
  /** null (BullMQ's requirement for workers): a command waits out a Redis restart or failover instead of failing. */
  maxRetriesPerRequest?: number | null;
}

/**
 * One ioredis connection for BullMQ, to one Redis or to the primary a Sentinel set names
 * (REDIS_URL, core/redis-url.ts). maxRetriesPerRequest must be null for workers' blocking
 * commands; a Redis restart or failover is then waited out instead of failing jobs. The URL was
 * checked at start-up (readSharedConfig); a bad one here is a programming error.
 */
export function connectRedis(url: string, options: ConnectOptions = {}): Redis {
  const target = parseRedisUrl(url);
  const common: RedisOptions = {
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? null : options.maxRetriesPerRequest,
    enableReadyCheck: true,
    lazyConnect: false,
  };
  switch (target.kind) {
    case 'invalid':
      throw new Error(target.message);
    case 'single':
      return new Redis(target.url, common);
    case 'sentinel':
      return new Redis({
        ...common,
        sentinels: target.sentinels,
        name: target.masterName,
        db: target.db,
        username: target.username,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        // No failoverDetector: its +switch-master handler disconnects the connector, and when that
        // lands while a reconnect is asking the sentinels for the primary, ioredis ends the
        // connection for good ("Connection is closed.", status end, no retry) — seen under load:
        // a controller stuck for minutes after a failover. Redis closes its clients' connections
        // on a failover, and ioredis then asks the sentinels again (docs/redis.md).
      });
  }
}

/** REDIS_URL without a password, safe for logs. */
export function redactRedisUrl(url: string): string {
  const target = parseRedisUrl(url);
  if (target.kind === 'invalid') return '(unparseable REDIS_URL)';
  try {
    return describeRedisTarget(target);
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
