import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * One registry per process: in `helmcrew run` the controller, notify and the bot register their
 * metrics on the same one, so one /metrics shows them all. prom-client's process_* and nodejs_*
 * metrics are read at scrape time, except event-loop delay and GC, which Node observes as it runs.
 */
export function newMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export type { Registry } from 'prom-client';
