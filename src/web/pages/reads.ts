import type { HelmRelease } from '../../api/helmrelease.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { eachCluster } from '../../session/fleet/each-cluster.js';
import type { ClusterDeps } from '../../session/flow/fleet-routing.js';
import type { ClusterReading } from '../views/fleet-view.js';
import type { ObjectRow } from '../../core/release/object-rows.js';
import { OBJECT_READ_LIMIT, readInventoryRows } from '../../core/release/inventory-rows.js';
import type { ReleaseReading } from '../views/release-view.js';
import { heldTimelineRead, withNewestValues, type HeldTimeline } from '../live/watched-timeline.js';
import type { PagesDeps } from './deps.js';
import { ownFreezes } from './freeze-reads.js';

/**
 * The pages' reads: the own cluster from the shared watch's cache (no API request while it has
 * listed), another cluster of a fleet through its parts, as `/release` reads it (session/fleet).
 */

type Reads = Pick<ClusterDeps, 'api' | 'freezes' | 'proposals'>;

async function liveProposals(reads: Reads, now: Date): Promise<Proposal[]> {
  if (!reads.proposals) return [];
  try {
    return await reads.proposals.listLive(now.getTime());
  } catch {
    // Proposals live in Redis: a page still shows the releases when they cannot be read.
    return [];
  }
}

export async function ownReleases(deps: PagesDeps): Promise<HelmRelease[]> {
  return deps.watch.releases() ?? (await deps.own.api.list()).items;
}

async function readOwn(deps: PagesDeps, name: string | undefined, now: Date): Promise<ClusterReading> {
  const [releases, freezes, proposals] = await Promise.all([ownReleases(deps), ownFreezes(deps), liveProposals(deps.own, now)]);
  return { ...(name ? { name } : {}), releases, freezes, proposals };
}

async function readThrough(reads: Reads, name: string, now: Date): Promise<ClusterReading> {
  const [releases, freezes, proposals] = await Promise.all([reads.api.list(), reads.freezes.list(), liveProposals(reads, now)]);
  return { name, releases: releases.items, freezes: freezes.items, proposals };
}

/** Every cluster the page shows: the own alone without a fleet; with one, each member the way `list --cluster all` gathers them. */
export async function readClusters(deps: PagesDeps, now: Date): Promise<ClusterReading[]> {
  const fleet = deps.fleet;
  if (!fleet) return [await readOwn(deps, undefined, now)];
  const answers = await eachCluster(fleet, (cluster, member) => (member.own ? readOwn(deps, member.name, now) : readThrough(cluster, member.name, now)));
  return answers.map((a) => (a.ok ? a.value : { name: a.member.name, releases: [], freezes: [], proposals: [], unavailable: a.why }));
}

export type Located =
  | { ok: true; own: boolean; reads: Pick<ClusterDeps, 'api' | 'freezes' | 'storage' | 'proposals' | 'timelineEvents' | 'releaseObjects'>; cluster?: string }
  | { ok: false; message: string };

/** The cluster a page names: `undefined` (no fleet, or the own cluster's name) → the own; another → routed through the fleet. */
export async function locateCluster(deps: PagesDeps, cluster: string | undefined): Promise<Located> {
  const fleet = deps.fleet;
  if (!fleet) return cluster === undefined ? { ok: true, own: true, reads: deps.own } : { ok: false, message: 'this server drives one cluster only' };
  if (cluster === undefined || cluster === fleet.own) return { ok: true, own: true, reads: deps.own, cluster: fleet.own };
  const route = await fleet.route(cluster);
  return route.ok ? { ok: true, own: false, reads: route.deps, cluster } : { ok: false, message: route.message };
}

/** Everything the release page shows of one release, `release` already found and allowed. */
export async function readRelease(deps: PagesDeps, where: Extract<Located, { ok: true }>, release: HelmRelease, now: Date): Promise<ReleaseReading> {
  const [timeline, proposals, freezes, objects] = await Promise.all([
    where.own ? ownTimeline(deps, release) : otherTimeline(where, release),
    liveProposals(where.reads, now),
    where.own ? ownFreezes(deps) : where.reads.freezes.list().then((l) => l.items),
    where.own ? readObjects(deps, release) : otherObjects(where, release),
  ]);
  return { release, ...(where.cluster ? { cluster: where.cluster } : {}), ...timeline, proposals, freezes, objects };
}

const historyOf = (reads: Pick<ClusterDeps, 'storage'>, release: HelmRelease) => {
  const target = releaseTarget(release);
  return reads.storage
    .history(target.namespace, target.releaseName)
    .then((h) => h.releases)
    .catch(() => []);
};

/** Another cluster's: helm's history and the Events of people's actions, both through its agent (an older agent answers no Events). */
async function otherTimeline(where: Extract<Located, { ok: true }>, release: HelmRelease): Promise<HeldTimeline> {
  const { namespace, name } = release.metadata;
  const ask = where.reads.timelineEvents;
  const [revisions, events] = await Promise.all([historyOf(where.reads, release), ask ? ask(namespace, name).catch(() => []) : Promise.resolve([])]);
  return { revisions, events };
}

/** The own cluster's: from the shared watches once they have listed (one record GET for the newest values; the first look at a release also reads its listed records), else the API server. */
async function ownTimeline(deps: PagesDeps, release: HelmRelease): Promise<HeldTimeline> {
  const held = deps.timeline && (await heldTimelineRead(deps.timeline, release));
  const revisions = held && (await withNewestValues(deps.timeline!, release, held));
  if (held && revisions) return { revisions, events: held.events };
  const { namespace, name } = release.metadata;
  const [read, events] = await Promise.all([
    historyOf(deps.own, release),
    held ? held.events : deps.events ? deps.events(namespace, name).catch(() => []) : Promise.resolve([]),
  ]);
  return { revisions: read, events };
}

/** The release's own cluster object: from the watch's cache when it has listed, else one GET. */
export async function findRelease(deps: PagesDeps, where: Extract<Located, { ok: true }>, namespace: string, name: string): Promise<HelmRelease | undefined> {
  if (where.own && deps.watch.releases()) return deps.watch.release(namespace, name);
  return where.reads.api.get(namespace, name);
}

/** Another cluster's: read by its agent as the release's identity; an older agent or no answer in time: listed unread, never an error page. */
async function otherObjects(where: Extract<Located, { ok: true }>, release: HelmRelease): Promise<ObjectRow[]> {
  const unread = () => readInventoryRows(undefined, release.status?.inventory);
  const ask = where.reads.releaseObjects;
  return ask ? ask(release.metadata.namespace, release.metadata.name).catch(unread) : unread();
}

async function readObjects(deps: PagesDeps, release: HelmRelease): Promise<ObjectRow[]> {
  return readInventoryRows(deps.objects, release.status?.inventory, deps.objectReadLimit ?? OBJECT_READ_LIMIT);
}
