import type { KubernetesObject } from '@kubernetes/client-node';
import { HELMRELEASE_KIND } from '../../api/vocabulary.js';
import { seg, type KubeRest } from './rest-client.js';

/** An Event as the API server sends it: what a release's timeline reads of it (the web's watch and LIST, an agent's `events` answer). */
export interface EventObject extends KubernetesObject {
  involvedObject?: { name?: string };
  reason?: string;
  message?: string;
  type?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
}

/** Pure: when an Event happened, by the first time field its recorder set (recorders set different ones). */
export function eventTime(e: EventObject): string {
  return String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '');
}

/** The Events recorded on one HelmRelease (one LIST by field selector): a web page's timeline, an agent's `events` answer. */
export async function listReleaseEvents(rest: KubeRest, namespace: string, name: string): Promise<EventObject[]> {
  const list = await rest.request<{ items?: EventObject[] }>({
    method: 'GET',
    path: `/api/v1/namespaces/${seg(namespace)}/events`,
    query: { fieldSelector: `involvedObject.name=${name},involvedObject.kind=${HELMRELEASE_KIND}` },
  });
  return list.items ?? [];
}
