import type { RedisConnection } from '../redis.js';
import { clusterKey, clusterKeyspace, fleetIndexKey } from './cluster-keys.js';
import { expiredReplicas, fleetFromHeartbeats, parseHeartbeat, type AgentHeartbeat, type FleetCluster } from './heartbeat.js';

/**
 * Heartbeats in Redis. A replica's record is a field of its cluster's `agents` hash (in the
 * cluster's keyspace, so only that cluster's agents may write it); the hash lives `ttlMs` after the
 * last beat, so a cluster taken away leaves the listing by itself. The cluster's name is added to
 * the fleet index, the one key every agent may add to (and, by its ACL, do nothing else with).
 * Two commands, not one transaction: on Redis Cluster the index and the hash are in different slots.
 */
export async function writeHeartbeat(redis: RedisConnection, fleetPrefix: string, beat: AgentHeartbeat, ttlMs: number, now: number): Promise<void> {
  const key = clusterKey(clusterKeyspace(fleetPrefix, beat.cluster), 'agents');
  await redis.multi().hset(key, beat.replica, JSON.stringify(beat)).pexpire(key, ttlMs).exec();
  await redis.sadd(fleetIndexKey(fleetPrefix), beat.cluster);
  const expired = expiredReplicas(new Map(Object.entries(await redis.hgetall(key))), now, ttlMs);
  if (expired.length > 0) await redis.hdel(key, ...expired);
}

/** Every cluster of the fleet index with a record left, each read from its own keyspace. */
export async function readFleet(redis: RedisConnection, fleetPrefix: string, now: number): Promise<FleetCluster[]> {
  const names = await redis.smembers(fleetIndexKey(fleetPrefix));
  const byCluster = new Map<string, AgentHeartbeat[]>();
  for (const name of names) {
    const fields = await redis.hgetall(clusterKey(clusterKeyspace(fleetPrefix, name), 'agents'));
    byCluster.set(
      name,
      Object.values(fields)
        .map(parseHeartbeat)
        .filter((b): b is AgentHeartbeat => b !== undefined),
    );
  }
  return fleetFromHeartbeats(byCluster, now);
}
