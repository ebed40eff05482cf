// Redis's own counters, read before and after a phase: INFO commandstats (calls per command, from
// every client) and INFO memory. The difference is what the phase cost Redis.
import type { Redis } from 'ioredis';

export interface RedisSnapshot {
  /** Command (lower case, `xadd`, `evalsha`, `client|setname`) → calls since the server started. */
  calls: Map<string, number>;
  usedMemoryBytes: number;
  keys: number;
  connectedClients: number;
}

/** `cmdstat_evalsha:calls=12,usec=…` lines → command → calls. Pure. */
export function parseCommandStats(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) calls.set(m[1]!, Number(m[2]));
  }
  return calls;
}

/** A field of an INFO section (`used_memory:1234`); NaN when absent. Pure. */
export function infoField(info: string, field: string): number {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  return m ? Number(m[1]) : NaN;
}

export async function redisSnapshot(redis: Redis): Promise<RedisSnapshot> {
  const [stats, memory, clients, keyspace] = await Promise.all([
    redis.info('commandstats'),
    redis.info('memory'),
    redis.info('clients'),
    redis.info('keyspace'),
  ]);
  const keys = [...keyspace.matchAll(/^db\d+:keys=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  return {
    calls: parseCommandStats(stats),
    usedMemoryBytes: infoField(memory, 'used_memory'),
    keys,
    connectedClients: infoField(clients, 'connected_clients'),
  };
}

export interface RedisRate {
  seconds: number;
  /** Every command per second, the reader's own INFO calls left out. */
  opsPerSecond: number;
  /** The largest commands, `name n/s`. */
  top: string[];
  byCommand: Record<string, number>;
}

/** Calls per second between two snapshots, leaving out `ownInfoCalls` INFO calls of the bench. Pure. */
export function redisRate(before: RedisSnapshot, after: RedisSnapshot, seconds: number, ownInfoCalls = 0): RedisRate {
  const byCommand: Record<string, number> = {};
  for (const [name, n] of after.calls) {
    const d = n - (before.calls.get(name) ?? 0) - (name === 'info' ? ownInfoCalls : 0);
    if (d > 0) byCommand[name] = d;
  }
  const total = Object.values(byCommand).reduce((a, b) => a + b, 0);
  const top = Object.entries(byCommand)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, n]) => `${name} ${(n / seconds).toFixed(2)}`);
  return { seconds, opsPerSecond: total / seconds, top, byCommand };
}
