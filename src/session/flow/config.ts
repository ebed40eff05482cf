import { checkedClusterName, ConfigError, SHARED_ENV, type Env } from '../../core/config/env.js';
import { clusterKeyspace } from '../../core/fleet/cluster-keys.js';
import { declareEnv } from '../../core/config/registry.js';

/** What Slack's bot and the terminal's `helmcrew release` both read (docs/configuration.md is generated from it). */
export const SESSION_ENV = declareEnv(['bot', 'cli'], {
  HELMCREW_OUTCOME_TIMEOUT_SECONDS: { default: 300, meaning: 'how long the bot waits for the controller’s report before saying it is still pending; 1–3600' },
  HELMCREW_PREVIEW_TIMEOUT_SECONDS: {
    default: 20,
    meaning: 'how long a plan waits for the controller’s answer of what a change would do before it is shown without it; 1–600',
  },
});

/**
 * What a `/release` session reads from the environment, the same for Slack (`helmcrew bot`) and
 * the terminal (`helmcrew release`): the cluster, the queue prefix previews are asked on, the
 * time-outs and the zone `--until 18:00` is read in. A bad value stops start-up naming the variable.
 */
export interface SessionConfig {
  kubeconfig?: string;
  /** Previews are asked over Redis; the terminal goes without when it is not set (the bot requires it). */
  redisUrl?: string;
  /** The cluster's keyspace (HELMCREW_QUEUE_PREFIX and HELMCREW_CLUSTER_NAME, core/fleet/cluster-keys.ts). */
  keyPrefix: string;
  /** The cluster's name (HELMCREW_CLUSTER_NAME, else `default`), as its controller names it (a promotion's proposal). */
  cluster: string;
  /** How long the person waits for the controller's report before hearing it is still pending. */
  outcomeTimeoutMs: number;
  /** How long a plan waits for the controller's object diff before it is shown without one. */
  previewTimeoutMs: number;
  /** The zone `--until 18:00` is read in. */
  timeZone: string;
}

export function readSessionConfig(env: Env = process.env): SessionConfig {
  const shared = SHARED_ENV.in(env);
  const own = SESSION_ENV.in(env);
  const cluster = checkedClusterName(env, shared.text('HELMCREW_QUEUE_PREFIX'));
  return {
    kubeconfig: shared.raw('KUBECONFIG') || undefined,
    redisUrl: shared.raw('REDIS_URL') || undefined,
    keyPrefix: clusterKeyspace(shared.text('HELMCREW_QUEUE_PREFIX'), cluster),
    cluster,
    outcomeTimeoutMs: own.parse('HELMCREW_OUTCOME_TIMEOUT_SECONDS', (e, name, fallback) => intIn(e, name, fallback, 1, 3600)) * 1000,
    previewTimeoutMs: own.parse('HELMCREW_PREVIEW_TIMEOUT_SECONDS', (e, name, fallback) => intIn(e, name, fallback, 1, 600)) * 1000,
    timeZone: shared.text('HELMCREW_TIME_ZONE'),
  };
}

export function intIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}
