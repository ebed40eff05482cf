import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { listReleaseEvents } from '../../core/kube/event-object.js';
import { eventRecord } from '../live/event-watch.js';
import type { TimelineWatches } from '../live/watched-timeline.js';
import type { ReleaseEventRecord } from '../views/timeline.js';

/** The Events recorded on a HelmRelease (one LIST, by field selector): what PagesDeps.events reads over the slim client. */
export function releaseEventReader(rest: KubeRest): (namespace: string, name: string) => Promise<ReleaseEventRecord[]> {
  return async (namespace, name) => (await listReleaseEvents(rest, namespace, name)).map((e) => eventRecord(e));
}

/** One record Secret by name, decoded whole (TimelineWatches.readRecord): helm's storage reads it, not older than `notOlderThan`. */
export function recordReader(storage: Pick<ReleaseStorage, 'historyOfRecords'>): TimelineWatches['readRecord'] {
  return async (namespace, releaseName, name, notOlderThan) =>
    (await storage.historyOfRecords(namespace, releaseName, [name], { notOlderThan }))?.history.releases[0];
}

/** A record Secret the web's watch already read whole, decoded as recordReader's (TimelineWatches.decodeRecord). */
export function recordDecoder(storage: Pick<ReleaseStorage, 'decodeRecord'>): TimelineWatches['decodeRecord'] {
  return (namespace, secret) => storage.decodeRecord(namespace, secret);
}
