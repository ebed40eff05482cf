import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { LoopbackFake } from '../loopback-fake.js';
import { spansOfExport, type ReceivedSpan } from './otlp-json.js';

/**
 * A local OTLP/HTTP traces receiver on 127.0.0.1 and a free port, as a collector answers:
 * `POST /v1/traces` with a JSON ExportTraceServiceRequest (what @opentelemetry/exporter-trace-otlp-http
 * sends; gzip accepted) → 200 `{}`; protobuf → 415 (this receiver decodes JSON only); a body that
 * is not an export → 400. The spans it decoded are kept in `spans`.
 */
export class OtlpReceiver extends LoopbackFake {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: { path: string; status: number; contentType: string }[] = [];

  constructor() {
    super('OTLP receiver');
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The direct children of a span. */
  children(span: ReceivedSpan): ReceivedSpan[] {
    return this.spans.filter((other) => other.traceId === span.traceId && other.parentSpanId === span.spanId);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let raw = Buffer.concat(chunks);
    const contentType = String(req.headers['content-type'] ?? '');
    const answer = (status: number, body: unknown) => {
      this.requests.push({ path: req.url ?? '', status, contentType });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/traces') return answer(404, { message: 'only POST /v1/traces' });
    if (!contentType.startsWith('application/json')) return answer(415, { message: `this receiver decodes JSON, not ${contentType}` });
    try {
      if (req.headers['content-encoding'] === 'gzip') raw = await promisify(gunzip)(raw);
      this.spans.push(...spansOfExport(JSON.parse(raw.toString('utf8'))));
    } catch (error) {
      return answer(400, { message: (error as Error).message });
    }
    answer(200, {});
  }
}
