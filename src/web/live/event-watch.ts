import type { KubernetesObject } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, ReleaseEvent } from '../../api/vocabulary.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { StartedOnRead } from '../../core/kube/watch/started-on-read.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import { sharedString } from '../../core/kube/watch/shared-strings.js';
import type { Logger } from '../../core/log.js';
import type { ReleaseEventRecord } from '../views/timeline.js';

/** Events kept per release: the newest of any reason, and apart from them the newest people's actions (the audit trail). */
export const MAX_EVENTS = 20;
/** An Event's message as kept (the recorder writes at most 1,024 characters). */
const MAX_MESSAGE = 500;
/** The API server filters Events by the object they are about (a field selector the events resource supports). */
export const ABOUT_HELMRELEASES = `involvedObject.kind=${HELMRELEASE_KIND},involvedObject.apiVersion=${API_GROUP}/${API_VERSION}`;

interface EventObject extends KubernetesObject {
  involvedObject?: { name?: string };
  reason?: string;
  message?: string;
  type?: string;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
}

/** What the watch's cache keeps of an Event: who it is and which release it is about; `event` only until the index takes it. */
export interface KeptEvent extends KubernetesObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  release: string;
  event?: KeptRecordOfEvent;
}

export type KeptRecordOfEvent = ReleaseEventRecord & { name: string };

/** Pure: an Event as kept (bounded message, its time by the first field the recorder set). */
export function keptEvent(obj: KubernetesObject): KeptEvent {
  if ('release' in obj) return obj as KeptEvent; // already kept (a listed page)
  const e = obj as EventObject;
  const { name = '', namespace = '', resourceVersion, creationTimestamp } = e.metadata ?? {};
  const at = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? (creationTimestamp as unknown as string | undefined) ?? '';
  return {
    metadata: { name, namespace: sharedString(namespace), resourceVersion },
    release: sharedString(e.involvedObject?.name ?? ''),
    event: {
      name,
      reason: sharedString(e.reason ?? ''),
      message: (e.message ?? '').slice(0, MAX_MESSAGE),
      at: String(at),
      ...(e.type ? { type: sharedString(e.type) } : {}),
    },
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
export class ReleaseEventWatch {
  private readonly lifecycle: StartedOnRead;
  private readonly watch: KeptWatch<KeptEvent>;
  private byRelease = new Map<string, { recent: KeptRecordOfEvent[]; actions: KeptRecordOfEvent[] }>();

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/events';
    this.watch = new KeptWatch<KeptEvent>({
      make: () =>
        new ListWatch<KeptEvent>(
          pagedList(opts.rest, path, { fieldSelector: ABOUT_HELMRELEASES }, keptEvent, opts.pageSize ?? 100),
          restWatch(opts.rest, path, undefined, undefined, ABOUT_HELMRELEASES),
          keptEvent,
        ),
      beforeStart: () => {
        this.byRelease = new Map();
      },
      wire: (informer, current) => {
        informer.on('add', (obj) => current() && this.put(obj));
        informer.on('update', (obj) => current() && this.put(obj));
        informer.on('delete', (obj) => current() && this.drop(obj));
      },
      // A relist replaces unchanged Events in the cache without telling: their copies are dropped there.
      onListed: () => {
        for (const obj of this.watch.informer?.list() ?? []) delete obj.event;
      },
      onFailure: (error, delayMs, repeated) =>
        opts.log[repeated ? 'debug' : 'warn']({ delayMs, error: apiErrorMessage(error) }, 'web: the release Events watch failed; restarting'),
    });
    this.lifecycle = new StartedOnRead(this.watch);
  }

  /** Started by this or by the first read (started-on-read.ts): the web server leaves it to the first assistant's call. */
  async start(): Promise<void> {
    await this.lifecycle.start();
  }

  async stop(): Promise<void> {
    await this.lifecycle.stop();
  }

  private wanted(): void {
    this.lifecycle.wanted();
  }

  get synced(): boolean {
    return this.watch.synced;
  }

  /** A release's kept Events (the newest and the people's actions), newest first; undefined until the watch has listed. */
  events(namespace: string, name: string): ReleaseEventRecord[] | undefined {
    this.wanted();
    if (!this.synced) return undefined;
    const kept = this.byRelease.get(`${namespace}/${name}`);
    if (!kept) return [];
    const names = new Set(kept.recent.map((e) => e.name));
    return [...kept.recent, ...kept.actions.filter((e) => !names.has(e.name))]
      .sort((a, b) => b.at.localeCompare(a.at))
      .map(({ name: _name, ...event }) => event);
  }

  private put(obj: KeptEvent): void {
    const event = obj.event;
    delete obj.event;
    if (!event || !obj.release) return;
    const key = sharedString(`${obj.metadata.namespace}/${obj.release}`);
    const kept = this.byRelease.get(key) ?? { recent: [], actions: [] };
    kept.recent = withEvent(kept.recent, event);
    if (isAction(event.reason)) kept.actions = withEvent(kept.actions, event);
    this.byRelease.set(key, kept);
  }

  private drop(obj: KeptEvent): void {
    const key = `${obj.metadata.namespace}/${obj.release}`;
    const kept = this.byRelease.get(key);
    if (!kept) return;
    kept.recent = kept.recent.filter((e) => e.name !== obj.metadata.name);
    kept.actions = kept.actions.filter((e) => e.name !== obj.metadata.name);
    if (kept.recent.length === 0 && kept.actions.length === 0) this.byRelease.delete(key);
  }
}
