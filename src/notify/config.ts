import { positiveInt, positiveNumber, readSharedConfig, type Env, type SharedConfig } from '../core/config/env.js';

export interface NotifyConfig extends SharedConfig {
  /** Deliveries in flight at once in this process (each to a different release/channel). */
  concurrency: number;
  /** The same event of the same operation within this window is said once. */
  coalesceWindowMs: number;
  /** Messages per second per channel (Slack: about 1), and the short burst allowed. */
  ratePerSecond: number;
  rateBurst: number;
  /** How often Teams are listed again. */
  teamRefreshMs: number;
  /** How long a crashed process can hold a delivery before another takes it over. */
  lockMs: number;
  /** Serve only Teams matching this label selector; default: every Team. */
  teamSelector?: string;
  /** HELMCREW_CLUSTER_NAME: said in every message. */
  clusterName?: string;
  /** HELMCREW_STATUS_URL: a release's status page, `{namespace}` and `{name}` filled in (templates' links.status, Teams' link). */
  statusUrl?: string;
  /** /healthz, /readyz and /metrics when set (`helmcrew notify`; in `run` the controller's server serves them). */
  healthPort?: number;
}

export function readNotifyConfig(env: Env = process.env): NotifyConfig {
  return {
    ...readSharedConfig(env),
    concurrency: positiveInt(env, 'HELMCREW_NOTIFY_CONCURRENCY', 16),
    coalesceWindowMs: positiveInt(env, 'HELMCREW_NOTIFY_COALESCE_MS', 10 * 60_000),
    ratePerSecond: positiveNumber(env, 'HELMCREW_NOTIFY_RATE_PER_SECOND', 1),
    rateBurst: positiveInt(env, 'HELMCREW_NOTIFY_RATE_BURST', 1),
    teamRefreshMs: positiveInt(env, 'HELMCREW_TEAM_REFRESH_MS', 5000),
    lockMs: positiveInt(env, 'HELMCREW_NOTIFY_LOCK_MS', 30_000),
    teamSelector: env.HELMCREW_TEAM_SELECTOR || undefined,
    clusterName: env.HELMCREW_CLUSTER_NAME?.trim() || undefined,
    statusUrl: env.HELMCREW_STATUS_URL?.trim() || undefined,
    healthPort: env.HEALTH_PORT ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
  };
}
