import { clusterKeyspace, clusterSlotProblem, parseClusterName, prefixProblem } from '../fleet/cluster-keys.js';
import { parseRedisUrl } from '../redis-url.js';
import { ConfigError, required, type Env } from './parsers.js';
import { declareEnv } from './registry.js';

/**
 * Reading configuration from the environment, the same way in every part. A bad value stops
 * start-up with one line naming the variable; secrets are never echoed.
 */

export { boolean, ConfigError, MiB, positiveInt, positiveNumber, required, type Env } from './parsers.js';

/** What more than one part reads: the cluster, Redis, the queue prefix, logs, health, Slack's token and API. */
export const SHARED_ENV = declareEnv(['controller', 'notify', 'bot'], {
  REDIS_URL: {
    meaning:
      'Redis: `redis://[[user]:password@]host:port[/db]`, `rediss://` for TLS, a Sentinel set `redis+sentinel://[[user]:password@]host1:26379,host2:26379/<masterName>[/<db>][?sentinelPassword=…]`, or a Redis Cluster `redis+cluster://[[user]:password@]host1:port1,host2:port2,…` (`rediss+cluster://` for TLS; the prefix needs a hash tag, [redis](redis.md#redis-cluster)) ([operations](operations.md#redis)). Required',
    parts: ['controller', 'notify', 'bot', 'web', 'cli'],
  },
  KUBECONFIG: {
    defaultText: 'in-cluster, else `~/.kube/config`',
    meaning: 'the kubeconfig file (kubectl’s order: `KUBECONFIG`, `~/.kube/config`, the pod’s ServiceAccount)',
    parts: ['controller', 'notify', 'bot', 'web', 'cli'],
  },
  HELMCREW_QUEUE_PREFIX: {
    default: 'helmcrew',
    meaning: 'the Redis key prefix of the queues; the bot and `helmcrew release` ask the controller for change previews through it',
    parts: ['controller', 'notify', 'bot', 'web', 'cli'],
  },
  HELMCREW_CLUSTER_NAME: {
    defaultText: 'none (`default`)',
    meaning:
      'this cluster’s name in a fleet (a DNS label): its queues and keys live under `{<prefix>:<name>}` in Redis, apart from every other cluster’s ([redis](redis.md#a-fleet-on-one-redis)); said in every message: Slack’s and Teams’ Cluster field, PagerDuty’s key, source and summary, the webhook’s `cluster`',
    parts: ['controller', 'notify', 'bot', 'web', 'cli'],
  },
  HELMCREW_NAMESPACE: {
    defaultText: 'the pod’s namespace, else `default`',
    meaning:
      'where helmcrew keeps its own objects: the controller’s values-digest key Secret (and the leader Lease); a fleet notify’s Slack message references (one ConfigMap), which a fleet’s web reads there for other clusters’ thread links',
    parts: ['controller', 'notify', 'web'],
  },
  LOG_LEVEL: {
    default: 'info',
    meaning: 'pino log level of the JSON logs on stderr (`helmcrew release` and the demo’s bot: `warn`)',
    parts: ['controller', 'notify', 'bot', 'web', 'cli'],
  },
  HEALTH_PORT: {
    defaultText: 'none (the chart sets 8081)',
    meaning: '`/healthz`, `/readyz` and `/metrics` on this port; unset: not served (`helmcrew run` serves every part’s on one port)',
    parts: ['controller', 'notify', 'bot', 'web'],
  },
  HELM_BIN: { default: 'helm', meaning: 'the helm 4 binary; `helmcrew dev up` uses it instead of the toolchain’s helm when set', parts: ['controller', 'dev'] },
  SLACK_BOT_TOKEN: {
    meaning:
      'the Slack bot token (`xoxb-…`, a secret): notify’s Slack provider registers when it is set; the bot requires it; `helmcrew run` starts the bot when it is set with `SLACK_APP_TOKEN` or `SLACK_SIGNING_SECRET`',
    parts: ['notify', 'bot'],
  },
  HELMCREW_TIME_ZONE: { default: 'UTC', meaning: 'the IANA zone `/release freeze … --until 18:00` is read in', parts: ['bot', 'cli'] },
  SLACK_API_URL: { defaultText: 'Slack’s', meaning: 'Slack Web API base URL, for a proxy or the local fake Slack', parts: ['notify', 'bot'] },
});

/** What every process reads the same way: the cluster, Redis and the queue prefix. */
export interface SharedConfig {
  kubeconfig?: string;
  redisUrl: string;
  /** The cluster's keyspace: every queue and key of this cluster's parts (core/fleet/cluster-keys.ts). */
  queuePrefix: string;
  /** HELMCREW_QUEUE_PREFIX as set: the fleet's, which every cluster's keyspace is made from. */
  fleetPrefix: string;
  /** HELMCREW_CLUSTER_NAME, `default` when unset. */
  cluster: string;
}

export function readSharedConfig(env: Env): SharedConfig {
  const redisUrl = checkedRedisUrl(env);
  const shared = SHARED_ENV.in(env);
  const fleetPrefix = shared.text('HELMCREW_QUEUE_PREFIX');
  const cluster = checkedClusterName(env, fleetPrefix);
  return { kubeconfig: shared.raw('KUBECONFIG') || undefined, redisUrl, queuePrefix: clusterKeyspace(fleetPrefix, cluster), fleetPrefix, cluster };
}

/**
 * HELMCREW_CLUSTER_NAME (`default` when unset), checked with the prefix it is combined with, else a
 * ConfigError; on a Redis Cluster (REDIS_URL `redis+cluster://`) the keyspace must also carry a hash tag.
 */
export function checkedClusterName(env: Env, fleetPrefix: string): string {
  const parsed = parseClusterName(SHARED_ENV.in(env).raw('HELMCREW_CLUSTER_NAME'));
  if (!parsed.ok) throw new ConfigError(parsed.message);
  const problem = env.HELMCREW_CLUSTER_NAME?.trim() ? prefixProblem(fleetPrefix) : undefined;
  if (problem) throw new ConfigError(problem);
  const redisUrl = SHARED_ENV.in(env).raw('REDIS_URL');
  const onCluster = redisUrl ? parseRedisUrl(redisUrl).kind === 'cluster' : false;
  const slotProblem = onCluster ? clusterSlotProblem(clusterKeyspace(fleetPrefix, parsed.name)) : undefined;
  if (slotProblem) throw new ConfigError(slotProblem);
  return parsed.name;
}

/** REDIS_URL, checked: one Redis, a Sentinel set or a Redis Cluster (core/redis-url.ts), else a ConfigError saying what is wrong. */
export function checkedRedisUrl(env: Env): string {
  const redisUrl = required(env, 'REDIS_URL');
  const target = parseRedisUrl(redisUrl);
  if (target.kind === 'invalid') throw new ConfigError(target.message);
  return redisUrl;
}
