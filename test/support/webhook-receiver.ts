import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhookSignature, type SignatureCheck } from '../../src/notify/providers/webhook-signature.js';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  check: SignatureCheck;
  status: number;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Holds the answer this long (a slow receiver; a delivery in flight). */
  delayMs?: number;
}

/**
 * A webhook receiver on 127.0.0.1 and a free port, as a real one would be written: it verifies
 * the signature and the timestamp (401 otherwise), then answers what `reply` says for the path.
 * Every request is recorded. `clockSkewSeconds` moves its clock (to replay an old request).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  clockSkewSeconds = 0;
  private server: Server | undefined;
  private port = 0;

  constructor(
    private readonly keys: Record<string, string>,
    public reply: (path: string, request: ReceivedRequest, sameBefore: number) => Reply = () => ({ status: 200 }),
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '/').split('?')[0]!;
        const key = this.keys[path] ?? '';
        const check = verifyWebhookSignature({
          key,
          body,
          timestamp: req.headers[TIMESTAMP_HEADER] as string | undefined,
          signature: req.headers[SIGNATURE_HEADER] as string | undefined,
          nowSeconds: Math.floor(Date.now() / 1000) + this.clockSkewSeconds,
        });
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          /* recorded as is */
        }
        const request: ReceivedRequest = { path, headers: req.headers, body, json, check, status: 0, at: Date.now() };
        const sameBefore = this.requests.filter((r) => r.path === path && r.json.id === json.id).length;
        this.requests.push(request);
        const reply = check === 'valid' ? this.reply(path, request, sameBefore) : { status: 401 };
        request.status = reply.status;
        setTimeout(() => {
          res.writeHead(reply.status, reply.headers ?? {});
          res.end();
        }, reply.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, query = ''): string {
    return `http://127.0.0.1:${this.port}${path}${query}`;
  }

  /** Accepted (2xx) deliveries on a path, in arrival order. */
  delivered(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path && r.status >= 200 && r.status < 300);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 30_000, what = 'deliveries'): Promise<void> {
    await eventually(
      () => {
        if (!predicate()) throw new Error(`no ${what} yet; received: ${this.requests.map((r) => `${r.path} ${String(r.json.event)} ${r.status}`).join(', ')}`);
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
