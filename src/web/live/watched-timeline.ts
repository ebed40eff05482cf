import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { StoredRelease } from '../../core/helm-storage/release-storage.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { ReleaseEventRecord } from '../views/timeline.js';
import type { ReleaseEventWatch } from './event-watch.js';
import type { HelmRecordWatch } from './record-watch.js';

/**
 * A release page's timeline from the web's shared watches of helm's records and of the Events
 * about releases (record-watch.ts, event-watch.ts): read from memory once both have listed, so a
 * page load and a live update cost the API server no history or Event read.
 */
export interface TimelineWatches {
  records: Pick<HelmRecordWatch, 'history' | 'filled' | 'newest' | 'subscribe' | 'revision'>;
  events: Pick<ReleaseEventWatch, 'events' | 'filled' | 'subscribe' | 'revision'>;
  /**
   * One record Secret by name, not older than a version, decoded whole (values included): the
   * newest revision's, for the values the page shows. The watch keeps summaries only — values are
   * what grows with a release, and a page needs one revision's — so a page load GETs that one
   * record, which the API server answers from its watch cache by key (no LIST, no other revision).
   */
  readRecord: (namespace: string, releaseName: string, name: string, notOlderThan: string) => Promise<StoredRelease | undefined>;
  /** A record Secret already read whole (a first look's fill), decoded as readRecord would; undefined when it is not helm's record. */
  decodeRecord: (namespace: string, secret: KubernetesObject) => StoredRelease | undefined;
}

export interface HeldTimeline {
  /** helm's revisions, newest first: summaries (no values). */
  revisions: StoredRelease[];
  events: ReleaseEventRecord[];
  /** The newest revision's record Secret, when this look's fill read it whole: its values need no second GET. */
  newestRead?: KubernetesObject;
}

/** The release's revisions and Events from memory; undefined until both watches have listed (the caller reads the API server). */
export function heldTimeline(watches: TimelineWatches, release: HelmRelease): HeldTimeline | undefined {
  const target = releaseTarget(release);
  const history = watches.records.history(target.namespace, target.releaseName);
  const events = watches.events.events(release.metadata.namespace, release.metadata.name);
  return history && events ? { revisions: history.releases, events } : undefined;
}

/** heldTimeline once the release's records listed by their labels only, and its Events, have been read (a page's first look at it). */
export async function heldTimelineRead(watches: TimelineWatches, release: HelmRelease): Promise<HeldTimeline | undefined> {
  const target = releaseTarget(release);
  const [newestRead] = await Promise.all([
    watches.records.filled(target.namespace, target.releaseName),
    watches.events.filled(release.metadata.namespace, release.metadata.name),
  ]);
  const held = heldTimeline(watches, release);
  return held && newestRead ? { ...held, newestRead } : held;
}

/** The revisions with the newest one whole (its values), reading only that record; undefined when that record cannot be read so. */
export async function withNewestValues(watches: TimelineWatches, release: HelmRelease, held: HeldTimeline): Promise<StoredRelease[] | undefined> {
  if (held.revisions.length === 0) return [];
  const target = releaseTarget(release);
  const newest = watches.records.newest(target.namespace, target.releaseName);
  const whole =
    newest &&
    (held.newestRead?.metadata?.name === newest.name
      ? decodedOrNothing(watches, target.namespace, held.newestRead)
      : await watches.readRecord(target.namespace, target.releaseName, newest.name, newest.seenVersion).catch(() => undefined));
  return whole?.revision === held.revisions[0]!.revision ? [whole, ...held.revisions.slice(1)] : undefined;
}

/** A record that will not decode is as one that cannot be read: the caller reads the API server's history instead. */
function decodedOrNothing(watches: TimelineWatches, namespace: string, secret: KubernetesObject): StoredRelease | undefined {
  try {
    return watches.decodeRecord(namespace, secret);
  } catch {
    return undefined;
  }
}

/** Pure: the key a touched release has in a watch — records by the storage namespace and helm's release name, Events by the HelmRelease. */
export function timelineKeys(release: HelmRelease): { records: string; events: string } {
  const target = releaseTarget(release);
  return { records: `${target.namespace}/${target.releaseName}`, events: `${release.metadata.namespace}/${release.metadata.name}` };
}
