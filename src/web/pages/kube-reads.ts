import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { seg, type KubeRest } from '../../core/kube/rest-client.js';
import type { EventObject } from '../../core/kube/event-object.js';
import { eventRecord } from '../live/event-watch.js';
import type { TimelineWatches } from '../live/watched-timeline.js';
import type { ReleaseEventRecord } from '../views/timeline.js';

/** The Events recorded on a HelmRelease (one LIST, by field selector): what PagesDeps.events reads over the slim client. */
export function releaseEventReader(rest: KubeRest): (namespace: string, name: string) => Promise<ReleaseEventRecord[]> {
  return async (namespace, name) => {
    const list = await rest.request<{ items?: EventObject[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${seg(namespace)}/events`,
      query: { fieldSelector: `involvedObject.name=${name},involvedObject.kind=HelmRelease` },
    });
    return (list.items ?? []).map((e) => eventRecord(e));
  };
}

/** One record Secret by name, decoded whole (TimelineWatches.readRecord): helm's storage reads it, not older than `notOlderThan`. */
export function recordReader(storage: Pick<ReleaseStorage, 'historyOfRecords'>): TimelineWatches['readRecord'] {
  return async (namespace, releaseName, name, notOlderThan) =>
    (await storage.historyOfRecords(namespace, releaseName, [name], { notOlderThan }))?.history.releases[0];
}
