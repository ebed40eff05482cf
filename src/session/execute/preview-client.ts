import type { Queue, QueueEvents } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import { PREVIEW_QUEUE, type PreviewRequest, type PreviewResult } from '../../core/preview/preview-protocol.js';

/** Asks for what a change would do; the plan shows the answer (or why there is none). */
export interface ChangePreviews {
  preview(request: PreviewRequest): Promise<PreviewResult>;
}

/**
 * Asks the controller (core/preview) over the queue both share, and waits for its answer. The
 * plan does not wait for ever: without an answer it says so and stays confirmable. BullMQ and the
 * queue's connections open at the first question: a web process whose people only read pages never
 * loads it (~9 MiB of RSS, docs/performance.md).
 */
export class QueuedPreviews implements ChangePreviews {
  private opened?: Promise<{ queue: Queue<PreviewRequest, PreviewResult>; events: QueueEvents; eventsConnection: RedisConnection }>;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly timeoutMs: number,
  ) {}

  private open() {
    this.opened ??= import('bullmq').then(({ Queue, QueueEvents }) => {
      const { connection, prefix } = this;
      const queue = new Queue<PreviewRequest, PreviewResult>(PREVIEW_QUEUE, { connection, prefix });
      // QueueEvents blocks on a stream read: it needs a connection of its own, which BullMQ does not
      // close (it did not make it), so close() does.
      const eventsConnection = connection.duplicate();
      return { queue, events: new QueueEvents(PREVIEW_QUEUE, { connection: eventsConnection, prefix }), eventsConnection };
    });
    return this.opened;
  }

  async preview(request: PreviewRequest): Promise<PreviewResult> {
    const { queue, events } = await this.open();
    await events.waitUntilReady();
    const job = await queue.add('preview', request, { removeOnComplete: { age: 600 }, removeOnFail: { age: 600 } });
    try {
      return await job.waitUntilFinished(events, this.timeoutMs);
    } catch {
      // Not taken up (no controller on this queue prefix, or all busy): the question is dropped.
      await job.remove().catch(() => undefined);
      return { ok: false, message: `no controller answered within ${Math.round(this.timeoutMs / 1000)} s` };
    }
  }

  async close(): Promise<void> {
    if (!this.opened) return;
    const { queue, events, eventsConnection } = await this.opened;
    await events.close();
    await queue.close();
    eventsConnection.disconnect();
  }
}
