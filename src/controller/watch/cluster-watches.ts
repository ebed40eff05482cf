import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseCache } from '../reconcile/ports/context.js';
import { InformerSupervisor, type InformerSupervisorOptions } from './informer-supervisor.js';
import { startResync } from './resync.js';
import { ValuesSourceWatch } from './values-source-watch.js';

export interface ClusterWatchesOptions {
  informers: InformerSupervisorOptions;
  /** The values-source watch's options, given the informers it reads releases from. */
  valuesSources: (releases: () => HelmRelease[]) => ConstructorParameters<typeof ValuesSourceWatch>[0];
  /** The periodic resync's options, given the informers it walks. */
  resync: (releases: () => HelmRelease[]) => Parameters<typeof startResync>[0];
}

/**
 * What must run once per cluster: the watches that enqueue (HelmReleases, values sources) and the
 * periodic resync. Started and stopped as leadership comes and goes; each start builds them anew.
 * Between a stop and the next start the cache is empty, and passes read from the API server.
 */
export class ClusterWatches implements ReleaseCache {
  private running?: { informers: InformerSupervisor; valuesSources: ValuesSourceWatch; stopResync: () => void };
  private transition: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ClusterWatchesOptions) {}

  get ready(): boolean {
    return this.running?.informers.ready ?? false;
  }

  get active(): boolean {
    return this.running !== undefined;
  }

  list(): HelmRelease[] {
    return this.running?.informers.list() ?? [];
  }

  get(namespace: string, name: string): HelmRelease | undefined {
    return this.running?.informers.get(namespace, name);
  }

  /** The API server answers again: watches waiting to restart start now; resolves once they listed. */
  async retryNow(): Promise<void> {
    await Promise.all([this.running?.informers.retryNow(), this.running?.valuesSources.retryNow()]);
  }

  start(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (this.running) return;
      const informers = new InformerSupervisor(this.opts.informers);
      const releases = () => informers.list();
      const valuesSources = new ValuesSourceWatch(this.opts.valuesSources(releases));
      this.running = { informers, valuesSources, stopResync: () => undefined };
      await informers.start();
      await valuesSources.start();
      // Stopped while starting: leave it to the stop queued behind this start.
      if (this.running?.informers === informers) this.running.stopResync = startResync(this.opts.resync(releases));
    });
    return this.transition;
  }

  stop(): Promise<void> {
    this.transition = this.transition.then(async () => {
      const running = this.running;
      if (!running) return;
      this.running = undefined;
      running.stopResync();
      await running.informers.stop();
      await running.valuesSources.stop();
    });
    return this.transition;
  }
}
