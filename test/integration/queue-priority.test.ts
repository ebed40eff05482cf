import { describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/core/redis.js';
import { ReconcileQueue, startReconcileWorker } from '../../src/controller/queue/reconcile-queue.js';
import { createLogger } from '../../src/core/log.js';
import { testEnv, uniqueName } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Issue 9: a spec change does not wait behind a resync tick's batch of periodic checks. */
describe('queue priority', () => {
  const { env } = testEnv();

  it('a change queued after 30 periodic checks is reconciled before them', async () => {
    const connection = connectRedis(env.redisUrl);
    const prefix = uniqueName('hc-prio');
    const queue = new ReconcileQueue(connection, prefix);
    for (let i = 0; i < 30; i++) await queue.enqueue(`ns/check-${i}`, 'resync');
    await queue.enqueue('ns/changed', 'update');
    const order: string[] = [];
    const worker = startReconcileWorker({
      connection,
      prefix,
      concurrency: 1,
      log: createLogger('test', 'warn'),
      reconcile: async (namespace, name) => {
        order.push(`${namespace}/${name}`);
        return { action: 'unchanged' };
      },
      requeue: () => undefined,
    });
    try {
      await eventually(() => expect(order).toHaveLength(31), { timeoutMs: 20_000, intervalMs: 50 });
      expect(order[0]).toBe('ns/changed');
    } finally {
      await worker.close();
      await queue.raw.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});
