import { seg, type KubeRest } from '../../core/kube/rest-client.js';
import type { ReleaseEventRecord } from '../views/timeline.js';

interface EventList {
  items: Array<{
    reason?: string;
    message?: string;
    type?: string;
    lastTimestamp?: string;
    eventTime?: string;
    firstTimestamp?: string;
    metadata?: { creationTimestamp?: string };
  }>;
}

/** The Events recorded on a HelmRelease (one LIST, by field selector): what PagesDeps.events reads over the slim client. */
export function releaseEventReader(rest: KubeRest): (namespace: string, name: string) => Promise<ReleaseEventRecord[]> {
  return async (namespace, name) => {
    const list = await rest.request<EventList>({
      method: 'GET',
      path: `/api/v1/namespaces/${seg(namespace)}/events`,
      query: { fieldSelector: `involvedObject.name=${name},involvedObject.kind=HelmRelease` },
    });
    return (list.items ?? []).map((e) => ({
      reason: e.reason ?? '',
      message: e.message ?? '',
      at: e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '',
      ...(e.type ? { type: e.type } : {}),
    }));
  };
}
