import { AsyncLocalStorage } from 'node:async_hooks';
import { diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { helmcrewVersion } from '../version.js';
import type { SpanAttributes, SpanOptions, TraceLog, Tracer } from './tracer-types.js';

/**
 * The OpenTelemetry SDK behind tracing.ts, imported only when tracing is on. Spans nest through
 * an AsyncLocalStorage of our own (the SDK's async-hooks context manager is another package);
 * they are batched (OTEL_BSP_*) and POSTed as OTLP/HTTP JSON.
 */

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER } as const;

/** Attribute values as OpenTelemetry takes them: unset ones left out. */
function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** An error's message for a span's status, short: messages are already free of secrets (they reach logs and status). */
function statusMessage(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.length > 500 ? `${message.slice(0, 499)}…` : message;
}

export interface OtelTracerOptions {
  url?: string;
  serviceName: string;
  log: TraceLog;
  /** Tests: where spans go instead of OTLP/HTTP, and how (a SimpleSpanProcessor to see them at once). */
  processor?: () => SpanProcessor;
}

export function otelTracer(options: OtelTracerOptions): Tracer {
  const processor = options.processor?.() ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: helmcrewVersion() }),
    spanProcessors: [processor],
  });
  const sdk = provider.getTracer('helmcrew', helmcrewVersion());
  const store = new AsyncLocalStorage<Context>();
  // An export that fails (the collector down) is a warning, at most one a minute; never the URL's credentials.
  let lastWarned = 0;
  diag.setLogger(
    {
      error: (message: string) => {
        if (Date.now() - lastWarned < 60_000) return;
        lastWarned = Date.now();
        options.log.warn({ error: message.slice(0, 300) }, 'could not export traces');
      },
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );

  return {
    inSpan(name, attributes, fn, spanOptions: SpanOptions) {
      const parent = spanOptions.root ? ROOT_CONTEXT : (store.getStore() ?? ROOT_CONTEXT);
      const span = sdk.startSpan(name, { attributes: defined(attributes), kind: KINDS[spanOptions.kind ?? 'internal'] }, parent);
      const note = { set: (more: SpanAttributes) => void span.setAttributes(defined(more)) };
      return store.run(trace.setSpan(parent, span), async () => {
        try {
          return await fn(note);
        } catch (error) {
          if (!spanOptions.notAFailure?.(error)) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: statusMessage(error) });
            span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
          }
          throw error;
        } finally {
          span.end();
        }
      });
    },
    current() {
      const span = trace.getSpan(store.getStore() ?? ROOT_CONTEXT);
      const ids = span?.spanContext();
      return ids && trace.isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
    },
    async shutdown() {
      await provider.shutdown();
      diag.disable();
    },
  };
}
