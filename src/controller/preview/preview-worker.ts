import { DelayedError, Worker, type Job } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import { PREVIEW_QUEUE, type PreviewRequest, type PreviewResult } from '../../core/preview/preview-protocol.js';
import type { Logger } from '../../core/log.js';

/** How long a question this controller does not serve is set aside before any controller takes it again. */
const PASS_ON_MS = 200;

/** Pure: does a controller watching `watched` (all namespaces when empty) serve `namespace`? */
export function servesNamespace(watched: readonly string[], namespace: string): boolean {
  return watched.length === 0 || watched.includes(namespace);
}

/**
 * Answers the bot's "what would this change" questions (core/preview). One at a time per
 * controller: a preview is a helm process, and reconciles come first. A question that fails is
 * answered with its reason, never retried: the person asking is waiting. Controllers of several
 * scopes may share a queue: a question about a namespace this one does not watch is put back for
 * a controller that does (never answered here: this one may lack the rights, or the tenancy rules,
 * that apply there); with none, the bot says no controller answered.
 */
export function startPreviewWorker(opts: {
  connection: RedisConnection;
  prefix: string;
  log: Logger;
  /** WATCH_NAMESPACES; empty: every namespace. */
  namespaces: readonly string[];
  preview: (request: PreviewRequest) => Promise<PreviewResult>;
}): Worker<PreviewRequest, PreviewResult> {
  const worker = new Worker<PreviewRequest, PreviewResult>(
    PREVIEW_QUEUE,
    async (job: Job<PreviewRequest>, token?: string) => {
      if (!servesNamespace(opts.namespaces, job.data.namespace)) {
        opts.log.debug(
          { release: `${job.data.namespace}/${job.data.name}`, action: 'preview' },
          'preview for a namespace this controller does not watch: passed on',
        );
        await job.moveToDelayed(Date.now() + PASS_ON_MS, token);
        throw new DelayedError();
      }
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
