/** The tracing facade's types, apart so the SDK side (otel-tracer.ts) and tracing.ts share them without a cycle. */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** What the work may add to its span while it runs. */
export interface SpanNote {
  set(attributes: SpanAttributes): void;
}

export interface SpanOptions {
  /** Start a new trace even inside another span (one trace per pass, delivery, command). */
  root?: boolean;
  /** OpenTelemetry's span kind; `internal` by default. */
  kind?: 'internal' | 'server' | 'client' | 'consumer';
  /** An error that ends the span without marking it failed (a delivery stepping aside for its rate limit). */
  notAFailure?: (error: unknown) => boolean;
}

/** The active tracer, once startTracing installed one. */
export interface Tracer {
  inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanNote) => Promise<T>, options: SpanOptions): Promise<T>;
  /** The current span's ids, for log lines. */
  current(): { trace_id: string; span_id: string } | undefined;
  shutdown(): Promise<void>;
}

/** What tracing logs through (a pino Logger). */
export interface TraceLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
