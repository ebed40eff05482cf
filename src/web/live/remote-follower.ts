import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Logger } from '../../core/log.js';

/** Calls `changed` at each change signalled for one cluster until the returned function is called. */
export type ChangeSignal = (changed: () => void) => () => void;

/** What a page shows of another cluster, as its agent last answered (or why it could not be asked). */
export interface RemoteReading {
  releases: HelmRelease[];
  freezes: Freeze[];
  unavailable?: string;
}

/**
 * One other cluster of a fleet, followed for every open page that shows it: started by the first
 * page's subscription, stopped with the last. It asks the cluster's agent nothing until the cluster
 * signals a change (its controller published a release event: notify-signal.ts), then one question
 * — its releases — however many pages follow; changes signalled while a question is out are one
 * more question after it. Its Freezes are asked once per start (they send no signal). Pages render
 * from what it holds (`latest`), as the own cluster's pages render from the shared watch.
 */
export class RemoteFollower {
  private readonly listeners = new Set<(reading: RemoteReading) => void>();
  private stopSignal?: () => void;
  private reading?: RemoteReading;
  private freezes?: Freeze[];
  private asking = false;
  private askAgain = false;
  private questions = 0;

  constructor(
    private readonly opts: {
      cluster: string;
      releases: () => Promise<HelmRelease[]>;
      freezes: () => Promise<Freeze[]>;
      signal: ChangeSignal;
      log: Logger;
    },
  ) {}

  /** Hear of each fresh reading until the returned function is called; the first subscriber starts the follower. */
  subscribe(listener: (reading: RemoteReading) => void): () => void {
    this.listeners.add(listener);
    if (!this.stopSignal) this.stopSignal = this.opts.signal(() => this.ask());
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.stopSignal?.();
      this.stopSignal = undefined;
      this.reading = undefined;
      this.freezes = undefined;
    };
  }

  /** The last reading since the follower started; undefined before the first change. */
  latest(): RemoteReading | undefined {
    return this.reading;
  }

  /** Questions asked of the agent since this follower was made (its releases and, once per start, its Freezes). */
  get asked(): number {
    return this.questions;
  }

  private ask(): void {
    if (this.asking) {
      this.askAgain = true;
      return;
    }
    this.asking = true;
    void this.read()
      .then((reading) => {
        if (!this.stopSignal) return; // stopped meanwhile: nobody follows
        this.reading = reading;
        for (const listener of this.listeners) listener(reading);
      })
      .finally(() => {
        this.asking = false;
        if (this.askAgain && this.stopSignal) {
          this.askAgain = false;
          this.ask();
        }
      });
  }

  private async read(): Promise<RemoteReading> {
    try {
      if (!this.freezes) {
        this.questions += 1;
        this.freezes = await this.opts.freezes();
      }
      this.questions += 1;
      return { releases: await this.opts.releases(), freezes: this.freezes };
    } catch (error) {
      this.opts.log.debug({ cluster: this.opts.cluster, err: error }, 'a followed cluster could not be read');
      return { releases: this.reading?.releases ?? [], freezes: this.freezes ?? [], unavailable: (error as Error).message };
    }
  }
}
