import { ConfigError, type Env } from '../../core/config/env.js';

/**
 * What a `/release` session reads from the environment, the same for Slack (`helmcrew bot`) and
 * the terminal (`helmcrew release`): the cluster, the queue prefix previews are asked on, the
 * time-outs and the zone `--until 18:00` is read in. A bad value stops start-up naming the variable.
 */
export interface SessionConfig {
  kubeconfig?: string;
  /** Previews are asked over Redis; the terminal goes without when it is not set (the bot requires it). */
  redisUrl?: string;
  keyPrefix: string;
  /** How long the person waits for the controller's report before hearing it is still pending. */
  outcomeTimeoutMs: number;
  /** How long a plan waits for the controller's object diff before it is shown without one. */
  previewTimeoutMs: number;
  /** The zone `--until 18:00` is read in. */
  timeZone: string;
}

export function readSessionConfig(env: Env = process.env): SessionConfig {
  return {
    kubeconfig: env.KUBECONFIG || undefined,
    redisUrl: env.REDIS_URL || undefined,
    keyPrefix: env.HELMCREW_QUEUE_PREFIX || 'helmcrew',
    outcomeTimeoutMs: intIn(env, 'HELMCREW_OUTCOME_TIMEOUT_SECONDS', 300, 1, 3600) * 1000,
    previewTimeoutMs: intIn(env, 'HELMCREW_PREVIEW_TIMEOUT_SECONDS', 20, 1, 600) * 1000,
    timeZone: env.HELMCREW_TIME_ZONE || 'UTC',
  };
}

export function intIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}
