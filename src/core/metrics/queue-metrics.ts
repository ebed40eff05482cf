import type { Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';

/** Job states counted per queue: what waits (by FIFO or by priority), what is delayed (backoff), what runs. */
const STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;
/** How many of the first waiting jobs are looked at for the oldest (FIFO list head plus priority head). */
const OLDEST_SAMPLE = 20;

const watched = new WeakMap<Registry, Map<string, Queue>>();

/** Pure: the age in seconds of the oldest of these enqueue times, 0 when there are none. */
export function oldestAgeSeconds(timestamps: readonly number[], nowMs: number): number {
  const valid = timestamps.filter((t) => Number.isFinite(t) && t > 0);
  return valid.length ? Math.max(0, (nowMs - Math.min(...valid)) / 1000) : 0;
}

/**
 * helmcrew_queue_jobs{queue,state} and helmcrew_queue_oldest_waiting_job_age_seconds{queue},
 * read from Redis at scrape time (nothing runs between scrapes). Any part may add its queues.
 */
export function watchQueue(registry: Registry, name: string, queue: Queue): () => void {
  let queues = watched.get(registry);
  if (!queues) {
    const all = new Map<string, Queue>();
    queues = all;
    watched.set(registry, all);
    new Gauge({
      name: 'helmcrew_queue_jobs',
      help: 'Jobs in each queue by state (waiting, prioritized, delayed, active).',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...all].map(async ([queueName, q]) => {
            const counts = await q.getJobCounts(...STATES);
            for (const state of STATES) this.set({ queue: queueName, state }, counts[state] ?? 0);
          }),
        );
      },
    });
    new Gauge({
      name: 'helmcrew_queue_oldest_waiting_job_age_seconds',
      help: 'Age of the oldest job waiting to run, per queue (0 when none waits).',
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...all].map(async ([queueName, q]) => {
            // The FIFO list ascending starts with its oldest; prioritized jobs are sorted by priority, so a sample of their head.
            const heads = await q.getJobs(['waiting', 'prioritized'], 0, OLDEST_SAMPLE - 1, true);
            this.set(
              { queue: queueName },
              oldestAgeSeconds(
                heads.map((job) => job.timestamp),
                Date.now(),
              ),
            );
          }),
        );
      },
    });
  }
  queues.set(name, queue);
  const registered = queues;
  return () => void registered.delete(name);
}
