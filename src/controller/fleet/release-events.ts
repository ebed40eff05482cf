import type { KubeRest } from '../../core/kube/rest-client.js';
import type { FleetEventRecord } from '../../core/fleet/fleet-events.js';
import { eventTime, listReleaseEvents } from '../../core/kube/event-object.js';

/**
 * The Events recorded on one HelmRelease of this cluster (one LIST by field selector), for the
 * agent's `events` answer: the controller's role lists Events for it (helm/helmcrew rbac.yaml).
 */
export function releaseEventLister(rest: KubeRest): (namespace: string, name: string) => Promise<FleetEventRecord[]> {
  return async (namespace, name) =>
    (await listReleaseEvents(rest, namespace, name)).map((e) => ({
      reason: e.reason ?? '',
      message: e.message ?? '',
      at: eventTime(e),
      ...(e.type ? { type: e.type } : {}),
    }));
}
