import type { Logger } from '../../core/log.js';
import { apiOutageReason, failureDecision, probeDelayMs, type FailureDecision } from './retry-policy.js';

/** The probe an outage asks: `/readyz` (core/kube/readiness-probe.ts). */
export { probeApiServer } from '../../core/kube/readiness-probe.js';

export interface ApiOutageOptions {
  /** One cheap request to the API server; resolves when it answers. */
  probe: () => Promise<unknown>;
  log: Logger;
  delayMs?: (attempt: number) => number;
  now?: () => number;
}

/**
 * Whether the API server is reachable, as this process last found out. A failure that may be an
 * outage is checked with one probe; when the probe fails too, the outage begins: it is logged
 * once, work waits instead of spending retries, and one probe (short backoff) tries until the
 * server answers. Then every listener is told at once (the queue promotes what waits, the
 * informers reconnect), so nothing waits for the next step of a backoff grown during the outage.
 */
export class ApiOutage {
  private since?: number;
  private reason?: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly listeners: Array<() => void | Promise<void>> = [];
  private readonly now: () => number;

  constructor(private readonly opts: ApiOutageOptions) {
    this.now = opts.now ?? Date.now;
  }

  get down(): boolean {
    return this.since !== undefined;
  }

  /** Called when the API server answers again after an outage, in the order registered, each awaited. */
  whenBack(listener: () => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /** What a failure should do; an outage candidate costs one probe when no outage is known yet. */
  async decide(error: unknown): Promise<FailureDecision> {
    const reason = apiOutageReason(error);
    if (reason === undefined || this.stopped) return 'retry';
    const decision = failureDecision(reason, this.down ? false : await this.answers());
    if (decision === 'wait-for-api-server') this.begin(reason);
    return decision;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async answers(): Promise<boolean> {
    try {
      await this.opts.probe();
      return true;
    } catch {
      return false;
    }
  }

  private begin(reason: string): void {
    if (this.down || this.stopped) return;
    this.since = this.now();
    this.reason = reason;
    this.opts.log.warn({ error: reason }, 'API server unreachable: reconciles wait for it without spending retries; probing until it answers');
    this.schedule(1);
  }

  private schedule(attempt: number): void {
    const delay = (this.opts.delayMs ?? probeDelayMs)(attempt);
    this.timer = setTimeout(() => {
      void this.answers().then((ok) => {
        if (this.stopped) return;
        if (ok) void this.end();
        else this.schedule(attempt + 1);
      });
    }, delay);
    this.timer.unref();
  }

  /** Watches first (the caches are fresh again), then the work that waited. */
  private async end(): Promise<void> {
    const downForMs = this.now() - (this.since ?? this.now());
    this.opts.log.info({ downForMs, error: this.reason }, 'API server answers again: what waited for it goes now');
    this.since = undefined;
    this.reason = undefined;
    for (const listener of this.listeners) {
      try {
        await listener();
      } catch (error) {
        this.opts.log.error({ error: (error as Error).message }, 'could not release what waited for the API server');
      }
    }
  }
}
