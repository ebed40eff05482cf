import type { KubernetesObject } from '@kubernetes/client-node';
import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import { API_GROUP, API_VERSION, FREEZE_PLURAL, HELMRELEASE_PLURAL, TEAM_PLURAL } from '../../api/vocabulary.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { ListWatch, restWatch, type Listed } from '../../core/kube/watch/list-watch.js';
import { shareStrings } from '../../core/kube/watch/shared-strings.js';
import { withoutBookkeeping } from '../../core/kube/watch/cache-trim.js';
import type { Logger } from '../../core/log.js';

/** What changed: one release (by key), or the Freezes (any of them: the banner and every release's Frozen mark may move). */
export type WatchChange = { kind: 'release'; namespace: string; name: string } | { kind: 'freezes' };

export type ChangeListener = (change: WatchChange) => void;

type Kind = 'releases' | 'freezes' | 'teams';

const kept = new WeakSet<KubernetesObject>();

/**
 * What the pages' cache keeps of an object — what every watch's cache keeps (cache-trim.ts: no
 * managedFields, no kubectl last-applied copy, which repeats the values), with its repeated strings
 * shared: the web's RSS at 1,000 releases (docs/performance.md). The paged list keeps each release
 * as it arrives and the informer keeps what it is given: one already kept is not walked again (as
 * the controller's keptOfRelease).
 */
export function keptForPages<T extends KubernetesObject>(obj: T): T {
  if (kept.has(obj)) return obj;
  const trimmed = shareStrings(withoutBookkeeping(obj));
  kept.add(trimmed);
  return trimmed;
}

/**
 * The web's ONE watch of the cluster's HelmReleases and Freezes (the controller's informer, kept
 * running by KeptWatch). Pages read from its cache and every open page's live stream hears of
 * changes from it, so fifty open pages cost the API server one watch, not fifty, and a change costs
 * it nothing more. Listeners only take note (an exception in one is caught and logged).
 */
export class SharedReleaseWatch {
  private readonly slots = new Map<Kind, KeptWatch>();
  private readonly listeners = new Set<ChangeListener>();
  private changes = 0;

  constructor(
    private readonly opts: {
      rest: KubeRest;
      /** `teams`, when given, is watched too (the assistants' calls read who may from it). */
      list: { releases: () => Promise<Listed<HelmRelease>>; freezes: () => Promise<Listed<Freeze>>; teams?: () => Promise<Listed<Team>> };
      log: Logger;
    },
  ) {
    this.slots.set('releases', this.watchOf('releases', HELMRELEASE_PLURAL));
    this.slots.set('freezes', this.watchOf('freezes', FREEZE_PLURAL));
    if (opts.list.teams) this.slots.set('teams', this.watchOf('teams', TEAM_PLURAL));
  }

  async start(): Promise<void> {
    await Promise.all([...this.slots.values()].map((w) => w.start()));
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    await Promise.all([...this.slots.values()].map((w) => w.stop()));
  }

  /** Every cache listed: pages may read from memory. */
  get ready(): boolean {
    return [...this.slots.values()].every((w) => w.synced);
  }

  /** The cached releases, or undefined while the watch has not listed (the page then reads the API server itself). */
  releases(): HelmRelease[] | undefined {
    return this.slots.get('releases')?.informer?.list() as unknown as HelmRelease[] | undefined;
  }

  freezes(): Freeze[] | undefined {
    return this.slots.get('freezes')?.informer?.list() as unknown as Freeze[] | undefined;
  }

  /** The cached Teams (when watched), or undefined while the watch has not listed. */
  teams(): Team[] | undefined {
    const slot = this.slots.get('teams');
    return slot?.synced ? (slot.informer?.list() as unknown as Team[] | undefined) : undefined;
  }

  release(namespace: string, name: string): HelmRelease | undefined {
    return this.releases()?.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  }

  /** Hear of every change until the returned function is called. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** Counts every release and Freeze change seen: what a page rendered at one revision showed is still so while it stays. */
  get revision(): number {
    return this.changes;
  }

  private emit(change: WatchChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.opts.log.warn({ err: error }, 'a live page listener failed');
      }
    }
  }

  private watchOf(kind: Kind, plural: string): KeptWatch {
    const list = this.opts.list[kind] as () => Promise<Listed<KubernetesObject>>;
    return new KeptWatch({
      make: () => new ListWatch<KubernetesObject>(list, restWatch(this.opts.rest, `/apis/${API_GROUP}/${API_VERSION}/${plural}`), keptForPages),
      wire: (informer, current) => {
        const changed = (obj: KubernetesObject) => {
          // Nobody listens for Teams: who may is read at the next request.
          if (!current() || kind === 'teams') return;
          this.changes += 1;
          if (kind === 'freezes') this.emit({ kind: 'freezes' });
          else this.emit({ kind: 'release', namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' });
        };
        informer.on('add', changed);
        informer.on('update', changed);
        informer.on('delete', changed);
      },
      onFailure: (error, delayMs, repeated) =>
        this.opts.log[repeated ? 'debug' : 'warn']({ kind, delayMs, error: apiErrorMessage(error) }, `web pages: the ${kind} watch failed; restarting`),
    });
  }
}
