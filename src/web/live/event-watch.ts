import type { KubernetesObject } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, ReleaseEvent } from '../../api/vocabulary.js';
import { eventTime, type EventObject } from '../../core/kube/event-object.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import { sharedString } from '../../core/kube/watch/shared-strings.js';
import type { Logger } from '../../core/log.js';
import type { ReleaseEventRecord } from '../views/timeline.js';
import { OnReadWatch } from './on-read-watch.js';

/** Events kept per release: the newest of any reason, and apart from them the newest people's actions (the audit trail). */
export const MAX_EVENTS = 20;
/** An Event's message as kept (the recorder writes at most 1,024 characters). */
const MAX_MESSAGE = 500;
/** The API server filters Events by the object they are about (a field selector the events resource supports). */
export const ABOUT_HELMRELEASES = `involvedObject.kind=${HELMRELEASE_KIND},involvedObject.apiVersion=${API_GROUP}/${API_VERSION}`;

/** Pure: what the timeline shows of an Event, its time by the first field the recorder set; the message cut to `maxMessage`. */
export function eventRecord(e: EventObject, maxMessage = Number.POSITIVE_INFINITY): ReleaseEventRecord {
  return {
    reason: sharedString(e.reason ?? ''),
    message: (e.message ?? '').slice(0, maxMessage),
    at: eventTime(e),
    ...(e.type ? { type: sharedString(e.type) } : {}),
  };
}

/** What the watch's cache keeps of an Event: who it is and which release it is about; `event` only until the index takes it. */
export interface KeptEvent extends KubernetesObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  release: string;
  event?: KeptRecordOfEvent;
}

export type KeptRecordOfEvent = ReleaseEventRecord & { name: string };

/** Pure: an Event as kept (bounded message). */
export function keptEvent(obj: KubernetesObject): KeptEvent {
  if ('release' in obj) return obj as KeptEvent; // already kept (a listed page)
  const e = obj as EventObject;
  const { name = '', namespace = '', resourceVersion } = e.metadata ?? {};
  return {
    metadata: { name, namespace: sharedString(namespace), resourceVersion },
    release: sharedString(e.involvedObject?.name ?? ''),
    event: { name, ...eventRecord(e, MAX_MESSAGE) },
  };
}

/** Pure: `list` with `event` in its place (one entry per Event name), newest first, at most `max`. */
export function withEvent(list: readonly KeptRecordOfEvent[], event: KeptRecordOfEvent, max = MAX_EVENTS): KeptRecordOfEvent[] {
  return [...list.filter((e) => e.name !== event.name), event].sort((a, b) => b.at.localeCompare(a.at)).slice(0, max);
}

const isAction = (reason: string) => reason === ReleaseEvent.ActionRequested || reason === ReleaseEvent.ActionRefused;

/**
 * The web's watch of the Events about HelmReleases (every namespace, filtered by the API server),
 * for the assistants' reads: a bounded number per release — the newest Events and, apart, the newest
 * people's actions — so release_history and explain_failure read memory, not the API server. Until the
 * watch has listed, `events` says nothing and the caller reads the API server.
 */
export class ReleaseEventWatch extends OnReadWatch<KeptEvent> {
  private byRelease = new Map<string, { recent: KeptRecordOfEvent[]; actions: KeptRecordOfEvent[] }>();

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/events';
    super({
      make: () =>
        new ListWatch<KeptEvent>(
          pagedList(opts.rest, path, { fieldSelector: ABOUT_HELMRELEASES }, keptEvent, opts.pageSize ?? 100),
          restWatch(opts.rest, path, undefined, undefined, ABOUT_HELMRELEASES),
          keptEvent,
        ),
      log: opts.log,
      what: 'release Events',
    });
  }

  protected reset(): void {
    this.byRelease = new Map();
  }

  // A relist replaces unchanged Events in the cache without telling: their copies are dropped there.
  protected rebuilt(all: readonly KeptEvent[]): void {
    for (const obj of all) delete obj.event;
  }

  /** A release's kept Events (the newest and the people's actions), newest first; undefined until the watch has listed. */
  events(namespace: string, name: string): ReleaseEventRecord[] | undefined {
    if (!this.wanted()) return undefined;
    const kept = this.byRelease.get(`${namespace}/${name}`);
    if (!kept) return [];
    const names = new Set(kept.recent.map((e) => e.name));
    return [...kept.recent, ...kept.actions.filter((e) => !names.has(e.name))]
      .sort((a, b) => b.at.localeCompare(a.at))
      .map(({ name: _name, ...event }) => event);
  }

  protected put(obj: KeptEvent) {
    const event = obj.event;
    delete obj.event;
    if (!event || !obj.release) return undefined;
    const key = sharedString(`${obj.metadata.namespace}/${obj.release}`);
    const kept = this.byRelease.get(key) ?? { recent: [], actions: [] };
    kept.recent = withEvent(kept.recent, event);
    if (isAction(event.reason)) kept.actions = withEvent(kept.actions, event);
    this.byRelease.set(key, kept);
    return { namespace: obj.metadata.namespace, name: obj.release };
  }

  protected drop(obj: KeptEvent) {
    const key = `${obj.metadata.namespace}/${obj.release}`;
    const kept = this.byRelease.get(key);
    if (!kept) return undefined;
    kept.recent = kept.recent.filter((e) => e.name !== obj.metadata.name);
    kept.actions = kept.actions.filter((e) => e.name !== obj.metadata.name);
    if (kept.recent.length === 0 && kept.actions.length === 0) this.byRelease.delete(key);
    return { namespace: obj.metadata.namespace, name: obj.release };
  }
}
