import { byCodeUnits } from '../release/name-order.js';

/**
 * An agent's heartbeat and the fleet as read from them (pure). Each controller replica writes its
 * record every interval; a cluster is up while any replica's record is fresh, and unreachable since
 * its last record once every replica has been silent for `STALE_AFTER_BEATS` intervals.
 */

/** Silent this many of its own intervals, a replica counts as gone (one lost beat is not an outage). */
export const STALE_AFTER_BEATS = 3;

export interface AgentHeartbeat {
  cluster: string;
  /** helmcrew's version on that replica. */
  version: string;
  /** HelmReleases the replica's watches hold (0 on a replica that is not the leader). */
  releases: number;
  /** The replica's id (its pod name, or host and pid). */
  replica: string;
  /** When it was written (ISO 8601). */
  at: string;
  /** How often the replica writes: what "stale" is measured in. */
  intervalMs: number;
}

export type ClusterState = 'up' | 'unreachable';

export interface FleetCluster {
  name: string;
  state: ClusterState;
  /** The freshest record's version, and the largest release count among fresh replicas (the leader's). */
  version: string;
  releases: number;
  /** Replicas whose record is fresh. */
  replicas: number;
  /** The freshest heartbeat, and how long ago it was. */
  lastHeartbeat: string;
  ageMs: number;
}

/** A stored record, or undefined when it is not one (a torn write, another tool's key): skipped, never fatal. */
export function parseHeartbeat(raw: string): AgentHeartbeat | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const ok =
    typeof r.cluster === 'string' &&
    typeof r.version === 'string' &&
    typeof r.replica === 'string' &&
    typeof r.at === 'string' &&
    !Number.isNaN(Date.parse(r.at)) &&
    Number.isInteger(r.releases) &&
    typeof r.intervalMs === 'number' &&
    r.intervalMs > 0;
  return ok ? (value as AgentHeartbeat) : undefined;
}

export function isFresh(beat: AgentHeartbeat, now: number): boolean {
  return now - Date.parse(beat.at) <= STALE_AFTER_BEATS * beat.intervalMs;
}

/** One cluster from its replicas' records; undefined when it has none left. */
export function clusterFromHeartbeats(name: string, beats: AgentHeartbeat[], now: number): FleetCluster | undefined {
  const own = beats.filter((b) => b.cluster === name);
  if (own.length === 0) return undefined;
  const latest = own.reduce((a, b) => (Date.parse(b.at) > Date.parse(a.at) ? b : a));
  const fresh = own.filter((b) => isFresh(b, now));
  return {
    name,
    state: fresh.length > 0 ? 'up' : 'unreachable',
    version: latest.version,
    releases: Math.max(...(fresh.length > 0 ? fresh : [latest]).map((b) => b.releases)),
    replicas: fresh.length,
    lastHeartbeat: latest.at,
    ageMs: Math.max(0, now - Date.parse(latest.at)),
  };
}

/** The fleet, sorted by name: every named cluster that has a record. */
export function fleetFromHeartbeats(byCluster: Map<string, AgentHeartbeat[]>, now: number): FleetCluster[] {
  return [...byCluster.entries()]
    .map(([name, beats]) => clusterFromHeartbeats(name, beats, now))
    .filter((c): c is FleetCluster => c !== undefined)
    .sort((a, b) => byCodeUnits(a.name, b.name));
}

/** Replica records older than the record's time to live: the writer removes them (pods come and go). */
export function expiredReplicas(beats: Map<string, string>, now: number, ttlMs: number): string[] {
  const expired: string[] = [];
  for (const [replica, raw] of beats) {
    const beat = parseHeartbeat(raw);
    if (!beat || now - Date.parse(beat.at) > ttlMs) expired.push(replica);
  }
  return expired;
}

/** `3s`, `5m`, `2h`, `4d`: an age as a person reads it. */
export function shortAge(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** The fleet as a table for a terminal (and later a chat reply). */
export function renderFleet(fleet: FleetCluster[]): string {
  if (fleet.length === 0) return 'no agent has announced itself on this Redis and prefix';
  const rows = fleet.map((c) => [
    c.name,
    c.state === 'up' ? `up (${c.replicas} replica${c.replicas === 1 ? '' : 's'})` : `unreachable since ${c.lastHeartbeat}`,
    c.version,
    String(c.releases),
    `${shortAge(c.ageMs)} ago`,
  ]);
  const table = [['CLUSTER', 'STATE', 'VERSION', 'RELEASES', 'LAST HEARTBEAT'], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  return table.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
