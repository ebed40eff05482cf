import { pino, type Logger } from 'pino';
import { SHARED_ENV } from './config/env.js';
import { traceFields } from './tracing/tracing.js';
import { tracingWanted } from './tracing/tracing-env.js';

export type { Logger };

/**
 * Structured JSON logs on stderr, so stdout stays free for command output (`dev env`); or into
 * `file` (appended, folder created) when a command's own output must stay readable (the demo).
 */
export function createLogger(name: string, level = logLevel(), file?: string): Logger {
  const destination = file ? pino.destination({ dest: file, mkdir: true, append: true, sync: true }) : pino.destination(2);
  // With traces on, each line names the span it was written in (`trace_id`, `span_id`); off, no mixin at all.
  const mixin = tracingWanted(process.env) ? { mixin: traceFields } : {};
  return pino({ name, level, base: { component: name }, ...mixin }, destination);
}

/** LOG_LEVEL when set, else this command's own default (`info`; the terminal's quieter commands: `warn`). */
export function logLevel(fallback: string = SHARED_ENV.fallback('LOG_LEVEL')): string {
  return SHARED_ENV.in(process.env).raw('LOG_LEVEL') ?? fallback;
}
