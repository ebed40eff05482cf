import type { Freeze } from '../../api/freeze.js';
import type { FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import { canonicalJson } from '../../core/fleet/signed-command.js';
import { freezeRows, type FreezeRow } from './freezes-view.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** One cluster's Freezes as read (its own, through its agent for another), or why they could not be read. */
export type ClusterFreezes = { cluster: string; own: boolean; freezes: readonly Freeze[] } | { cluster: string; own: boolean; unreadable: string };

/** What the banner and the freezes page show of a fleet: every row with where it holds, and the clusters whose Freezes are unknown. */
export interface FleetFreezeRows {
  rows: FreezeRow[];
  unknown: string[];
}

// An agent's answer carries the fleet freezes taking its cluster in, parsed alike on both ends: the same object is the same freeze.
const sameFreeze = (a: Freeze, b: Freeze) => canonicalJson(JSON.parse(JSON.stringify(a))) === canonicalJson(JSON.parse(JSON.stringify(b)));

/**
 * Pure: the Freezes of every cluster of a fleet and the fleet freezes, as rows saying where each
 * holds — `cluster edge` for a cluster's own Freeze object, `fleet: prod-*, edge` for a fleet
 * freeze (shown once, not again under each cluster it takes in, as its agent also answers it).
 * Only the own cluster's Freezes and the fleet freezes can be lifted from this web (another
 * cluster's are lifted there). A cluster that did not answer is named with why: its Freezes are
 * unknown, not absent. Active rows first, as `freezeRows` orders them.
 */
export function fleetFreezeRows(clusters: readonly ClusterFreezes[], records: readonly FleetFreeze[], now: Date): FleetFreezeRows {
  const fleetRows = records.map((r) => ({ freeze: r.freeze, where: `fleet: ${r.clusters.join(', ')}`, liftable: true }));
  const clusterRows = clusters.flatMap((c) =>
    'freezes' in c
      ? c.freezes.filter((f) => !records.some((r) => sameFreeze(r.freeze, f))).map((freeze) => ({ freeze, where: `cluster ${c.cluster}`, liftable: c.own }))
      : [],
  );
  const rows = [...fleetRows, ...clusterRows].map(({ freeze, where, liftable }) => ({ ...freezeRows([freeze], now)[0]!, where, liftable }));
  const order = { active: 0, waiting: 1, ended: 2 };
  rows.sort((a, b) => order[a.state] - order[b.state] || byCodeUnits(a.where, b.where) || byCodeUnits(a.name, b.name));
  const unknown = clusters.flatMap((c) => ('unreadable' in c ? [`cluster ${c.cluster}: ${c.unreadable}`] : []));
  return { rows, unknown };
}

/** Pure: the banner's part of them: the active rows, and which clusters' Freezes are unknown. */
export function fleetBannerRows(clusters: readonly ClusterFreezes[], records: readonly FleetFreeze[], now: Date): FleetFreezeRows {
  const all = fleetFreezeRows(clusters, records, now);
  return { rows: all.rows.filter((r) => r.state === 'active'), unknown: all.unknown };
}
