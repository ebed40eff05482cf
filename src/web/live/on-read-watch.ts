import type { KubernetesObject } from '@kubernetes/client-node';
import { apiErrorMessage } from '../../core/kube/errors.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import type { ListWatch } from '../../core/kube/watch/list-watch.js';
import { StartedOnRead } from '../../core/kube/watch/started-on-read.js';
import type { Logger } from '../../core/log.js';

/** Hears which release changed (its namespace and name as the watch keys them). */
export type ReleaseTouched = (namespace: string, name: string) => void;

/**
 * What the web's helm-record and Event watches share: one informer kept running (KeptWatch),
 * started by its first read (StartedOnRead: a server nobody reads them on never lists), and the
 * listeners that hear which release a change touched — the open release pages, which then render
 * from memory: fifty open pages cost the API server nothing more per change. A subclass keeps its
 * own index: `put` on add and update, `drop` on delete, `rebuilt` after each list.
 */
export abstract class OnReadWatch<T extends KubernetesObject> {
  protected readonly watch: KeptWatch<T>;
  private readonly lifecycle: StartedOnRead;
  private readonly listeners = new Set<ReleaseTouched>();
  private changes = 0;

  protected constructor(opts: { make: () => ListWatch<T>; log: Logger; what: string }) {
    this.watch = new KeptWatch<T>({
      make: opts.make,
      beforeStart: () => this.reset(),
      wire: (informer, current) => {
        informer.on('add', (obj) => current() && this.touched(this.put(obj)));
        informer.on('update', (obj) => current() && this.touched(this.put(obj)));
        informer.on('delete', (obj) => current() && this.touched(this.drop(obj)));
      },
      onListed: () => {
        this.rebuilt(this.watch.informer?.list() ?? []);
        this.touched(undefined);
      },
      onFailure: (error, delayMs, repeated) =>
        opts.log[repeated ? 'debug' : 'warn']({ delayMs, error: apiErrorMessage(error) }, `web: the ${opts.what} watch failed; restarting`),
    });
    this.lifecycle = new StartedOnRead(this.watch);
  }

  /** Started by this or by the first read: the web server leaves it to the first reader. */
  async start(): Promise<void> {
    await this.lifecycle.start();
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    await this.lifecycle.stop();
  }

  get synced(): boolean {
    return this.watch.synced;
  }

  /** Counts every change seen: what was rendered at one count is still so while it stays. */
  get revision(): number {
    return this.changes;
  }

  /** Hear of each release a change touches (after a list: every release, `'*'`) until the returned function is called. */
  subscribe(listener: ReleaseTouched): () => void {
    this.lifecycle.wanted();
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A read: starts the watch if it is not started; whether it has listed. */
  protected wanted(): boolean {
    return this.lifecycle.wanted();
  }

  protected abstract reset(): void;
  /** Takes an added or changed object into the index; the release it is about (undefined: none). */
  protected abstract put(obj: T): { namespace: string; name: string } | undefined;
  protected abstract drop(obj: T): { namespace: string; name: string } | undefined;
  /** After a list, which replaces unchanged objects in the cache without telling. */
  protected abstract rebuilt(all: readonly T[]): void;

  protected touched(release: { namespace: string; name: string } | undefined): void {
    this.changes += 1;
    if (this.listeners.size === 0 || !this.watch.synced) return;
    for (const listener of this.listeners) listener(release?.namespace ?? '*', release?.name ?? '*');
  }
}
