import { ConfigError, positiveInt, readSharedConfig, SHARED_ENV, type Env, type SharedConfig } from '../core/config/env.js';
import { declareEnv } from '../core/config/registry.js';
import { DELIVERY_ATTEMPTS } from './delivery/retry-policy.js';
import { parseNotifyClusters } from './fleet-clusters.js';

/** notify's variables (docs/configuration.md is generated from them); its providers read theirs from here too. */
export const NOTIFY_ENV = declareEnv(['notify'], {
  HELMCREW_NOTIFY_CONCURRENCY: { default: 16, meaning: 'deliveries in flight at once per process (each to a different release and channel)' },
  HELMCREW_NOTIFY_COALESCE_MS: { default: 600_000, meaning: 'the same event of the same operation within this window is said once' },
  HELMCREW_NOTIFY_RATE_PER_SECOND: { default: 1, meaning: 'messages per second per channel (Slack allows about 1)' },
  HELMCREW_NOTIFY_RATE_BURST: { default: 1, meaning: 'the short burst allowed above that rate' },
  HELMCREW_TEAM_REFRESH_MS: { default: 5000, meaning: 'how often Teams are listed again' },
  HELMCREW_NOTIFY_LOCK_MS: { default: 30_000, meaning: 'how long a crashed process can hold a delivery before another takes it over' },
  HELMCREW_NOTIFY_DELIVERY_ATTEMPTS: {
    default: DELIVERY_ATTEMPTS,
    meaning:
      'failed tries of one delivery (1 s, 2 s, 4 s … apart, at most 5 min) before it waits in its mailbox for the next notification; a server pacing with `Retry-After` uses none, for up to an hour',
  },
  HELMCREW_TEAM_SELECTOR: { defaultText: 'every Team', meaning: 'serve only the Teams matching this label selector' },
  HELMCREW_STATUS_URL: {
    defaultText: 'none',
    meaning: 'a release’s status page, `{namespace}` and `{name}` filled in: templates’ `links.status`, the Teams card’s link',
  },
  HELMCREW_NOTIFY_CLUSTERS: {
    defaultText: 'this cluster only',
    meaning:
      'one notify for a fleet: the clusters whose events it reads, comma-separated names or globs (`*`: every cluster of the fleet index, `prod-*`), each from its own keyspace and named in every message ([operations](operations.md#running-a-fleet)); its Redis user is the hub',
  },
  HELMCREW_PAGERDUTY_URL: { default: 'https://events.pagerduty.com/v2/enqueue', meaning: 'the PagerDuty Events API v2 endpoint (a proxy, or the local fake)' },
});

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
  /** Failed tries of one drain job before it waits for the next notification (Retry-After pacing uses none). */
  deliveryAttempts: number;
  /** Serve only Teams matching this label selector; default: every Team. */
  teamSelector?: string;
  /** HELMCREW_CLUSTER_NAME: said in every message. */
  clusterName?: string;
  /** HELMCREW_NOTIFY_CLUSTERS: a fleet notify's cluster names and globs; undefined: this cluster's keyspace only. */
  fleetClusters?: string[];
  /** HELMCREW_STATUS_URL: a release's status page, `{namespace}` and `{name}` filled in (templates' links.status, Teams' link). */
  statusUrl?: string;
  /** /healthz, /readyz and /metrics when set (`helmcrew notify`; in `run` the controller's server serves them). */
  healthPort?: number;
}

export function readNotifyConfig(env: Env = process.env): NotifyConfig {
  const own = NOTIFY_ENV.in(env);
  const fleet = parseNotifyClusters(own.raw('HELMCREW_NOTIFY_CLUSTERS'));
  if (!fleet.ok) throw new ConfigError(fleet.message);
  return {
    ...readSharedConfig(env),
    concurrency: own.positiveInt('HELMCREW_NOTIFY_CONCURRENCY'),
    coalesceWindowMs: own.positiveInt('HELMCREW_NOTIFY_COALESCE_MS'),
    ratePerSecond: own.positiveNumber('HELMCREW_NOTIFY_RATE_PER_SECOND'),
    rateBurst: own.positiveInt('HELMCREW_NOTIFY_RATE_BURST'),
    teamRefreshMs: own.positiveInt('HELMCREW_TEAM_REFRESH_MS'),
    lockMs: own.positiveInt('HELMCREW_NOTIFY_LOCK_MS'),
    deliveryAttempts: own.positiveInt('HELMCREW_NOTIFY_DELIVERY_ATTEMPTS'),
    teamSelector: own.raw('HELMCREW_TEAM_SELECTOR') || undefined,
    clusterName: SHARED_ENV.in(env).raw('HELMCREW_CLUSTER_NAME')?.trim() || undefined,
    statusUrl: own.raw('HELMCREW_STATUS_URL')?.trim() || undefined,
    ...(fleet.patterns.length > 0 ? { fleetClusters: fleet.patterns } : {}),
    healthPort: SHARED_ENV.in(env).raw('HEALTH_PORT') ? positiveInt(env, 'HEALTH_PORT', 8081) : undefined,
  };
}
