import type { Logger } from '../../core/log.js';

/** Resolves after SIGTERM or SIGINT once `stop` has finished (in-flight work completes first); a failed stop is logged. */
export function untilSignal(log: Logger, stop: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, 'stopping: letting in-flight work finish');
      stop()
        .catch((error: Error) => log.error({ error: error.message }, 'stopping failed'))
        .finally(resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
