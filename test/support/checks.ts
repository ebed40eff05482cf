import { Redis } from 'ioredis';
import { CheckLedger } from '../../src/controller/queue/check-ledger.js';

/**
 * Watches a controller's check ledger (Redis, beside its queue) until every key has been seen
 * checked at `times` distinct moments, or the time is up. A check that finds nothing changed
 * writes nothing to the API server, so this is where periodic checks are visible.
 */
export async function waitForChecks(redisUrl: string, prefix: string, keys: string[], times: number, timeoutMs: number): Promise<Map<string, Set<number>>> {
  const redis = new Redis(redisUrl);
  const ledger = new CheckLedger(redis, prefix);
  const seen = new Map(keys.map((k) => [k, new Set<number>()]));
  const deadline = Date.now() + timeoutMs;
  try {
    while ([...seen.values()].some((s) => s.size < times) && Date.now() < deadline) {
      const all = await ledger.all();
      for (const key of keys) {
        const at = all.get(key);
        if (at !== undefined) seen.get(key)!.add(at);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    redis.disconnect();
  }
  return seen;
}
