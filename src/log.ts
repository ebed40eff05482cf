import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stderr, so stdout stays free for command output (`dev env`). */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, base: { component: name } }, pino.destination(2));
}
