import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stderr, so stdout stays free for command output (`dev env`); or into
 * `file` (appended, folder created) when a command's own output must stay readable (the demo).
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', file?: string): Logger {
  const destination = file ? pino.destination({ dest: file, mkdir: true, append: true, sync: true }) : pino.destination(2);
  return pino({ name, level, base: { component: name } }, destination);
}
