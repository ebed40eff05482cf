import type { RedisConnection } from '../../core/redis.js';
import type { Logger } from '../../core/log.js';
import { writeHeartbeat } from '../../core/fleet/fleet-store.js';

export interface HeartbeatOptions {
  redis: RedisConnection;
  fleetPrefix: string;
  cluster: string;
  replica: string;
  version: string;
  releases: () => number;
  intervalMs: number;
  ttlMs: number;
  log: Logger;
  now?: () => number;
}

/**
 * Announces this replica to the fleet (core/fleet/heartbeat.ts) at once and then every interval.
 * A failed beat is logged and the next one tried: the listing shows the gap, nothing else depends on it.
 */
export function startHeartbeat(opts: HeartbeatOptions): { stop: () => void } {
  const now = opts.now ?? Date.now;
  let failing = false;
  const beat = async () => {
    const at = now();
    try {
      await writeHeartbeat(
        opts.redis,
        opts.fleetPrefix,
        {
          cluster: opts.cluster,
          version: opts.version,
          releases: opts.releases(),
          replica: opts.replica,
          at: new Date(at).toISOString(),
          intervalMs: opts.intervalMs,
        },
        opts.ttlMs,
        at,
      );
      if (failing) opts.log.info({ cluster: opts.cluster }, 'heartbeat written again');
      failing = false;
    } catch (error) {
      if (!failing) opts.log.warn({ cluster: opts.cluster, error: (error as Error).message }, 'heartbeat not written; the fleet will see this agent as stale');
      failing = true;
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), opts.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
