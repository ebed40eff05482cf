import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every local fake of an outside service (PagerDuty, Teams) has in common: an HTTP server on
 * 127.0.0.1 and a free port, stopped with its open connections, and a poll for what it recorded.
 * Each fake answers its own requests in `handle`.
 */
export abstract class LoopbackFake {
  private server: Server | undefined;
  protected port = 0;

  constructor(private readonly serviceName: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Polls until `done` holds. */
  async waitFor(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > until) throw new Error(`fake ${this.serviceName}: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** A fixed-window rate limit per key, as these services document theirs, plus forced refusals for tests. */
export class FixedWindowLimit {
  private forced = 0;
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly limit: () => number,
  ) {}

  /** Refuse the next `count` requests whatever the rate. */
  refuseNext(count: number): void {
    this.forced = count;
  }

  /** Counts one request for `key`; true when it is over the limit. */
  throttled(key: string, now = Date.now()): boolean {
    if (this.forced > 0) {
      this.forced--;
      return true;
    }
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      this.windows.set(key, { start: now, count: 1 });
      return false;
    }
    window.count++;
    return window.count > this.limit();
  }
}
