import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeApiError, type KubeStatus } from '../api-error.js';
import type { KubeRest } from '../rest-client.js';
import { sharedString } from './shared-strings.js';

export interface Listed<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubernetesObject & KubeStatus;
}

/** Streams watch events from a resourceVersion until the server ends the watch or `signal` aborts it. */
export type WatchFn = (resourceVersion: string | undefined, onOpen: () => void, onEvent: (event: WatchEvent) => void, signal: AbortSignal) => Promise<void>;

type Handlers<T> = {
  add: (obj: T) => void;
  update: (obj: T) => void;
  delete: (obj: T) => void;
  /** A watch connection was opened (first or after the server ended the previous one). */
  connect: () => void;
  /** The server's periodic bookmark: the watch is alive even though nothing changed. */
  bookmark: () => void;
  /** A list succeeded and what it found has been reported (after the first list's adds, too). */
  synced: () => void;
  /** The watch failed; this ListWatch is finished and its owner starts a new one (with backoff). */
  error: (error: unknown) => void;
};

/** The list is too old for a watch to continue from (410 Gone, or "Expired"). */
function isGone(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 410;
}

// One flat copy of each key, shared with the other maps keyed by namespace/name (shared-strings.ts).
const keyOf = (obj: KubernetesObject) => sharedString(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);

/**
 * A small informer: list, then watch from the list's resourceVersion (with bookmarks), keeping
 * a cache. A watch the server ends is resumed from the last resourceVersion seen; 410 Gone
 * relists and reports only the differences. Any other failure is reported once through `error`
 * and ends this ListWatch: its owner replaces it (kept-watch.ts, InformerSupervisor).
 *
 * start() rejects when the first list fails (client-node's resolves, which hid failures).
 */
export class ListWatch<T extends KubernetesObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: { [K in keyof Handlers<T>]: Array<Handlers<T>[K]> } = {
    add: [],
    update: [],
    delete: [],
    connect: [],
    bookmark: [],
    synced: [],
    error: [],
  };
  private resourceVersion?: string;
  private heardMs = 0;
  private readonly stopping = new AbortController();
  private watchAbort?: AbortController;
  private gone = false;
  private failure?: KubeApiError;
  private loop?: Promise<void>;

  constructor(
    private readonly listFn: () => Promise<Listed<T>>,
    private readonly watchFn: WatchFn,
    /** What the cache keeps of each listed or watched object (all of it unless told). */
    private readonly keep: (obj: T) => T = (obj) => obj,
  ) {}

  on<K extends keyof Handlers<T>>(event: K, handler: Handlers<T>[K]): void {
    this.handlers[event].push(handler);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** The newest resourceVersion seen: the last list's, an event's or a bookmark's (undefined before the first list). */
  get seenVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** When the server was last heard from (a list, a watch opened, an event, a bookmark), ms since the epoch; 0 never. */
  get lastHeardMs(): number {
    return this.heardMs;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(`${namespace ?? ''}/${name}`);
  }

  async start(): Promise<void> {
    await this.relist();
    this.loop = this.watchLoop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.watchAbort?.abort();
    await this.loop;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async watchLoop(): Promise<void> {
    while (!this.stopped) {
      this.gone = false;
      this.watchAbort = new AbortController();
      try {
        await this.watchFn(
          this.resourceVersion,
          () => {
            this.heardMs = Date.now();
            this.emit('connect');
          },
          (event) => this.apply(event),
          this.watchAbort.signal,
        );
        if (this.stopped) return;
        if (this.failure) return this.emit('error', this.failure);
        if (!this.gone) continue; // the server ended the watch (its timeout): resume
      } catch (error) {
        if (this.stopped) return;
        if (!isGone(error)) return this.emit('error', error);
      }
      if (this.stopped) return;
      try {
        await this.relist();
      } catch (error) {
        if (!this.stopped) this.emit('error', error);
        return;
      }
    }
  }

  /** Lists and reports what is new, changed or gone since the cache was filled (everything, the first time). */
  private async relist(): Promise<void> {
    const listed = await this.listFn();
    if (this.stopped) return;
    this.heardMs = Date.now();
    this.resourceVersion = listed.metadata?.resourceVersion;
    const seen = new Set<string>();
    for (const item of listed.items) {
      const obj = this.keep(item);
      const key = keyOf(obj);
      seen.add(key);
      const previous = this.cache.get(key);
      this.cache.set(key, obj);
      if (!previous) this.emit('add', obj);
      else if (previous.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.emit('update', obj);
    }
    for (const [key, obj] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.emit('delete', obj);
    }
    this.emit('synced');
  }

  private apply(event: WatchEvent): void {
    if (this.stopped) return;
    this.heardMs = Date.now();
    if (event.type === 'ERROR') {
      // A Status in the stream; 410 means our resourceVersion expired: relist.
      if (event.object.code === 410) this.gone = true;
      else this.failure = new KubeApiError(event.object.code ?? 500, event.object, 'WATCH', '');
      this.watchAbort?.abort();
      return;
    }
    const version = event.object.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
    if (event.type === 'BOOKMARK') return this.emit('bookmark');
    const obj = this.keep(event.object as unknown as T);
    const key = keyOf(obj);
    if (event.type === 'DELETED') {
      this.cache.delete(key);
      return this.emit('delete', obj);
    }
    const existed = this.cache.has(key);
    this.cache.set(key, obj);
    this.emit(existed ? 'update' : 'add', obj);
  }

  private emit<K extends keyof Handlers<T>>(event: K, ...args: Parameters<Handlers<T>[K]>): void {
    for (const handler of this.handlers[event]) (handler as (...a: unknown[]) => void)(...args);
  }
}

/** A watch of `path` over the slim client: JSON lines, bookmarks on, ended by the server after 5–10 minutes. */
export function restWatch(rest: KubeRest, path: string, accept?: string, labelSelector?: string, fieldSelector?: string): WatchFn {
  return (resourceVersion, onOpen, onEvent, signal) =>
    rest.stream(
      {
        path,
        query: {
          watch: true,
          allowWatchBookmarks: true,
          resourceVersion,
          timeoutSeconds: 300 + Math.floor(Math.random() * 300),
          labelSelector,
          fieldSelector,
        },
        ...(accept ? { accept } : {}),
      },
      onOpen,
      (line) => onEvent(JSON.parse(line) as WatchEvent),
      signal,
    );
}
