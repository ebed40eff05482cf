import type { KubernetesObject } from '@kubernetes/client-node';

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
