import type { KubernetesObject } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, ReleaseEvent } from '../../api/vocabulary.js';
import { eventTime, listReleaseEvents, type EventObject } from '../../core/kube/event-object.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { ListWatch, restWatch, type Listed } from '../../core/kube/watch/list-watch.js';
import { pagedList, type ListPage } from '../../core/kube/watch/paged-list.js';
import { sharedString } from '../../core/kube/watch/shared-strings.js';
import type { Logger } from '../../core/log.js';
import type { ReleaseEventRecord } from '../views/timeline.js';
import { OnReadWatch } from './on-read-watch.js';
import { byCodeUnits } from '../../core/release/name-order.js';

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
  return [...list.filter((e) => e.name !== event.name), event].sort((a, b) => byCodeUnits(b.at, a.at)).slice(0, max);
}

/** The heardWhileListing key of the background LIST of every Event, and its entries. */
const EVERY = '*';
const everyKey = (obj: KeptEvent) => `${obj.metadata.namespace}/${obj.release}/${obj.metadata.name}`;

const isAction = (reason: string) => reason === ReleaseEvent.ActionRequested || reason === ReleaseEvent.ActionRefused;

/** The watch's "list": one Event asked for, none kept — only the version the watch starts from (a limited LIST is a consistent snapshot). */
function versionOnly(rest: KubeRest, path: string): () => Promise<Listed<KeptEvent>> {
  return async () => {
    const page = await rest.request<ListPage<KubernetesObject>>({
      method: 'GET',
      path,
      query: { fieldSelector: ABOUT_HELMRELEASES, limit: 1 },
      timeoutMs: 60_000,
    });
    const resourceVersion = page.metadata?.resourceVersion;
    return { items: [], ...(resourceVersion ? { metadata: { resourceVersion } } : {}) };
  };
}

/**
 * The web's watch of the Events about HelmReleases (every namespace, filtered by the API server), for
 * the release pages' timelines and the assistants' reads: a bounded number per release — the newest
 * Events and, apart, the newest people's actions. It starts without listing them (one LIST of a
 * single Event gives the version to watch from): a release's Events are LISTed, by field selector,
 * the first time a page asks for them (`filled`), and every Event after that arrives on the watch, so
 * a change costs open pages no request. From an assistant's first call on, every Event is listed, a
 * page at a time, in the background (`readEveryEvent`). Until a release's Events are read, `events`
 * says nothing and the caller reads the API server.
 */
export class ReleaseEventWatch extends OnReadWatch<KeptEvent> {
  private byRelease = new Map<string, { recent: KeptRecordOfEvent[]; actions: KeptRecordOfEvent[] }>();
  /** Releases whose Events were LISTed since the watch last listed ("namespace/name"); `every`: all of them. */
  private read = new Set<string>();
  private every = false;
  private everyWanted = false;
  private readonly reading = new Map<string, Promise<void>>();
  /**
   * Events the watch delivered, changed or deleted, while a LIST that holds them was in flight, by
   * release ("namespace/name"; `*` for the background LIST of all): the LIST's copy is older than
   * the watch's, or of an Event already gone, and must not put it back.
   */
  private readonly heardWhileListing = new Map<string, Set<string>>();
  private readonly rest: KubeRest;
  private readonly log: Logger;
  private readonly pageSize: number;

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/events';
    super({
      make: () => new ListWatch<KeptEvent>(versionOnly(opts.rest, path), restWatch(opts.rest, path, undefined, undefined, ABOUT_HELMRELEASES), keptEvent),
      log: opts.log,
      what: 'release Events',
    });
    this.rest = opts.rest;
    this.log = opts.log;
    this.pageSize = opts.pageSize ?? 100;
  }

  protected reset(): void {
    this.byRelease = new Map();
    this.read = new Set();
    this.every = false;
  }

  // A list (the first, or after the watch fell behind) holds none of the Events: what was read is read again when asked.
  protected rebuilt(all: readonly KeptEvent[]): void {
    for (const obj of all) delete obj.event;
    this.byRelease = new Map();
    this.read = new Set();
    this.every = false;
    if (this.everyWanted) this.readEvery();
  }

  /** A release's kept Events (the newest and the people's actions), newest first; undefined until the watch has listed and the release's Events are read (asking starts that). */
  events(namespace: string, name: string): ReleaseEventRecord[] | undefined {
    if (!this.wanted() || this.unread(namespace, name)) return undefined;
    const kept = this.byRelease.get(`${namespace}/${name}`);
    if (!kept) return [];
    const names = new Set(kept.recent.map((e) => e.name));
    return [...kept.recent, ...kept.actions.filter((e) => !names.has(e.name))]
      .sort((a, b) => byCodeUnits(b.at, a.at))
      .map(({ name: _name, ...event }) => event);
  }

  /** Once the release's Events are read (a failed read leaves them unread: `events` then says nothing). */
  async filled(namespace: string, name: string): Promise<void> {
    if (!this.wanted()) return;
    this.unread(namespace, name);
    await this.reading.get(`${namespace}/${name}`);
  }

  /** Assistants ask about any release, at random: every Event about a HelmRelease is listed in the background, a page at a time (again after each list). */
  readEveryEvent(): void {
    if (this.everyWanted) return;
    this.everyWanted = true;
    if (this.wanted()) this.readEvery();
  }

  /** Whether the release's Events are not read yet; if so, their LIST is started (once). */
  private unread(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    if (this.every || this.read.has(key)) return false;
    if (!this.reading.has(key)) {
      const read = this.read;
      const heard = this.listening(key);
      const reading = listReleaseEvents(this.rest, namespace, name)
        .then((events) => {
          if (read !== this.read) return; // listed again meanwhile: read again when asked
          for (const e of events) if (!heard.has(e.metadata?.name ?? '')) this.take(keptEvent(e));
          read.add(key);
          this.touched({ namespace, name });
        })
        .catch((error: unknown) => this.log.warn({ release: key, error: apiErrorMessage(error) }, 'web: a release’s Events could not be read'))
        .finally(() => {
          this.reading.delete(key);
          this.heardWhileListing.delete(key);
        });
      this.reading.set(key, reading);
    }
    return true;
  }

  /** The background LIST of every Event (readEveryEvent) as it last started: settled once its pages have all come. */
  everyRead: Promise<void> = Promise.resolve();

  private readEvery(): void {
    const read = this.read;
    const stale = new Error('the Event watch listed again');
    const heard = this.listening(EVERY);
    const all = pagedList(
      this.rest,
      '/api/v1/events',
      { fieldSelector: ABOUT_HELMRELEASES },
      (obj) => {
        if (read !== this.read) throw stale;
        const kept = keptEvent(obj);
        if (!heard.has(everyKey(kept))) this.take(kept);
        return undefined;
      },
      this.pageSize,
    );
    this.everyRead = all()
      .then(() => {
        if (read === this.read) this.every = true;
      })
      .catch((error: unknown) => {
        if (error !== stale) this.log.warn({ error: apiErrorMessage(error) }, 'web: the Events could not be listed; releases are read as they are asked for');
      })
      .finally(() => this.heardWhileListing.delete(EVERY));
  }

  /** The names the watch will note for `key` until its LIST is taken. */
  private listening(key: string): Set<string> {
    const heard = new Set<string>();
    this.heardWhileListing.set(key, heard);
    return heard;
  }

  /** The watch delivered this Event: a LIST in flight holds an older copy of it, or one of an Event now gone. */
  private heard(obj: KeptEvent): void {
    if (this.heardWhileListing.size === 0) return;
    this.heardWhileListing.get(`${obj.metadata.namespace}/${obj.release}`)?.add(obj.metadata.name);
    this.heardWhileListing.get(EVERY)?.add(everyKey(obj));
  }

  protected put(obj: KeptEvent) {
    this.heard(obj);
    return this.take(obj);
  }

  /** An Event into its release's lists (one entry per Event name, bounded). */
  private take(obj: KeptEvent): { namespace: string; name: string } | undefined {
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
    this.heard(obj);
    const key = `${obj.metadata.namespace}/${obj.release}`;
    const kept = this.byRelease.get(key);
    if (!kept) return undefined;
    kept.recent = kept.recent.filter((e) => e.name !== obj.metadata.name);
    kept.actions = kept.actions.filter((e) => e.name !== obj.metadata.name);
    if (kept.recent.length === 0 && kept.actions.length === 0) this.byRelease.delete(key);
    return { namespace: obj.metadata.namespace, name: obj.release };
  }
}
