import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FixedWindowLimit, LoopbackFake } from '../loopback-fake.js';

/** An alert as incident.io keeps it per alert source and deduplication_key: fired, updated by later firing events, resolved. */
export interface FakeIncidentIoAlert {
  sourceId: string;
  deduplicationKey: string;
  status: 'firing' | 'resolved';
  title: string;
  /** Every event applied to it, in order. */
  events: Record<string, unknown>[];
}

export interface FakeIncidentIoRequest {
  at: number;
  status: number;
  path: string;
  authorization?: string;
  raw: string;
  event?: Record<string, unknown>;
  /** What the event did: a new alert, an update of the firing one, its resolution, or nothing (a resolve with none firing). */
  outcome?: 'created' | 'updated' | 'resolved' | 'ignored';
}

const PATH = /^\/v2\/alert_events\/http\/([A-Za-z0-9]+)$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why incident.io would refuse this event (422 validation_error), as `{code, message, source.field}` entries; empty when valid. Pure. */
export function alertEventErrors(event: unknown): { code: string; message: string; source: { field: string } }[] {
  const error = (field: string, code: string, message: string) => ({ code, message, source: { field } });
  if (!isObject(event)) return [error('body', 'invalid_type', 'The request body must be a JSON object')];
  const errors: ReturnType<typeof alertEventErrors> = [];
  if (event.status !== 'firing' && event.status !== 'resolved') errors.push(error('status', 'invalid_value', 'status must be one of firing, resolved'));
  if (typeof event.title !== 'string' || event.title.trim() === '') errors.push(error('title', 'is_required', 'title is required'));
  // "For newly created HTTP sources, this field is required."
  if (typeof event.deduplication_key !== 'string' || event.deduplication_key === '')
    errors.push(error('deduplication_key', 'is_required', 'deduplication_key is required'));
  for (const field of ['description', 'source_url'])
    if (event[field] !== undefined && typeof event[field] !== 'string') errors.push(error(field, 'invalid_type', `${field} must be a string`));
  if (event.metadata !== undefined && !isObject(event.metadata)) errors.push(error('metadata', 'invalid_type', 'metadata must be an object'));
  return errors;
}

/**
 * A local incident.io Alert Events API (HTTP alert sources) on 127.0.0.1 and a free port, answering
 * as incident.io documents: `POST /v2/alert_events/http/{alert_source_config_id}` with
 * `Authorization: Bearer <the source's token>` (or `?token=`) → 202 `{status: 'success', message:
 * 'Event accepted for processing', deduplication_key}`; 401 `authentication_error` without the
 * right token; 400 for a body that is not JSON, 422 `validation_error` naming the field for an event
 * that is not valid; 429 `too_many_requests` with Retry-After (and `rate_limit.retry_after`) past the
 * key's rate or when `throttleNext` says so; 404 for a source it does not know. Alerts are kept per
 * source and deduplication_key, so a test reads what a sender fired and resolved.
 */
export class FakeIncidentIo extends LoopbackFake {
  readonly alerts: FakeIncidentIoAlert[] = [];
  readonly requests: FakeIncidentIoRequest[] = [];
  private readonly sources = new Map<string, string>();
  private readonly limit: FixedWindowLimit;

  constructor(private readonly options: { eventsPerMinute?: number; retryAfterSeconds?: number } = {}) {
    super('incident.io');
    this.limit = new FixedWindowLimit(60_000, () => this.options.eventsPerMinute ?? 1200);
  }

  /** An HTTP alert source with its token; returns the URL to send its events to (the token not in it). */
  addSource(token: string, id = randomUUID().replaceAll('-', '').toUpperCase().slice(0, 26)): string {
    this.sources.set(id, token);
    return `http://127.0.0.1:${this.port}/v2/alert_events/http/${id}`;
  }

  throttleNext(count: number): void {
    this.limit.refuseNext(count);
  }

  byDeduplicationKey(key: string): FakeIncidentIoAlert[] {
    return this.alerts.filter((a) => a.deduplicationKey === key);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record: FakeIncidentIoRequest = { at: Date.now(), status: 0, path: url.pathname, raw: '', authorization: req.headers.authorization };
    this.requests.push(record);
    const requestId = randomUUID();
    const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const refuse = (
      status: number,
      type: string,
      errors: Record<string, unknown>[],
      extra: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => answer(status, { type, status, request_id: requestId, ...extra, errors }, headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    record.raw = Buffer.concat(chunks).toString('utf8');
    const match = PATH.exec(url.pathname);
    if (req.method !== 'POST' || !match) return refuse(404, 'not_found', [{ code: 'not_found', message: 'Not found' }]);
    const sourceId = match[1]!;
    const expected = this.sources.get(sourceId);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? url.searchParams.get('token') ?? undefined;
    if (!bearer)
      return refuse(401, 'authentication_error', [{ code: 'missing_authorization_material', message: 'No authorization material provided in request' }]);
    if (expected === undefined || bearer !== expected)
      return refuse(401, 'authentication_error', [
        { code: 'invalid_authorization_material', message: 'The provided token is not valid for this alert source' },
      ]);
    if (this.limit.throttled(sourceId)) {
      const seconds = this.options.retryAfterSeconds ?? 1;
      const retryAfter = new Date(Date.now() + seconds * 1000).toUTCString();
      return refuse(
        429,
        'too_many_requests',
        [{ code: 'too_many_requests', message: 'Too many requests. We recommend exponential backoff.' }],
        { rate_limit: { name: 'alert_source', limit: this.options.eventsPerMinute ?? 1200, remaining: 0, retry_after: retryAfter } },
        { 'retry-after': String(seconds) },
      );
    }
    let event: unknown;
    try {
      event = JSON.parse(record.raw);
    } catch {
      return refuse(400, 'bad_request', [{ code: 'bad_request', message: 'The request body is not valid JSON' }]);
    }
    const errors = alertEventErrors(event);
    if (errors.length) return refuse(422, 'validation_error', errors);
    record.event = event as Record<string, unknown>;
    record.outcome = this.apply(sourceId, record.event);
    answer(202, { status: 'success', message: 'Event accepted for processing', deduplication_key: record.event.deduplication_key });
  }

  private apply(sourceId: string, event: Record<string, unknown>): NonNullable<FakeIncidentIoRequest['outcome']> {
    const key = String(event.deduplication_key);
    const firing = this.alerts.find((a) => a.sourceId === sourceId && a.deduplicationKey === key && a.status === 'firing');
    if (event.status === 'resolved') {
      if (!firing) return 'ignored';
      firing.events.push(event);
      firing.status = 'resolved';
      return 'resolved';
    }
    if (firing) {
      firing.events.push(event);
      firing.title = String(event.title);
      return 'updated';
    }
    this.alerts.push({ sourceId, deduplicationKey: key, status: 'firing', title: String(event.title), events: [event] });
    return 'created';
  }
}
