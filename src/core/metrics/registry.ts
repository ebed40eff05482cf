import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * One registry per process: in `helmcrew run` the controller, notify and the bot register their
 * metrics on the same one, so one /metrics shows them all. The process_* and nodejs_* metrics
 * are read at scrape time only.
 */
export function newMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The metric of that name already on the registry, or a new one: parts that share a registry share a metric. */
export function metricOnce<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export type { Registry } from 'prom-client';
