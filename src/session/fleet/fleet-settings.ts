import type { Freeze } from '../../api/freeze.js';
import { checkedClusterName, ConfigError, SHARED_ENV, type Env } from '../../core/config/env.js';
import { declareEnv } from '../../core/config/registry.js';
import { clusterKey, clusterKeyspace } from '../../core/fleet/cluster-keys.js';
import { controllerNamespace } from '../../core/kube/digest-key.js';
import { freezesOfCluster, type FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { ProposalStore } from '../../core/proposals/proposal-store.js';
import type { RedisConnection } from '../../core/redis.js';
import { intIn } from '../flow/config.js';
import type { ClusterDeps, FleetRouting } from '../flow/fleet-routing.js';
import type { ProposalVoteFlowDeps } from '../flow/proposal-votes.js';
import { FleetKeys } from './fleet-keys.js';
import type { FleetRouter } from './fleet-router.js';

/**
 * A fleet as the surfaces that drive one read and start it — Slack's bot and the web pages alike
 * (issue 47): the settings, the keys checked at start-up, the router over every cluster, the
 * fleet freezes the own cluster's plans warn of, and where a proposal's votes go.
 */

/** The fleet's variables (docs/configuration.md is generated from them). */
export const FLEET_ENV = declareEnv(['bot', 'web'], {
  HELMCREW_FLEET_KEYS_DIR: {
    defaultText: 'none (no fleet)',
    meaning:
      'a fleet: a directory with one file per cluster, named after it, holding that cluster’s `HELMCREW_COMMAND_KEY` (a Secret mounted as a volume); `/release … --cluster NAME` then reaches those clusters through their agents on the shared Redis, and the web pages show and act on them ([operations](operations.md#running-a-fleet), [web](web.md#a-fleet))',
  },
  HELMCREW_FLEET_TIMEOUT_SECONDS: {
    default: 10,
    meaning: 'how long the bot and the web wait for a fleet agent’s answer to a read or a command before saying it did not answer; 1–300',
  },
});

/** A fleet: the own cluster (HELMCREW_CLUSTER_NAME), the shared prefix, where the per-cluster keys are, how long an agent has to answer. */
export interface FleetSettings {
  own: string;
  fleetPrefix: string;
  keysDir: string;
  timeoutMs: number;
  /** Where the fleet notify keeps every cluster's Slack message references (HELMCREW_NAMESPACE, as notify reads it): the web's thread links. */
  notifyNamespace?: string;
}

/** The fleet settings, or undefined without HELMCREW_FLEET_KEYS_DIR; a bad value stops start-up naming the variable. */
export function readFleetSettings(env: Env): FleetSettings | undefined {
  const own = FLEET_ENV.in(env);
  const keysDir = own.raw('HELMCREW_FLEET_KEYS_DIR') || undefined;
  if (!keysDir) return undefined;
  const fleetPrefix = SHARED_ENV.in(env).text('HELMCREW_QUEUE_PREFIX');
  return {
    own: checkedClusterName(env, fleetPrefix),
    fleetPrefix,
    keysDir,
    timeoutMs: own.parse('HELMCREW_FLEET_TIMEOUT_SECONDS', (e, name, fallback) => intIn(e, name, fallback, 1, 300)) * 1000,
    notifyNamespace: controllerNamespace(SHARED_ENV.in(env).raw('HELMCREW_NAMESPACE') || undefined),
  };
}

/** The fleet's keys, checked: a bad key file stops start-up naming the file, never its content. */
export async function checkedFleetKeys(settings: FleetSettings, log: Logger): Promise<FleetKeys> {
  const keys = new FleetKeys(settings.keysDir);
  const checked = await keys.check();
  if (checked.problems.length > 0) throw new ConfigError(`HELMCREW_FLEET_KEYS_DIR: ${checked.problems.join('; ')}`);
  log.info({ cluster: settings.own, clusters: checked.clusters }, 'fleet: commands for these clusters go through their agents');
  return keys;
}

/** The fleet freezes that take in `own` (this process's cluster), as its controller reads them: its plans warn of them. */
export function ownFleetFreezes(store: FleetFreezeStore, own: string): () => Promise<Freeze[]> {
  return async () => freezesOfCluster(await store.list(), own);
}

export interface FleetParts {
  /** BullMQ's connection (it retries for ever): the agents' queues and the heartbeats. */
  redis: RedisConnection;
  /** The own cluster through its kubeconfig. */
  local: ClusterDeps;
  freezes: FleetFreezeStore;
  /** The Teams (in the own cluster) decide who may, in every cluster. */
  teams: Pick<TeamApi, 'list'>;
  log: Logger;
  timeZone: string;
  previewTimeoutMs: number;
}

/** The fleet's router over keys already checked (checkedFleetKeys); loaded only for a fleet (it brings BullMQ: `helmcrew web` loads it on first use otherwise). */
export async function fleetRouter(settings: FleetSettings, keys: FleetKeys, parts: FleetParts): Promise<FleetRouter> {
  const { FleetRouter } = await import('./fleet-router.js');
  return new FleetRouter({ own: settings.own, fleetPrefix: settings.fleetPrefix, keys, queryTimeoutMs: settings.timeoutMs, ...parts });
}

/** The fleet's router, its keys checked first (checkedFleetKeys). */
export async function startFleetRouter(settings: FleetSettings, parts: FleetParts): Promise<FleetRouter> {
  return fleetRouter(settings, await checkedFleetKeys(settings, parts.log), parts);
}

/**
 * Where a proposal's votes go (issue 35): the proposal store of the cluster it names — the own
 * keyspace, or, in a fleet, that cluster's (the hub reads every cluster's) — and its release, read
 * from that cluster (through its agent). Without a fleet, another cluster's proposal is out of reach.
 */
export function proposalReach(opts: {
  redis: RedisConnection;
  /** The own cluster's name and keyspace. */
  own: string;
  keyPrefix: string;
  /** The own cluster's release reads. */
  api: Pick<HelmReleaseApi, 'get'>;
  fleet?: { settings: FleetSettings; router: FleetRouting };
  /** Who says so when a proposal is out of reach: `this bot`, `this server`. */
  speaker: string;
}): Pick<ProposalVoteFlowDeps, 'store' | 'locate' | 'showCluster'> {
  const { redis, own, fleet } = opts;
  const ownStore = new ProposalStore(redis, clusterKey(opts.keyPrefix, 'proposals'));
  return {
    store: (cluster) => {
      if (cluster === own) return ownStore;
      if (fleet) return new ProposalStore(redis, clusterKey(clusterKeyspace(fleet.settings.fleetPrefix, cluster), 'proposals'));
      return `the proposal is from cluster ${cluster}; ${opts.speaker} drives only its own (${own})`;
    },
    locate: async (cluster, namespace, name) => {
      const route = cluster === own || !fleet ? undefined : await fleet.router.route(cluster);
      if (route && !route.ok) return { ok: false, message: route.message };
      const release = await (route?.ok ? route.deps.api : opts.api).get(namespace, name);
      if (!release) return { ok: false, message: `${namespace}/${name} no longer exists${route ? ` in cluster ${cluster}` : ''}` };
      return { ok: true, release, local: !route };
    },
    showCluster: fleet !== undefined,
  };
}
