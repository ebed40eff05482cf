import type { KubernetesObject } from '@kubernetes/client-node';
import type { ListWatch } from './list-watch.js';
import { isRepeatedOutageFailure, watchRestartDelayMs } from './restart-delay.js';

export interface KeptWatchOptions<T extends KubernetesObject> {
  /** A fresh informer for each start. */
  make: () => ListWatch<T>;
  /** Attaches the owner's handlers; `current()` is false once this informer was replaced or stopped. */
  wire: (informer: ListWatch<T>, current: () => boolean) => void;
  /** Before each start: what the owner built from the last informer is stale. */
  beforeStart?: () => void;
  /** After each list; `first`: the first since the start or since a failure. */
  onListed?: (first: boolean) => void;
  /**
   * A list or watch failed; a fresh informer starts after `delayMs` (the owner logs it). `repeated`:
   * it only says again that the API server is down or starting (log it at debug level).
   */
  onFailure: (error: unknown, delayMs: number, repeated: boolean) => void;
}

/**
 * One informer kept running. A ListWatch reports a failed list or watch once and stops, so this
 * stops it and starts a fresh one after a backoff (restart-delay.ts: every ≤ 2 s while the API server
 * is down or starting, else 1 s doubling to 30 s; back to the start after a good list). Events of a replaced informer are dropped (`current()`), so a restart cannot cause another.
 * What it knows is withdrawn at a failure (`informer` undefined until a fresh one has listed), as
 * the record, values-source and freeze watches want; the HelmRelease informers keep serving their
 * last list through an outage instead (informer-supervisor.ts).
 */
export class KeptWatch<T extends KubernetesObject = KubernetesObject> {
  private running?: ListWatch<T>;
  private listed = false;
  private failures = 0;
  private stopped = false;
  private pending?: NodeJS.Timeout;

  constructor(private readonly opts: KeptWatchOptions<T>) {}

  /** The informer, once it has listed and until it fails: undefined while what it would say is not known. */
  get informer(): ListWatch<T> | undefined {
    return this.listed ? this.running : undefined;
  }

  get synced(): boolean {
    return this.listed;
  }

  /** Starts a fresh informer; resolves when its first list is done or has failed. */
  async start(): Promise<void> {
    this.cancelPending();
    if (this.stopped) return;
    void this.running?.stop().catch(() => undefined);
    this.listed = false;
    this.opts.beforeStart?.();
    const informer = this.opts.make();
    this.running = informer;
    const current = () => this.running === informer && !this.stopped;
    this.opts.wire(informer, current);
    informer.on('synced', () => {
      if (!current()) return;
      const first = !this.listed;
      this.listed = true;
      this.failures = 0;
      this.opts.onListed?.(first);
    });
    informer.on('error', (error) => current() && this.restartLater(error));
    try {
      await informer.start();
    } catch (error) {
      if (current()) this.restartLater(error);
    }
  }

  /**
   * The API server answers again after an outage: a fresh informer lists now, whether a restart was
   * waiting out its backoff or a watch had reconnected while the server was still starting (a watch
   * opened then was seen to miss an update for good: bench api-restart). Resolves once it listed or failed.
   */
  async retryNow(): Promise<void> {
    if (!this.stopped) await this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelPending();
    await this.running?.stop().catch(() => undefined);
  }

  private restartLater(error: unknown): void {
    const stale = this.running;
    this.running = undefined;
    this.listed = false;
    void stale?.stop().catch(() => undefined);
    this.failures += 1;
    const delay = watchRestartDelayMs(this.failures, error);
    this.opts.onFailure(error, delay, isRepeatedOutageFailure(this.failures, error));
    this.cancelPending();
    this.pending = setTimeout(() => void this.start(), delay);
    this.pending.unref();
  }

  private cancelPending(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
  }
}
