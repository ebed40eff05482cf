/**
 * Socket Mode as Slack speaks it: `apps.connections.open` (app-level token) hands out a
 * single-use WebSocket URL; on connect the fake sends `hello`, then envelopes
 * (`slash_commands`, `interactive`, `events_api`) that the app acks by `envelope_id`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface EnvelopeAck {
  envelope_id: string;
  payload?: unknown;
  /** From sending the envelope to receiving its ack. */
  ms: number;
}

export const FAKE_APP_ID = 'A0HELMCREW';

/** Slack retries an envelope not acked within 3 s; the fake gives up waiting a little later. */
const ACK_WAIT_MS = 10_000;

export class SocketMode {
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly acks = new Map<string, (ack: Omit<EnvelopeAck, 'ms'>) => void>();
  private socket: WebSocket | undefined;
  private onConnected: () => void = () => undefined;
  readonly connected = new Promise<void>((resolve) => (this.onConnected = resolve));

  constructor(
    server: Server,
    private readonly origin: () => string,
  ) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** The answer to apps.connections.open: a URL that admits one connection. */
  openConnection(): string {
    const ticket = randomBytes(8).toString('hex');
    this.tickets.add(ticket);
    return `${this.origin().replace(/^http/, 'ws')}/socket?ticket=${ticket}`;
  }

  sendEnvelope(type: EnvelopeType, payload: Record<string, unknown>): Promise<EnvelopeAck> {
    const socket = this.socket;
    if (!socket) return Promise.reject(new Error('no Socket Mode client connected'));
    const envelopeId = randomBytes(8).toString('hex');
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.acks.delete(envelopeId);
        reject(new Error(`envelope ${envelopeId} (${type}) was not acked within ${ACK_WAIT_MS} ms`));
      }, ACK_WAIT_MS);
      this.acks.set(envelopeId, (ack) => {
        clearTimeout(timer);
        this.acks.delete(envelopeId);
        resolve({ ...ack, ms: performance.now() - started });
      });
      socket.send(
        JSON.stringify({ envelope_id: envelopeId, payload, type, accepts_response_payload: type !== 'events_api', retry_attempt: 0, retry_reason: '' }),
      );
    });
  }

  async close(): Promise<void> {
    for (const client of this.sockets.clients) client.terminate();
    await new Promise<void>((resolve) => this.sockets.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake-slack.invalid');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/socket' || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.socket = ws;
    ws.on('message', (data) => {
      const message = parseAck(
        Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8'),
      );
      if (message?.envelope_id) this.acks.get(message.envelope_id)?.({ envelope_id: message.envelope_id, payload: message.payload });
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake-slack', approximate_connection_time: 3600 },
        connection_info: { app_id: FAKE_APP_ID },
      }),
    );
    this.onConnected();
  }
}

/** An ack from the app; undefined for anything that is not JSON (Slack ignores it too). */
function parseAck(data: string): { envelope_id?: string; payload?: unknown } | undefined {
  try {
    return JSON.parse(data) as { envelope_id?: string; payload?: unknown };
  } catch {
    return undefined;
  }
}
