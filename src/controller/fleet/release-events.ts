import { seg, type KubeRest } from '../../core/kube/rest-client.js';
import type { FleetEventRecord } from '../../core/fleet/fleet-events.js';
import { eventTime, type EventObject } from '../../core/kube/event-object.js';

/**
 * The Events recorded on one HelmRelease of this cluster (one LIST by field selector), for the
 * agent's `events` answer: the controller's role lists Events for it (helm/helmcrew rbac.yaml).
 */
export function releaseEventLister(rest: KubeRest): (namespace: string, name: string) => Promise<FleetEventRecord[]> {
  return async (namespace, name) => {
    const list = await rest.request<{ items?: EventObject[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${seg(namespace)}/events`,
      query: { fieldSelector: `involvedObject.name=${name},involvedObject.kind=HelmRelease` },
    });
    return (list.items ?? []).map((e) => ({
      reason: e.reason ?? '',
      message: e.message ?? '',
      at: eventTime(e),
      ...(e.type ? { type: e.type } : {}),
    }));
  };
}
