import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import type { Logger } from '../../core/log.js';
import { RECONCILE_ATTEMPTS, retryDelayMs } from './retry-policy.js';
import { QUEUE_NAMES } from '../../core/fleet/cluster-keys.js';
import type { ApiOutage } from './api-outage.js';
import type { QueueLoadReader } from '../helm/slot-wait.js';

export const RECONCILE_QUEUE = QUEUE_NAMES.reconcile;

export interface ReconcileJob {
  /** "namespace/name" of a HelmRelease: the job carries the key only; the worker re-reads. */
  key: string;
  /** Why it was queued (add, update, resync…), for logs. */
  reason: string;
}

/**
 * Deduplicated by release key with keepLastIfActive: at most one job per release is active and
 * at most one waits behind it. So two workers never work on one release at once (across
 * processes), and a change that arrives mid-reconcile is reconciled right afterwards.
 */
export class ReconcileQueue {
  private readonly queue: Queue<ReconcileJob>;

  constructor(connection: RedisConnection, prefix: string) {
    this.queue = new Queue<ReconcileJob>(RECONCILE_QUEUE, { connection, prefix });
  }

  /**
   * `delayMs` asks for a pass later (a backoff the reconciler chose). `replace` lets any later
   * enqueue take the place of such a delayed job, so a spec change never waits behind a backoff.
   */
  async enqueue(key: string, reason: string, delayMs?: number): Promise<void> {
    const priority = jobPriority(reason);
    await this.queue.add(
      'reconcile',
      { key, reason },
      {
        deduplication: { id: key, keepLastIfActive: true, replace: true },
        ...(delayMs && delayMs > 0 ? { delay: Math.ceil(delayMs) } : {}),
        ...(priority !== undefined ? { priority } : {}),
        attempts: RECONCILE_ATTEMPTS,
        backoff: { type: 'reconcile' },
        removeOnComplete: true,
        removeOnFail: { age: 24 * 3600, count: 1000 },
      },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  get raw(): Queue<ReconcileJob> {
    return this.queue;
  }
}

/** How long the count of replicas on the queue is trusted: replicas come and go rarely. */
const REPLICAS_TTL_MS = 10_000;

/**
 * The queue's load as a pass with no helm slot free asks for it (helm/slot-wait.ts): releases
 * runnable now, and whether other replicas work the queue — each replica's worker holds one
 * connection named after the queue (BullMQ's CLIENT LIST; a Redis that refuses it counts as alone).
 */
export function queueLoadOf(queue: Queue<ReconcileJob>, now: () => number = Date.now): QueueLoadReader {
  let replicas: { at: number; others: boolean | undefined } | undefined;
  return {
    queued: () => queue.getJobCountByTypes('wait', 'prioritized'),
    otherReplicas: async () => {
      if (replicas && now() - replicas.at < REPLICAS_TTL_MS) return replicas.others;
      const workers = await queue.getWorkers();
      const known = !workers.some((w) => w.name === CLIENT_LIST_REFUSED);
      replicas = { at: now(), others: known ? workers.length > 1 : undefined };
      return replicas.others;
    },
  };
}

/** What BullMQ lists as the one worker when Redis refuses CLIENT LIST. */
const CLIENT_LIST_REFUSED = 'GCP does not support client list';

/** BullMQ priority of periodic checks: any job without one (a spec change, a deletion) runs first. */
export const RESYNC_PRIORITY = 100;

/**
 * Pure: the priority a job gets from why it was queued. At 1000 releases and a 1-minute interval
 * each resync tick queues ~80 checks; a spec change queued right after must not wait behind them.
 */
export function jobPriority(reason: string): number | undefined {
  return reason === 'resync' ? RESYNC_PRIORITY : undefined;
}

/**
 * Pure: reconcile workers for `helmSlots` helm processes at once. Reading ahead, twice as many, so
 * that when every slot runs helm as many passes again have done their reads and wait for the next
 * free slot (helm/helm-slots.ts); a pass that needs no helm (the periodic check) is not held up
 * either. Without, one pass per slot: a replica takes no release it cannot start helm for at once.
 */
export function reconcileWorkers(helmSlots: number, readAhead = true): number {
  return readAhead ? 2 * helmSlots : helmSlots;
}

export function parseReleaseKey(key: string): { namespace: string; name: string } {
  const [namespace, name, ...rest] = key.split('/');
  if (!namespace || !name || rest.length > 0) throw new UnrecoverableError(`malformed release key "${key}"`);
  return { namespace, name };
}

export function startReconcileWorker(opts: {
  connection: RedisConnection;
  prefix: string;
  concurrency: number;
  log: Logger;
  reconcile: (namespace: string, name: string) => Promise<{ action: string; requeueAfterMs?: number }>;
  /** Called after a pass that asked to be run again later; the job is finished by then, so the new one is not folded into it. */
  requeue: (key: string, reason: string, delayMs: number) => void;
  /** Told of every pass: what it did, or what it threw, and how long it took. */
  onPass?: (outcome: { action: string } | { error: unknown }, seconds: number) => void;
  /** When set, jobs wait out an API server outage instead of spending their attempts on it. */
  outage?: ApiOutage;
  /**
   * BullMQ's job lock (renewed every half of it while a pass runs) and stalled-job check: a job
   * whose replica vanished is given back to the queue within about twice this. Default: BullMQ's 30 s.
   */
  lockMs?: number;
}): Worker<ReconcileJob> {
  const waiting = new WaitingForApiServer(opts.outage);
  const worker = new Worker<ReconcileJob>(
    RECONCILE_QUEUE,
    async (job: Job<ReconcileJob>, token?: string) => {
      const { namespace, name } = parseReleaseKey(job.data.key);
      if (opts.outage?.down) return waiting.park(job, token);
      const started = Date.now();
      const seconds = () => (Date.now() - started) / 1000;
      let passed: { action: string; requeueAfterMs?: number };
      try {
        passed = await opts.reconcile(namespace, name);
      } catch (error) {
        opts.onPass?.({ error }, seconds());
        if (opts.outage && (await opts.outage.decide(error)) === 'wait-for-api-server') return waiting.park(job, token);
        throw error;
      }
      const { action, requeueAfterMs } = passed;
      opts.onPass?.({ action }, seconds());
      opts.log.info(
        { release: job.data.key, action, reason: job.data.reason, attempt: job.attemptsMade + 1, durationMs: Date.now() - started, requeueAfterMs },
        'reconciled',
      );
      return { action, requeueAfterMs };
    },
    {
      connection: opts.connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency,
      ...(opts.lockMs !== undefined ? { lockDuration: opts.lockMs, stalledInterval: opts.lockMs } : {}),
      settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
    },
  );
  worker.on('completed', (job, result: { action: string; requeueAfterMs?: number } | undefined) => {
    if (result?.requeueAfterMs !== undefined) opts.requeue(job.data.key, `requeue-after-${result.action}`, result.requeueAfterMs);
  });
  worker.on('failed', (job, error) => {
    opts.log.warn({ release: job?.data.key, attempt: job?.attemptsMade, error: error.message }, 'reconcile failed; will retry while attempts remain');
  });
  worker.on('error', (error) => opts.log.error({ err: error }, 'reconcile worker error'));
  opts.outage?.whenBack(() => waiting.releaseAll(opts.connection, opts.prefix, opts.log));
  return worker;
}

/** If the probe never reports the return (the process died), a parked job still runs this much later. */
const PARKED_FALLBACK_MS = 60_000;

/**
 * Jobs this worker set aside during an API server outage: delayed in Redis without spending an
 * attempt (BullMQ's DelayedError), and promoted all at once when the server answers again.
 */
class WaitingForApiServer {
  private readonly parked = new Set<string>();

  constructor(private readonly outage: ApiOutage | undefined) {}

  async park(job: Job<ReconcileJob>, token: string | undefined): Promise<never> {
    if (job.id) this.parked.add(job.id);
    await job.moveToDelayed(Date.now() + PARKED_FALLBACK_MS, token);
    // The server came back while this job was being set aside: the release below missed it.
    if (!this.outage?.down) await job.promote().catch(() => undefined);
    throw new DelayedError();
  }

  async releaseAll(connection: RedisConnection, prefix: string, log: Logger): Promise<void> {
    const ids = [...this.parked];
    this.parked.clear();
    if (ids.length === 0) return;
    const queue = new Queue<ReconcileJob>(RECONCILE_QUEUE, { connection, prefix });
    try {
      // A job replaced meanwhile (a newer enqueue of its release) is gone or no longer delayed: skipped.
      const promoted = await Promise.all(
        ids.map(
          async (id) =>
            (await queue.getJob(id))?.promote().then(
              () => true,
              () => false,
            ) ?? false,
        ),
      );
      log.info({ waiting: ids.length, promoted: promoted.filter(Boolean).length }, 'released the reconciles that waited for the API server');
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'could not release the reconciles that waited for the API server; they run within a minute');
    } finally {
      await queue.close();
    }
  }
}
