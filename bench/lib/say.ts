// Where a benchmark writes: progress lines for people on stderr, the report on stdout.
import { createLogger, type Logger } from '../../src/core/log.js';

export const log: Logger = createLogger('bench', process.env.LOG_LEVEL ?? 'warn');

/** Progress lines for people, on stderr; stdout carries the report. */
export function say(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
