import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { PREVIEW_QUEUE, type PreviewRequest, type PreviewResult } from '../../core/preview/preview-protocol.js';
import type { Logger } from '../../core/log.js';

/**
 * Answers the bot's "what would this change" questions (core/preview). One at a time per
 * controller: a preview is a helm process, and reconciles come first. A question that fails is
 * answered with its reason, never retried: the person asking is waiting.
 */
export function startPreviewWorker(opts: {
  connection: Redis;
  prefix: string;
  log: Logger;
  preview: (request: PreviewRequest) => Promise<PreviewResult>;
}): Worker<PreviewRequest, PreviewResult> {
  const worker = new Worker<PreviewRequest, PreviewResult>(
    PREVIEW_QUEUE,
    async (job: Job<PreviewRequest>) => {
      const started = Date.now();
      try {
        const result = await opts.preview(job.data);
        opts.log.info({ release: `${job.data.namespace}/${job.data.name}`, action: 'preview', ok: result.ok, durationMs: Date.now() - started }, 'previewed');
        return result;
      } catch (error) {
        opts.log.warn({ release: `${job.data.namespace}/${job.data.name}`, action: 'preview', error: (error as Error).message }, 'preview failed');
        return { ok: false, message: 'the controller could not compute the change; its log says why' };
      }
    },
    { connection: opts.connection, prefix: opts.prefix, concurrency: 1 },
  );
  worker.on('error', (error) => opts.log.error({ err: error }, 'preview worker error'));
  return worker;
}
