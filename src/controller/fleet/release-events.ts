import { seg, type KubeRest } from '../../core/kube/rest-client.js';
import type { FleetEventRecord } from '../../core/fleet/fleet-events.js';

interface EventItem {
  reason?: string;
  message?: string;
  type?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  metadata?: { creationTimestamp?: string };
}

/**
 * The Events recorded on one HelmRelease of this cluster (one LIST by field selector), for the
 * agent's `events` answer: the controller's role lists Events for it (helm/helmcrew rbac.yaml).
 */
export function releaseEventLister(rest: KubeRest): (namespace: string, name: string) => Promise<FleetEventRecord[]> {
  return async (namespace, name) => {
    const list = await rest.request<{ items?: EventItem[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${seg(namespace)}/events`,
      query: { fieldSelector: `involvedObject.name=${name},involvedObject.kind=HelmRelease` },
    });
    return (list.items ?? []).map((e) => ({
      reason: e.reason ?? '',
      message: e.message ?? '',
      at: String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? ''),
      ...(e.type ? { type: e.type } : {}),
    }));
  };
}
