import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseCache } from '../reconcile/ports/context.js';
import { InformerSupervisor, type InformerSupervisorOptions } from './informer-supervisor.js';
import { startResync } from './resync.js';
import { ValuesSourceWatch } from './values-source-watch.js';
import { ReleaseRecordWatch } from './release-record-watch.js';
import { SettledHistories } from './settled-histories.js';

export interface ClusterWatchesOptions {
  informers: InformerSupervisorOptions;
  /** The values-source watch's options, given the informers it reads releases from. */
  valuesSources: (releases: () => HelmRelease[]) => ConstructorParameters<typeof ValuesSourceWatch>[0];
  /** The periodic resync's options, given the informers it walks. */
  resync: (releases: () => HelmRelease[]) => Parameters<typeof startResync>[0];
  /** The watch of Helm's record Secrets' metadata that lets settled checks skip their LIST; none: every check reads. */
  records?: Omit<ConstructorParameters<typeof ReleaseRecordWatch>[0], 'onChange' | 'onReset'>;
  /** How long a remembered history may stand for a read (settled-histories.ts' default unless told). */
  maxRecallAgeMs?: number;
}

/**
 * What must run once per cluster: the watches that enqueue (HelmReleases, values sources) and the
 * periodic resync. Started and stopped as leadership comes and goes; each start builds them anew.
 * Between a stop and the next start the cache is empty, and passes read from the API server.
 */
export class ClusterWatches implements ReleaseCache {
  private running?: { informers: InformerSupervisor; valuesSources: ValuesSourceWatch; records?: ReleaseRecordWatch; stopResync: () => void };
  private transition: Promise<void> = Promise.resolve();
  /** What settled checks last read, recalled while the record watch shows it unchanged (the pass's `settled` port). */
  readonly settled: SettledHistories;

  constructor(private readonly opts: ClusterWatchesOptions) {
    this.settled = new SettledHistories((namespace, releaseName) => this.running?.records?.watched(namespace, releaseName), {
      ...(opts.maxRecallAgeMs !== undefined ? { maxAgeMs: opts.maxRecallAgeMs } : {}),
      names: (namespace, releaseName, notOlderThan, withoutSuperseded, rightsKnown) =>
        this.running?.records?.recordNames(namespace, releaseName, notOlderThan, withoutSuperseded, rightsKnown),
    });
  }

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
    await Promise.all([this.running?.informers.retryNow(), this.running?.valuesSources.retryNow(), this.running?.records?.retryNow()]);
  }

  start(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (this.running) return;
      const informers = new InformerSupervisor(this.opts.informers);
      const releases = () => informers.list();
      const valuesSources = new ValuesSourceWatch(this.opts.valuesSources(releases));
      const records = this.opts.records
        ? new ReleaseRecordWatch({
            ...this.opts.records,
            onChange: (namespace, releaseName, version) => this.settled.forget(namespace, releaseName, version),
            onReset: (scope) => this.settled.forgetScope(scope),
          })
        : undefined;
      this.running = { informers, valuesSources, ...(records ? { records } : {}), stopResync: () => undefined };
      await informers.start();
      await valuesSources.start();
      await records?.start();
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
      await running.records?.stop();
      this.settled.forgetScope('');
    });
    return this.transition;
  }
}
