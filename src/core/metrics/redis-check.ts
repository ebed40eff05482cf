import type { RedisConnection } from '../redis.js';
import type { ReadinessCheck } from './health-server.js';

/**
 * Ready when Redis answers a PING within `timeoutMs`. BullMQ's connections retry commands
 * forever (maxRetriesPerRequest: null), so a PING to a lost Redis would hang /readyz: hence the
 * status check first and the timeout.
 */
export function redisCheck(connection: RedisConnection, timeoutMs = 1000): ReadinessCheck {
  return {
    name: 'redis',
    ready: async () => {
      if (connection.status !== 'ready') return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        return await Promise.race([connection.ping().then((reply) => reply === 'PONG'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
