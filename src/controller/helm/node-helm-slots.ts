import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/log.js';
import type { RedisConnection } from '../../core/redis.js';
import { answeredWithin, LATE } from '../../core/answered-within.js';
import { clusterKey } from '../../core/fleet/cluster-keys.js';

/**
 * Takes a lease if fewer than ARGV[1] unexpired ones are out. The set holds token → expiry; the
 * key itself goes a lease after the last add or renewal, so a node whose replicas all vanished
 * leaves nothing behind. The replicas sharing a key share a node, hence a clock: ARGV's times are
 * the caller's.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** Gives a lease back and tells the node's waiting replicas (channel ARGV[1]). */
const GIVE = `
if redis.call('ZREM', KEYS[1], ARGV[2]) == 1 then redis.call('PUBLISH', ARGV[1], '') end
return 1`;

/** Renews the leases still held (XX: one that expired meanwhile is not taken again behind the others' backs). */
const RENEW = `
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

export interface NodeHelmSlotsOptions {
  connection: RedisConnection;
  /** The cluster's keyspace (HELMCREW_QUEUE_PREFIX with the cluster's name). */
  keyspace: string;
  /** The node the replica runs on (HELMCREW_NODE_NAME, the pod's spec.nodeName). */
  node: string;
  /** Release-changing helm processes at once on the node, every replica there together. */
  limit: number;
  log: Logger;
  /** A lease not renewed for this long is free again: what a replica that died holding one costs the others. */
  leaseMs?: number;
  /** A waiter asks again this often without being told (a lease that expired, a message missed in a reconnect). */
  recheckMs?: number;
  /**
   * An ask Redis has not answered in this long lets helm run without a lease. The controller's
   * connection queues commands through an outage (BullMQ's maxRetriesPerRequest: null), so an ask
   * would otherwise hold every helm of the replica until Redis came back.
   */
  askTimeoutMs?: number;
}

interface Waiter {
  resolve: (giveBack: () => void) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Release-changing helm processes on one node, at most `limit` at once across every replica there.
 * Each replica's own HELMCREW_CONCURRENCY (helm-slots.ts) is for one replica alone; three on one
 * node ran three times as many helm processes as its cores were sized for, and each helm, slowed,
 * polled the API server for longer (docs/performance.md, three replicas). This is a counting
 * semaphore in Redis beside the queue: leases in a sorted set, renewed while helm runs, so a replica
 * that dies frees its share within a lease. A replica's waiters queue here in order; only the first
 * asks Redis, again when another replica gives a lease back (pub/sub) or after `recheckMs`.
 * redis-semaphore would poll Redis for every waiter on a timer, which a burst pays in CPU and in the
 * gap between one helm's end and the next one's start.
 *
 * Redis failing does not stop helm: the limit is a courtesy to the node's CPU, not a guard on a
 * release, so a lease that cannot be asked for, or is not answered within askTimeoutMs, is logged and
 * helm runs (fail open); until that ask is answered, the replica's other helm processes run without asking.
 */
export class NodeHelmSlots {
  private readonly key: string;
  private readonly channel: string;
  private readonly leaseMs: number;
  private readonly recheckMs: number;
  private readonly askTimeoutMs: number;
  private readonly replica = randomUUID().slice(0, 8);
  private readonly held = new Set<string>();
  private readonly waiters: Waiter[] = [];
  private subscriber?: RedisConnection;
  private renewTimer?: NodeJS.Timeout;
  private taken = 0;
  private refusedAsks = 0;
  private unleasedRuns = 0;
  /** An ask that outlived askTimeoutMs and is still unanswered: Redis is away, so later waiters run without asking. */
  private unanswered = false;
  private asking = false;
  /** A lease was given back since the last ask: ask again at once rather than wait. */
  private told = false;
  private wake?: () => void;
  private closed = false;

  constructor(private readonly opts: NodeHelmSlotsOptions) {
    if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new Error(`node helm slots must be a whole number ≥ 1, got ${opts.limit}`);
    this.key = clusterKey(opts.keyspace, 'nodeHelmSlots', opts.node);
    this.channel = `${this.key}:freed`;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.recheckMs = opts.recheckMs ?? 2_000;
    this.askTimeoutMs = opts.askTimeoutMs ?? 5_000;
  }

  /** Listens for leases given back on the node, on a connection of its own (a subscribed connection can do nothing else). */
  async start(): Promise<void> {
    const subscriber = this.opts.connection.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', () => this.nudge());
    subscriber.on('error', (error: Error) => this.opts.log.warn({ node: this.opts.node, error: error.message }, 'node helm slots: subscriber error'));
    await subscriber.subscribe(this.channel);
    this.renewTimer = setInterval(() => this.renew(), Math.max(1_000, Math.floor(this.leaseMs / 3)));
    this.renewTimer.unref();
  }

  /** Waits for a lease on the node; the function returned gives it back (once). Rejects with `signal`'s reason when aborted while waiting. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, ...(signal ? { signal } : {}) };
      if (signal) {
        waiter.onAbort = () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      void this.serve();
    });
  }

  /** How many helm processes of this replica wait for a lease now. */
  get queued(): number {
    return this.waiters.length;
  }

  /** How many times this replica asked while the node was full. */
  get refused(): number {
    return this.refusedAsks;
  }

  /** How many helm processes of this replica ran without a lease because Redis failed or did not answer in time. */
  get unleased(): number {
    return this.unleasedRuns;
  }

  /** Stops asking: helm processes still waiting run without a lease (a shutdown lets work in flight finish). */
  close(): void {
    this.closed = true;
    while (this.waiters.length > 0) this.hand(undefined);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.subscriber?.disconnect();
    this.nudge();
  }

  private nudge(): void {
    this.told = true;
    this.wake?.();
  }

  /** Asks for a lease for the first waiter, then the next, until none waits or the node is full (then waits to be told). */
  private async serve(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    try {
      while (this.waiters.length > 0 && !this.closed) {
        const token = `${this.replica}:${++this.taken}`;
        this.told = false;
        const granted = this.unanswered ? undefined : await this.take(token);
        if (granted === undefined) {
          this.unleasedRuns++;
          this.hand(undefined);
          continue;
        }
        if (granted) {
          this.held.add(token);
          this.hand(token);
          continue;
        }
        this.refusedAsks++;
        if (!this.told) await this.waitToBeTold();
      }
    } finally {
      this.asking = false;
    }
  }

  /** Gives the first waiter its lease (undefined: Redis could not be asked, helm runs without one); none left waiting: the lease goes back. */
  private hand(token: string | undefined): void {
    const waiter = this.waiters.shift();
    if (!waiter) {
      if (token) this.giveBack(token);
      return;
    }
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
    let given = false;
    waiter.resolve(() => {
      if (given) return;
      given = true;
      if (token) this.giveBack(token);
    });
  }

  /** true: taken; false: the node is full; undefined: Redis failed or did not answer in time (logged). */
  private async take(token: string): Promise<boolean | undefined> {
    const now = Date.now();
    const asked = this.opts.connection.eval(TAKE, 1, this.key, this.opts.limit, now, now + this.leaseMs, token, this.leaseMs).then((answer) => answer === 1);
    try {
      const outcome = await answeredWithin(asked, this.askTimeoutMs);
      if (outcome !== LATE) return outcome;
      this.opts.log.warn({ node: this.opts.node, waitedMs: this.askTimeoutMs }, 'Redis did not answer for a node helm slot: helm runs without one until it does');
      this.unanswered = true;
      // Granted after all: give it back, or it would hold one of the node's slots for a whole lease.
      void asked
        .then((granted) => granted && this.giveBack(token), () => undefined)
        .finally(() => {
          this.unanswered = false;
          this.opts.log.info({ node: this.opts.node }, 'Redis answers node helm slot asks again');
        });
      return undefined;
    } catch (error) {
      this.opts.log.warn({ node: this.opts.node, error: (error as Error).message }, 'could not take a node helm slot: helm runs without one');
      return undefined;
    }
  }

  private giveBack(token: string): void {
    this.held.delete(token);
    this.opts.connection
      .eval(GIVE, 1, this.key, this.channel, token)
      .catch((error: Error) => this.opts.log.warn({ node: this.opts.node, error: error.message }, 'could not give a node helm slot back: it frees when its lease ends'));
    // This replica's own waiter need not hear it through Redis; its next ask goes after the give on the one connection.
    this.nudge();
  }

  private renew(): void {
    if (this.held.size === 0) return;
    this.opts.connection
      .eval(RENEW, 1, this.key, Date.now() + this.leaseMs, this.leaseMs, ...this.held)
      .catch((error: Error) => this.opts.log.warn({ node: this.opts.node, error: error.message }, 'could not renew node helm slots'));
  }

  private waitToBeTold(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.recheckMs);
      this.wake = done;
    });
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** The node's shared helm slots, listening and counted in the metrics, when the replica knows its node (HELMCREW_NODE_NAME); none otherwise. */
export async function startNodeHelmSlots(
  setting: { node: string; limit: number } | undefined,
  connection: RedisConnection,
  keyspace: string,
  log: Logger,
  // ControllerMetrics's shape, not its import: the metrics reach the reconcile ports, which reach helm.
  metrics: { countNodeSlots(slots: Pick<NodeHelmSlots, 'queued' | 'refused' | 'unleased'>): void },
): Promise<NodeHelmSlots | undefined> {
  if (!setting) return undefined;
  const slots = new NodeHelmSlots({ connection, keyspace, node: setting.node, limit: setting.limit, log });
  await slots.start();
  metrics.countNodeSlots(slots);
  return slots;
}
