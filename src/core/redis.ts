import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { describeRedisTarget, parseRedisUrl } from './redis-url.js';

/**
 * A connection as every part passes it: one Redis (or a Sentinel set's primary) or a Redis Cluster.
 * BullMQ takes both; both have the ordinary commands, `multi`, `eval` and `duplicate()`. On a
 * cluster, each command goes to the node holding its key's slot, and a script or transaction must
 * keep its keys in one slot (one hash tag: docs/redis.md#redis-cluster).
 */
export type RedisConnection = Redis | Cluster;

/** How a command on a Redis Cluster waits out a failover: retried every this many ms, at most this many times. */
export const CLUSTER_RETRY_MS = 200;
export const CLUSTER_MAX_REDIRECTIONS = 100;

export interface ConnectOptions {
  /** null (BullMQ's requirement for workers): a command waits out a Redis restart or failover instead of failing. */
  maxRetriesPerRequest?: number | null;
}

/**
 * One ioredis connection for BullMQ, to one Redis, to the primary a Sentinel set names, or to a
 * Redis Cluster (REDIS_URL, core/redis-url.ts). maxRetriesPerRequest must be null for workers' blocking
 * commands; a Redis restart or failover is then waited out instead of failing jobs. The URL was
 * checked at start-up (readSharedConfig); a bad one here is a programming error.
 */
export function connectRedis(url: string, options: ConnectOptions = {}): RedisConnection {
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
    case 'cluster':
      return new Cluster(target.nodes, {
        // BullMQ reads maxRetriesPerRequest from here on a cluster.
        redisOptions: { ...common, username: target.username, password: target.password, ...(target.tls ? { tls: {} } : {}) },
        enableReadyCheck: true,
        lazyConnect: false,
        // A primary that dies closes its connections; ioredis then retries the command on another
        // node (MOVED leads back to the dead one until its replica is promoted). Each try costs one
        // redirection: CLUSTER_RETRY_MS × CLUSTER_MAX_REDIRECTIONS waits out a failover of
        // about 10-20 s (a cluster-node-timeout of a few seconds) instead of failing the command.
        retryDelayOnFailover: CLUSTER_RETRY_MS,
        retryDelayOnClusterDown: CLUSTER_RETRY_MS,
        retryDelayOnTryAgain: CLUSTER_RETRY_MS,
        maxRedirections: CLUSTER_MAX_REDIRECTIONS,
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
