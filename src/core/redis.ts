import { Redis } from 'ioredis';

/**
 * One ioredis connection for BullMQ. maxRetriesPerRequest must be null for workers' blocking
 * commands; a Redis restart is then waited out instead of failing jobs.
 */
export function connectRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/** Redis URL without a password, safe for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
