import type { Env } from '../config/parsers.js';
import { readTracingConfig } from './tracing-env.js';
import type { SpanAttributes, SpanNote, SpanOptions, TraceLog, Tracer } from './tracer-types.js';

export type { SpanAttributes, SpanNote, SpanOptions, Tracer } from './tracer-types.js';

/**
 * Traces for the whole process, behind one small facade: `inSpan` around a unit of work (a
 * reconcile pass and its stages, a helm process, a notification delivery, a chat command).
 * Off (no endpoint): `inSpan` calls the work and nothing else, and the OpenTelemetry SDK is never
 * loaded (startTracing imports it only when configured). On: spans nest by async context and are
 * exported over OTLP/HTTP in batches (otel-tracer.ts).
 */

const NO_SPAN: SpanNote = { set: () => undefined };

let tracer: Tracer | undefined;

/** Runs `fn` in a span named `name` when tracing is on; otherwise just runs it. */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanNote) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  return tracer ? tracer.inSpan(name, attributes, fn, options) : fn(NO_SPAN);
}

/** Whether spans are being recorded (a caller can skip building what only a span would use). */
export function tracingActive(): boolean {
  return tracer !== undefined;
}

/** `{ trace_id, span_id }` of the span this code runs in, for pino's mixin; `{}` outside one or with tracing off. */
export function traceFields(): Record<string, string> {
  return tracer?.current() ?? {};
}

/** Makes `next` the process's tracer (startTracing; tests with an in-memory exporter); returns the one it replaced. */
export function installTracer(next: Tracer | undefined): Tracer | undefined {
  const previous = tracer;
  tracer = next;
  return previous;
}

export interface RunningTracing {
  /** Ends tracing: spans still buffered are sent (bounded by the exporter's timeout). */
  stop(): Promise<void>;
}

/**
 * Starts tracing for `part` when OTEL_EXPORTER_OTLP(_TRACES)_ENDPOINT is set; without it returns
 * a stop that does nothing and loads nothing. The endpoint's URL is not logged (it may hold a token).
 */
export async function startTracing(part: string, log: TraceLog, env: Env = process.env): Promise<RunningTracing> {
  const config = readTracingConfig(env, part);
  if (!config) return { stop: async () => undefined };
  if (tracer) return { stop: async () => undefined }; // `run`: one tracer for every part of the process
  const { otelTracer } = await import('./otel-tracer.js');
  const started = otelTracer({ ...config, log });
  installTracer(started);
  log.info({ service: config.serviceName, origin: new URL(config.url).origin }, 'traces exported over OTLP/HTTP');
  return {
    stop: async () => {
      if (tracer === started) installTracer(undefined);
      await started.shutdown();
    },
  };
}
