import { clampTimerMs } from '../../api/duration.js';
import type { Freeze } from '../../api/freeze.js';
import { DEFAULT_CLUSTER } from '../../core/fleet/cluster-keys.js';
import { freezesOfCluster, type FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import type { Logger } from '../../core/log.js';
import { nextFreezeChange } from '../../core/release/freeze-match.js';

/**
 * The fleet freezes (core/fleet/fleet-freezes.ts) that hold this cluster, read from Redis every
 * `pollMs`. Fails closed: until a first read, and once the last good read is older than
 * `staleAfterMs` (Redis unreachable, or this agent's Redis user denied the key), `unknown()` says
 * why and the freeze gate holds every helm action. A change of what holds this cluster, the state
 * becoming known again, and the moment a fleet freeze starts or ends by itself call `onChange`.
 */
export class FleetFreezeWatch {
  private current: Freeze[] = [];
  private lastReadAt?: number;
  private lastError?: string;
  private failingSince?: number;
  private wasKnown = false;
  private signature = '';
  private poller?: NodeJS.Timeout;
  private boundary?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly opts: {
      list: () => Promise<FleetFreeze[]>;
      cluster: string;
      pollMs: number;
      staleAfterMs: number;
      /** What holds this cluster changed, or the state became known again: held and waiting releases look again. */
      onChange: (reason: string) => void;
      log: Logger;
      now?: () => number;
    },
  ) {}

  /** Reads once (a failure is kept as the reason, not thrown), then keeps polling. */
  async start(): Promise<void> {
    await this.poll();
    const tick = () => {
      this.poller = setTimeout(() => void this.poll().finally(() => !this.stopped && tick()), this.opts.pollMs);
      this.poller.unref();
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.poller);
    clearTimeout(this.boundary);
  }

  /** Why the fleet freeze state is not known now, or undefined when it is. */
  unknown(): string | undefined {
    const now = this.now();
    if (this.lastReadAt !== undefined && now - this.lastReadAt <= this.opts.staleAfterMs) return undefined;
    const since = this.failingSince !== undefined ? ` since ${new Date(this.failingSince).toISOString()}` : '';
    const cause = this.lastError ? `: ${this.lastError}` : '';
    return this.lastReadAt === undefined
      ? `the fleet freezes have not been read from Redis yet${since}${cause}; no helm action until they are`
      : `the fleet freezes could not be read from Redis${since}${cause}; no helm action until they are`;
  }

  /** Reads now (before a helm action; one HGETALL): a failure is kept as the reason, as in a poll. */
  refresh(): Promise<void> {
    return this.poll();
  }

  /** The fleet freezes that take in this cluster, as last read (active or not). */
  freezes(): Freeze[] {
    return this.current;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    try {
      const records = await this.opts.list();
      this.current = freezesOfCluster(records, this.opts.cluster);
      this.lastReadAt = this.now();
      if (this.failingSince !== undefined) this.opts.log.info({ cluster: this.opts.cluster }, 'fleet freezes readable again');
      this.failingSince = undefined;
      this.lastError = undefined;
      const signature = JSON.stringify(this.current.map((f) => [f.metadata.name, f.spec.until ?? '', f.spec.windows ?? []]));
      const becameKnown = !this.wasKnown;
      this.wasKnown = true;
      if (signature !== this.signature || becameKnown) {
        this.signature = signature;
        this.schedule();
        this.opts.onChange(becameKnown ? 'fleet freezes read' : 'fleet freezes changed');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.failingSince === undefined) this.failingSince = this.now();
      if (message !== this.lastError) {
        this.opts.log.error(
          { cluster: this.opts.cluster, error: message },
          'cannot read the fleet freezes from Redis; helm actions are held once the last good read is stale (fail closed)',
        );
      }
      this.lastError = message;
      if (this.unknown() !== undefined) this.wasKnown = false;
    }
  }

  /** One timer, a little after the next moment a fleet freeze starts or ends by itself. */
  private schedule(): void {
    clearTimeout(this.boundary);
    const now = new Date(this.now());
    const next = nextFreezeChange(this.current, now);
    if (!next) return;
    this.boundary = setTimeout(() => !this.stopped && this.opts.onChange('a fleet freeze started or ended'), clampTimerMs(next.getTime() - now.getTime() + 50));
    this.boundary.unref();
  }
}

/**
 * A named cluster is in a fleet: it also holds the fleet's freezes, read every `pollMs`, and acts
 * only while it can read them (stale after three reads missed). `default` is in no fleet: none.
 */
export function fleetFreezeWatchOf(o: {
  cluster: string;
  list: () => Promise<FleetFreeze[]>;
  pollMs: number;
  onChange: (reason: string) => void;
  log: Logger;
}): FleetFreezeWatch | undefined {
  if (o.cluster === DEFAULT_CLUSTER) return undefined;
  return new FleetFreezeWatch({ list: o.list, cluster: o.cluster, pollMs: o.pollMs, staleAfterMs: 3 * o.pollMs, onChange: o.onChange, log: o.log });
}
