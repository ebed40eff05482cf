import { answeredWithin } from '../answered-within.js';
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
      const answer = await answeredWithin(connection.ping(), timeoutMs);
      return answer === 'PONG';
    },
  };
}
