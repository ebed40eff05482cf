import type { RedisConnection } from '../redis.js';
import type { Freeze } from '../../api/freeze.js';
import { API_GROUP, API_VERSION, FREEZE_KIND } from '../../api/vocabulary.js';
import { fleetFreezesKey } from './cluster-keys.js';
import { clustersMatch } from './cluster-match.js';
import { byCodeUnits } from '../release/name-order.js';

/**
 * Fleet freezes (`/release freeze cluster:prod-* --for 2h`): a freeze of whole clusters, kept in the
 * fleet's keyspace in Redis (a hash, name → record) because no one cluster's API server is the place
 * for it. The bot (the hub's Redis user) writes them; every agent reads them (its ACL allows HGETALL
 * of this one key and nothing else of the fleet's) and holds every helm action while one matching
 * its cluster is active. A record is a Freeze object (scope `all`) with the clusters it holds, so
 * the controller's freeze matching, windows and `until` work unchanged.
 */
export interface FleetFreeze {
  /** Cluster names or globs (core/fleet/cluster-match.ts). */
  clusters: string[];
  freeze: Freeze;
}

/** Pure: a record as read, or a fail-closed stand-in when it cannot be read (it holds every cluster and says why). */
export function parseFleetFreeze(name: string, raw: string): FleetFreeze {
  try {
    const value = JSON.parse(raw) as Partial<FleetFreeze>;
    const clusters = value.clusters;
    const freeze = value.freeze;
    if (
      Array.isArray(clusters) &&
      clusters.length > 0 &&
      clusters.every((c) => typeof c === 'string') &&
      freeze?.metadata?.name === name &&
      typeof freeze.spec?.reason === 'string'
    ) {
      return { clusters, freeze: { ...freeze, spec: { ...freeze.spec, scope: { all: true } } } };
    }
  } catch {
    // below
  }
  // Written by hand or by another version: an unknown freeze might hold this cluster, so it does.
  return {
    clusters: ['*'],
    freeze: fleetFreezeObject(name, { reason: `the fleet freeze record ${name} cannot be read; it holds every cluster until it is lifted` }),
  };
}

/** A fleet freeze's Freeze object: scope `all`, the rest as given. */
export function fleetFreezeObject(name: string, spec: Omit<Freeze['spec'], 'scope'>, metadata: Partial<Freeze['metadata']> = {}): Freeze {
  return { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: FREEZE_KIND, metadata: { ...metadata, name }, spec: { ...spec, scope: { all: true } } };
}

/** Pure: the fleet freezes whose clusters take in this cluster, as Freeze objects. */
export function freezesOfCluster(records: readonly FleetFreeze[], cluster: string): Freeze[] {
  return records.filter((r) => r.clusters.some((pattern) => clustersMatch([pattern], cluster))).map((r) => r.freeze);
}

/** The fleet freezes in Redis: read by every agent, written by the hub (the bot). */
export class FleetFreezeStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    fleetPrefix: string,
  ) {
    this.key = fleetFreezesKey(fleetPrefix);
  }

  async list(): Promise<FleetFreeze[]> {
    const fields = await this.redis.hgetall(this.key);
    return Object.entries(fields)
      .map(([name, raw]) => parseFleetFreeze(name, raw))
      .sort((a, b) => byCodeUnits(a.freeze.metadata.name, b.freeze.metadata.name));
  }

  /** Adds a freeze; false when one of that name is there already. */
  async create(record: FleetFreeze): Promise<boolean> {
    return (await this.redis.hsetnx(this.key, record.freeze.metadata.name, JSON.stringify(record))) === 1;
  }

  /** Lifts a freeze; false when there was none of that name. */
  async delete(name: string): Promise<boolean> {
    return (await this.redis.hdel(this.key, name)) === 1;
  }
}
