import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FixedWindowLimit, LoopbackFake } from '../loopback-fake.js';
import { AlertBook, type AppliedEvent } from './alerts.js';
import { MAX_EVENT_BYTES, validateEvent } from './validate.js';

export interface FakePagerDutyOptions {
  /** Events accepted per routing key per minute before 429 (PagerDuty throttles per integration). Default 120. */
  eventsPerMinute?: number;
  /** Retry-After sent with a 429, in seconds. Default 1. */
  retryAfterSeconds?: number;
}

export interface FakeRequest {
  at: number;
  status: number;
  /** The body as received. */
  raw: string;
  event?: Record<string, unknown>;
  applied?: AppliedEvent;
}

/**
 * A local PagerDuty Events API v2 on 127.0.0.1 and a free port, answering as PagerDuty documents:
 * POST /v2/enqueue → 202 `{status: 'success', message: 'Event processed', dedup_key}`; 400
 * `{status: 'invalid event', message, errors}` for a body that is not a valid event; 429 with
 * Retry-After when a routing key sends too much (or `throttleNext` says so). Alerts are kept as
 * PagerDuty de-duplicates them (alerts.ts), so a test reads the incidents a sender caused.
 */
export class FakePagerDuty extends LoopbackFake {
  readonly alerts = new AlertBook();
  readonly requests: FakeRequest[] = [];
  private readonly limit: FixedWindowLimit;

  constructor(private readonly options: FakePagerDutyOptions = {}) {
    super('PagerDuty');
    this.limit = new FixedWindowLimit(60_000, () => this.options.eventsPerMinute ?? 120);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v2/enqueue`;
  }

  /** Answer the next `count` events with 429 (a throttled integration). */
  throttleNext(count: number): void {
    this.limit.refuseNext(count);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      return status;
    };
    const record: FakeRequest = { at: Date.now(), status: 0, raw: '' };
    this.requests.push(record);
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v2/enqueue') {
      record.status = answer(404, { status: 'not found', message: 'Not Found' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      chunks.push(chunk as Buffer);
    }
    record.raw = Buffer.concat(chunks).toString('utf8');
    if (size > MAX_EVENT_BYTES) {
      record.status = answer(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Event is larger than 512 KB'] });
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(record.raw);
    } catch {
      record.status = answer(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Request body is not valid JSON'] });
      return;
    }
    const errors = validateEvent(event);
    if (errors.length) {
      record.status = answer(400, { status: 'invalid event', message: 'Event object is invalid', errors });
      return;
    }
    record.event = event as Record<string, unknown>;
    if (this.throttled(String(record.event.routing_key))) {
      const retryAfter = String(this.options.retryAfterSeconds ?? 1);
      record.status = answer(429, { status: 'throttle event', message: 'Requests for this service are arriving too quickly.' }, { 'retry-after': retryAfter });
      return;
    }
    const dedupKey = typeof record.event.dedup_key === 'string' ? record.event.dedup_key : randomUUID();
    record.applied = this.alerts.apply(record.event, dedupKey, record.at);
    record.status = answer(202, { status: 'success', message: 'Event processed', dedup_key: dedupKey });
  }

  private throttled(routingKey: string): boolean {
    return this.limit.throttled(routingKey);
  }
}
