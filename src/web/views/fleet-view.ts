import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import { freezesHolding } from '../../core/release/freeze-match.js';
import { releaseFacts } from '../../core/release/team-releases.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { conditionOf, isMark, MARK_LABEL, MARKS, releaseMarks, type Mark } from './marks.js';
import { maySee } from './visibility.js';
import { ConditionType } from '../../api/vocabulary.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** One cluster as the fleet page reads it: its releases, Freezes and live proposals, or why it could not be read. */
export interface ClusterReading {
  /** undefined: the server's one cluster (no fleet). */
  name?: string;
  releases: HelmRelease[];
  freezes: Freeze[];
  proposals: Proposal[];
  unavailable?: string;
}

export interface FleetFilters {
  cluster?: string;
  namespace?: string;
  team?: string;
  state?: Mark;
}

export interface ReleaseRow {
  cluster?: string;
  namespace: string;
  name: string;
  chart: string;
  version: string;
  marks: Array<{ mark: Mark; label: string }>;
  /** The Ready condition's message, only when the release is not Ready: why it failed or what it waits for. */
  message: string;
}

export interface FleetView {
  clusters: Array<{ name?: string; unavailable?: string; namespaces: Array<{ name: string; releases: ReleaseRow[] }>; count: number }>;
  /** Over what the person may see, after the filters. */
  counts: { total: number } & Record<Mark, number>;
  /** What the filter menus offer: only what the person may see. */
  options: { clusters: string[]; namespaces: string[]; teams: string[]; states: Array<{ value: Mark; label: string }> };
  filters: FleetFilters;
}

/** Pure: the query string's filters; unknown states and empty values are dropped, not errors (a page, not a form to refuse). */
export function parseFleetFilters(query: Record<string, unknown>): FleetFilters {
  const text = (key: string) => (typeof query[key] === 'string' && query[key].trim() ? query[key].trim().slice(0, 253) : undefined);
  const state = text('state');
  return {
    ...(text('cluster') ? { cluster: text('cluster') } : {}),
    ...(text('namespace') ? { namespace: text('namespace') } : {}),
    ...(text('team') ? { team: text('team') } : {}),
    ...(state && isMark(state) ? { state } : {}),
  };
}

/** Pure: a release's row (its marks from its status, the freezes holding it now and the proposals naming it). */
export function releaseRow(release: HelmRelease, reading: Pick<ClusterReading, 'name' | 'freezes' | 'proposals'>, now: Date): ReleaseRow {
  const { namespace, name } = release.metadata;
  const holding = freezesHolding(releaseFacts(release), reading.freezes, [], now);
  const proposals = reading.proposals.filter(
    (p) => p.release.namespace === namespace && p.release.name === name && (!reading.name || p.release.cluster === reading.name),
  );
  const marks = releaseMarks(release, { frozenBy: holding.length, proposals: proposals.length });
  const ready = conditionOf(release, ConditionType.Ready);
  return {
    ...(reading.name ? { cluster: reading.name } : {}),
    namespace,
    name,
    chart: release.spec.chart.name,
    version: release.status?.history?.[0]?.chartVersion ?? release.spec.chart.version ?? '',
    marks: marks.map((mark) => ({ mark, label: MARK_LABEL[mark] })),
    // A Ready release's message only says it succeeded: 900 of 1,000 rows repeating it made the fleet page
    // a quarter longer (docs/performance.md). Its page shows it with the other conditions.
    message: ready?.status === 'True' ? '' : (ready?.message ?? ''),
  };
}

/**
 * Pure: the fleet page. Clusters → namespaces → releases the person may `status` (their Teams),
 * filtered by cluster, namespace, Team (a Team of theirs whose rules cover the release) and state,
 * with counts per mark.
 */
export function fleetView(
  readings: readonly ClusterReading[],
  viewer: { subject: Subject; teams: readonly TeamPolicy[] },
  filters: FleetFilters,
  now: Date,
): FleetView {
  const counts = Object.fromEntries([['total', 0], ...MARKS.map((m) => [m, 0])]) as FleetView['counts'];
  const options = { clusters: new Set<string>(), namespaces: new Set<string>(), teams: new Set<string>() };
  const clusters: FleetView['clusters'] = [];
  for (const reading of readings) {
    if (reading.name) options.clusters.add(reading.name);
    if (filters.cluster && reading.name !== filters.cluster) continue;
    const namespaces = new Map<string, ReleaseRow[]>();
    for (const release of reading.releases) {
      if (!maySee(viewer.subject, viewer.teams, release, reading.name)) continue;
      options.namespaces.add(release.metadata.namespace);
      const seenBy = viewer.teams.filter((team) => maySee(viewer.subject, [team], release, reading.name)).map((t) => t.name);
      for (const team of seenBy) options.teams.add(team);
      if (filters.namespace && release.metadata.namespace !== filters.namespace) continue;
      if (filters.team && !seenBy.includes(filters.team)) continue;
      const row = releaseRow(release, reading, now);
      if (filters.state && !row.marks.some((m) => m.mark === filters.state)) continue;
      counts.total += 1;
      for (const { mark } of row.marks) counts[mark] += 1;
      // Pushed, not copied: a copy per release made a fleet page of 1,000 rows allocate ~125,000 array slots.
      const rows = namespaces.get(release.metadata.namespace);
      if (rows) rows.push(row);
      else namespaces.set(release.metadata.namespace, [row]);
    }
    const sorted = [...namespaces.entries()]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([name, releases]) => ({ name, releases: releases.sort((a, b) => byCodeUnits(a.name, b.name)) }));
    clusters.push({
      ...(reading.name ? { name: reading.name } : {}),
      ...(reading.unavailable ? { unavailable: reading.unavailable } : {}),
      namespaces: sorted,
      count: sorted.reduce((n, ns) => n + ns.releases.length, 0),
    });
  }
  const sortedSet = (s: Set<string>) => [...s].sort();
  return {
    clusters,
    counts,
    options: {
      clusters: sortedSet(options.clusters),
      namespaces: sortedSet(options.namespaces),
      teams: sortedSet(options.teams),
      states: MARKS.map((value) => ({ value, label: MARK_LABEL[value] })),
    },
    filters,
  };
}
