/**
 * OTLP/HTTP JSON (opentelemetry-proto's ExportTraceServiceRequest in its JSON mapping: ids in hex,
 * 64-bit integers as strings or numbers) flattened into one record per span. Pure.
 */

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value?: AnyValue };

const asObject = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
/** A string or number field as text ('' when absent or of another type). */
const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function attributeValue(value: AnyValue | undefined): string | number | boolean | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.doubleValue;
}

export function attributesOf(list: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const entry of asArray(list) as KeyValue[]) {
    const value = attributeValue(entry.value);
    if (typeof entry.key === 'string' && value !== undefined) out[entry.key] = value;
  }
  return out;
}

/** Every span of one export request; throws on a body that is not an ExportTraceServiceRequest. */
export function spansOfExport(body: unknown): ReceivedSpan[] {
  const resourceSpans = asObject(body).resourceSpans;
  if (!Array.isArray(resourceSpans)) throw new Error('not an ExportTraceServiceRequest: no resourceSpans');
  return resourceSpans.flatMap((rs) => {
    const service = String(attributesOf(asObject(asObject(rs).resource).attributes)['service.name'] ?? '');
    return asArray(asObject(rs).scopeSpans).flatMap((ss) =>
      asArray(asObject(ss).spans).map((raw) => {
        const span = asObject(raw);
        const status = asObject(span.status);
        return {
          service,
          traceId: text(span.traceId),
          spanId: text(span.spanId),
          parentSpanId: text(span.parentSpanId),
          name: text(span.name),
          kind: Number(span.kind ?? 0),
          startNs: BigInt(text(span.startTimeUnixNano) || 0),
          endNs: BigInt(text(span.endTimeUnixNano) || 0),
          attributes: attributesOf(span.attributes),
          statusCode: Number(status.code ?? 0),
          ...(typeof status.message === 'string' ? { statusMessage: status.message } : {}),
        };
      }),
    );
  });
}
