import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { ConfigError } from '../../src/core/config/parsers.js';
import { otelTracer } from '../../src/core/tracing/otel-tracer.js';
import { readTracingConfig } from '../../src/core/tracing/tracing-env.js';
import { inSpan, installTracer, startTracing, traceFields, tracingActive } from '../../src/core/tracing/tracing.js';
import { spansOfExport } from '../../src/dev/otlp-receiver/index.js';

const quiet = { info: () => undefined, warn: () => undefined };

describe('tracing configuration', () => {
  it('is off without an endpoint, and startTracing then installs nothing', async () => {
    expect(readTracingConfig({}, 'controller')).toBeUndefined();
    const running = await startTracing('controller', quiet, {});
    expect(tracingActive()).toBe(false);
    await running.stop();
  });

  it('adds /v1/traces to the base endpoint; the traces endpoint is used as it is', () => {
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'notify')).toEqual({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'helmcrew-notify',
    });
    expect(
      readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp', OTEL_SERVICE_NAME: 'hc' }, 'run'),
    ).toEqual({ url: 'https://b/otlp', serviceName: 'hc' });
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }, 'run')?.serviceName).toBe('helmcrew');
  });

  it('refuses a URL that is not http(s), naming the variable and not the value', () => {
    expect(() => readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318 secret' }, 'bot')).toThrow(ConfigError);
    expect(() => readTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x' }, 'bot')).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(() => readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url secret' }, 'bot')).not.toThrow(/secret/);
  });
});

describe('spans', () => {
  const exporter = new InMemorySpanExporter();
  afterEach(async () => {
    exporter.reset();
    installTracer(undefined);
  });
  const install = () => installTracer(otelTracer({ serviceName: 'test', log: quiet, processor: () => new SimpleSpanProcessor(exporter) }));

  it('with tracing off, the work runs and no ids are given', async () => {
    expect(await inSpan('x', {}, async (span) => (span.set({ a: 1 }), traceFields()))).toEqual({});
  });

  it('nest by async context; a root span starts its own trace even inside another', async () => {
    install();
    let inner: Record<string, string> = {};
    await inSpan('pass', { 'helmcrew.release': 'ns/a' }, async () => {
      await inSpan('stage', {}, async () => {
        // Across a turn of the event loop (not a timed wait): the context must survive it.
        await new Promise((resolve) => setImmediate(resolve));
        inner = traceFields();
      });
      await inSpan('delivery', {}, async () => undefined, { root: true });
    });
    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((s) => [s.name, s]));
    const pass = byName.get('pass')!;
    const stage = byName.get('stage')!;
    const delivery = byName.get('delivery')!;
    expect(stage.spanContext().traceId).toBe(pass.spanContext().traceId);
    expect(stage.parentSpanContext?.spanId).toBe(pass.spanContext().spanId);
    expect(pass.parentSpanContext).toBeUndefined();
    expect(delivery.spanContext().traceId).not.toBe(pass.spanContext().traceId);
    expect(delivery.parentSpanContext).toBeUndefined();
    expect(inner).toEqual({ trace_id: stage.spanContext().traceId, span_id: stage.spanContext().spanId });
    expect(pass.attributes).toEqual({ 'helmcrew.release': 'ns/a' });
  });

  it('a thrown error marks the span failed, unless the caller says it is not a failure; the error still reaches the caller', async () => {
    install();
    await expect(inSpan('fails', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(inSpan('steps-aside', {}, () => Promise.reject(new RangeError('later')), { notAFailure: (e) => e instanceof RangeError })).rejects.toThrow(
      'later',
    );
    const [fails, aside] = exporter.getFinishedSpans();
    expect(fails!.status).toEqual({ code: 2, message: 'Error: boom' });
    expect(aside!.status.code).toBe(0);
  });

  it('log lines name the span they were written in when tracing is configured', async () => {
    install();
    const file = join(await mkdtemp(join(tmpdir(), 'helmcrew-trace-log-')), 'log.jsonl');
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:9';
    try {
      const log = createLogger('test', 'info', file);
      await inSpan('pass', {}, async () => log.info({ release: 'ns/a' }, 'inside'));
      log.info({}, 'outside');
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
    const [inside, outside] = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const span = exporter.getFinishedSpans()[0]!;
    expect(inside).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId, msg: 'inside' });
    expect(outside).not.toHaveProperty('trace_id');
  });
});

describe("the local OTLP receiver's decoding", () => {
  it('flattens an ExportTraceServiceRequest and refuses what is not one', () => {
    const spans = spansOfExport({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'helmcrew' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 'helm upgrade',
                  kind: 1,
                  startTimeUnixNano: '1000',
                  endTimeUnixNano: '3000',
                  attributes: [
                    { key: 'helm.verb', value: { stringValue: 'upgrade' } },
                    { key: 'n', value: { intValue: '3' } },
                    { key: 'b', value: { boolValue: true } },
                  ],
                  status: { code: 2, message: 'failed' },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(spans).toEqual([
      {
        service: 'helmcrew',
        traceId: 'ab'.repeat(16),
        spanId: 'cd'.repeat(8),
        parentSpanId: '',
        name: 'helm upgrade',
        kind: 1,
        startNs: 1000n,
        endNs: 3000n,
        attributes: { 'helm.verb': 'upgrade', n: 3, b: true },
        statusCode: 2,
        statusMessage: 'failed',
      },
    ]);
    expect(() => spansOfExport({ resourceLogs: [] })).toThrow(/resourceSpans/);
  });
});
