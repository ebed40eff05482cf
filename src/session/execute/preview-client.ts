import { Queue, QueueEvents } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import { PREVIEW_QUEUE, type PreviewRequest, type PreviewResult } from '../../core/preview/preview-protocol.js';

/** Asks for what a change would do; the plan shows the answer (or why there is none). */
export interface ChangePreviews {
  preview(request: PreviewRequest): Promise<PreviewResult>;
}

/**
 * Asks the controller (core/preview) over the queue both share, and waits for its answer. The
 * plan does not wait for ever: without an answer it says so and stays confirmable.
 */
export class QueuedPreviews implements ChangePreviews {
  private readonly queue: Queue<PreviewRequest, PreviewResult>;
  private readonly events: QueueEvents;
  private readonly eventsConnection: RedisConnection;

  constructor(
    connection: RedisConnection,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.queue = new Queue<PreviewRequest, PreviewResult>(PREVIEW_QUEUE, { connection, prefix });
    // QueueEvents blocks on a stream read: it needs a connection of its own, which BullMQ does not
    // close (it did not make it), so close() does.
    this.eventsConnection = connection.duplicate();
    this.events = new QueueEvents(PREVIEW_QUEUE, { connection: this.eventsConnection, prefix });
  }

  async preview(request: PreviewRequest): Promise<PreviewResult> {
    await this.events.waitUntilReady();
    const job = await this.queue.add('preview', request, { removeOnComplete: { age: 600 }, removeOnFail: { age: 600 } });
    try {
      return await job.waitUntilFinished(this.events, this.timeoutMs);
    } catch {
      // Not taken up (no controller on this queue prefix, or all busy): the question is dropped.
      await job.remove().catch(() => undefined);
      return { ok: false, message: `no controller answered within ${Math.round(this.timeoutMs / 1000)} s` };
    }
  }

  async close(): Promise<void> {
    await this.events.close();
    await this.queue.close();
    this.eventsConnection.disconnect();
  }
}
