import type { Logger } from '../../core/log.js';
import type { RunningOperations } from '../reconcile/ports/running-operations.js';
import type { OutstandingJobs } from './outstanding-jobs.js';
import type { ReconcileQueue } from './reconcile-queue.js';

/** What the watches, the freeze watch and the workers call to put a release (back) on the queue, and to cancel a superseded helm run. */
export interface QueueTriggers {
  enqueue: (key: string, reason: string) => void;
  requeue: (key: string, reason: string, delayMs: number) => void;
  /** A new generation was seen: a helm operation running for an older one is cancelled. */
  onGeneration: (key: string, generation: number | undefined) => void;
}

/** Fire and forget: a failed enqueue is logged (the resync finds the release again); one Redis took is noted in `outstanding`. */
export function queueTriggers(
  queue: Pick<ReconcileQueue, 'enqueue'>,
  operations: Pick<RunningOperations, 'supersede'>,
  log: Logger,
  outstanding?: Pick<OutstandingJobs, 'enqueued'>,
  now: () => number = Date.now,
): QueueTriggers {
  return {
    enqueue: (key, reason) => {
      const at = now();
      queue.enqueue(key, reason).then(
        () => outstanding?.enqueued(key, at),
        (error: Error) => log.error({ release: key, error: error.message }, 'could not enqueue'),
      );
    },
    requeue: (key, reason, delayMs) => {
      queue.enqueue(key, reason, delayMs).catch((error: Error) => log.error({ release: key, error: error.message }, 'could not requeue'));
    },
    onGeneration: (key, generation) => {
      if (operations.supersede(key, generation))
        log.info({ release: key, action: 'supersede', generation }, 'a newer generation cancels the running helm operation');
    },
  };
}
