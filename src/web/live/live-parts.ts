import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { createHash } from 'node:crypto';
import { fleetSectionId, renderFleetCluster, renderFleetCounts } from '../render/fleet-templates.js';
import { renderBanner, renderReleaseSummary, renderReleaseTimeline } from '../render/templates.js';
import { fleetView, parseFleetFilters, type FleetFilters } from '../views/fleet-view.js';
import { bannerFreezes } from '../views/freezes-view.js';
import { releaseView } from '../views/release-view.js';
import { maySee } from '../views/visibility.js';
import type { WatchChange } from './release-watch.js';
import type { HeldTimeline } from './watched-timeline.js';

/** What one open page follows: the fleet (with its filters), one release (of the own cluster, or of `cluster`, another of the fleet) or the banner. */
export type LivePage = { kind: 'fleet'; filters: FleetFilters } | { kind: 'release'; namespace: string; name: string; cluster?: string } | { kind: 'banner' };

const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Pure: the page a `/events` request follows, from its query; an unusable one is a message. */
export function parseLivePage(query: Record<string, unknown>): { ok: true; page: LivePage } | { ok: false; message: string } {
  const page = query.page;
  if (page === 'fleet' || page === undefined) return { ok: true, page: { kind: 'fleet', filters: parseFleetFilters(query) } };
  if (page === 'banner') return { ok: true, page: { kind: 'banner' } };
  if (page === 'release') {
    const release = typeof query.release === 'string' ? query.release : '';
    const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(release);
    if (!match || release.length > 317) return { ok: false, message: 'release must be <namespace>/<name>' };
    const cluster = query.cluster;
    if (cluster !== undefined && (typeof cluster !== 'string' || !CLUSTER_NAME.test(cluster))) return { ok: false, message: 'cluster must be a cluster name' };
    return { ok: true, page: { kind: 'release', namespace: match[1]!, name: match[3]!, ...(cluster ? { cluster } : {}) } };
  }
  return { ok: false, message: 'page must be fleet, release or banner' };
}

/** Pure: does a change concern the page? Freezes move every page's banner and marks; a release only its own page and the fleet. */
export function concerns(page: LivePage, change: WatchChange): boolean {
  if (change.kind === 'freezes') return true;
  if (page.kind === 'release') return !page.cluster && change.namespace === page.namespace && change.name === page.name;
  return page.kind === 'fleet';
}

export interface LiveSnapshot {
  releases: readonly HelmRelease[];
  freezes: readonly Freeze[];
  proposals: readonly Proposal[];
  /** The own cluster's name in a fleet (undefined: no fleet). */
  cluster?: string;
  /** A release page's revisions and Events from the shared watches (undefined: not listed yet, the timeline part is not sent). */
  timeline?: HeldTimeline;
}

type Viewer = { subject: Subject; teams: readonly TeamPolicy[] };

/**
 * Pure: what a page's parts depend on besides the watched objects — the page, who looks (their
 * Teams as read when the stream connected) and the proposals read then. Streams with one key show
 * the same parts, so they share one render per change (events-route.ts). A digest: a key stays small.
 */
export function livePartsKey(page: LivePage, viewer: Viewer, proposals: readonly Proposal[]): string {
  return createHash('sha256')
    .update(JSON.stringify([page, viewer.subject, viewer.teams, proposals]))
    .digest('base64url');
}

/** Pure: an SSE frame for a part, as written to every stream that shows it. */
export const partFrame = (id: string, html: string) => `event: part\ndata: ${JSON.stringify({ id, html })}\n\n`;

/**
 * Pure: the parts of a page (by element id) as they read now, from the shared watch's memory and
 * for this viewer: the banner always; the fleet page its own cluster's section (and, without a
 * fleet, the counts); a release page its summary (marks, conditions, last failure) and, once the
 * record and Event watches have listed, its timeline.
 */
export function liveParts(page: LivePage, snapshot: LiveSnapshot, viewer: Viewer, now: Date): Record<string, string> {
  // In a fleet the banner holds every cluster's freezes, read with the page: this watch sees the own cluster's only.
  const parts: Record<string, string> = snapshot.cluster ? {} : { 'live-banner': renderBanner(bannerFreezes(snapshot.freezes, now)) };
  const reading = {
    ...(snapshot.cluster ? { name: snapshot.cluster } : {}),
    releases: [...snapshot.releases],
    freezes: [...snapshot.freezes],
    proposals: [...snapshot.proposals],
  };
  if (page.kind === 'fleet') {
    if (page.filters.cluster && page.filters.cluster !== snapshot.cluster) return parts;
    const view = fleetView([reading], viewer, page.filters, now);
    parts[fleetSectionId(snapshot.cluster)] = renderFleetCluster(view.clusters[0]!);
    // With a fleet the counts take in clusters this watch does not see: they stay as the page was read.
    if (!snapshot.cluster) parts['live-counts'] = renderFleetCounts(view);
  }
  // Another cluster's release: its summary comes from its follower, not from here.
  if (page.kind === 'release' && !page.cluster) {
    const release = snapshot.releases.find((r) => r.metadata.namespace === page.namespace && r.metadata.name === page.name);
    if (!release || !maySee(viewer.subject, viewer.teams, release, snapshot.cluster)) {
      parts['live-summary'] = '<div id="live-summary"><p class="error">This release is gone, or no longer yours to see.</p></div>';
      return parts;
    }
    const view = releaseView(
      {
        release,
        ...(snapshot.cluster ? { cluster: snapshot.cluster } : {}),
        revisions: snapshot.timeline?.revisions ?? [],
        events: snapshot.timeline?.events ?? [],
        proposals: [...snapshot.proposals],
        freezes: [...snapshot.freezes],
        objects: [],
      },
      now,
    );
    parts['live-summary'] = renderReleaseSummary(view);
    if (snapshot.timeline) parts['live-timeline'] = renderReleaseTimeline(view);
  }
  return parts;
}
