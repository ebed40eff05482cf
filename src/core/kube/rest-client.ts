import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { KubeApiError, parseStatus } from './api-error.js';
import type { ConnectionConfig } from './connection-config.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  /** Content-Type of the body (JSON unless a patch says otherwise). */
  contentType?: string;
  accept?: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** client-go re-reads a token file once a minute; a 401 re-reads it at once. */
const TOKEN_FILE_TTL_MS = 60_000;

/**
 * One pooled, kept-alive connection set to one API server with one set of credentials. Every
 * KubeRest made from it (impersonating ones too) shares it: impersonation is a header per
 * request, not a connection.
 */
export class KubeConnection {
  private agent: HttpsAgent | HttpAgent;
  private token?: { value: string; readAt: number };

  constructor(
    readonly config: ConnectionConfig,
    private readonly clock: () => number = Date.now,
    private readonly tokenTtlMs = TOKEN_FILE_TTL_MS,
  ) {
    this.agent = this.makeAgent();
  }

  get secure(): boolean {
    return this.config.server.startsWith('https:');
  }

  /** The agent requests go through now (a new one after resetConnections). */
  currentAgent(): HttpsAgent | HttpAgent {
    return this.agent;
  }

  /**
   * Drops every pooled connection (a kept-alive connection can stall silently, e.g. behind a NAT
   * that forgot it); requests and watches on them fail and are retried on new ones.
   */
  resetConnections(): void {
    const old = this.agent;
    this.agent = this.makeAgent();
    old.destroy();
  }

  /** The bearer token, if any; a token file is re-read when stale or when `fresh` (after a 401). */
  bearer(fresh = false): string | undefined {
    const { token, tokenFile } = this.config;
    if (!tokenFile) return token;
    const now = this.clock();
    if (fresh || !this.token || now - this.token.readAt >= this.tokenTtlMs) {
      this.token = { value: readFileSync(tokenFile, 'utf8').trim(), readAt: now };
    }
    return this.token.value;
  }

  get usesTokenFile(): boolean {
    return this.config.tokenFile !== undefined;
  }

  private makeAgent(): HttpsAgent | HttpAgent {
    const { ca, cert, key, insecureSkipTlsVerify, tlsServerName } = this.config;
    if (!this.secure) return new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
    return new HttpsAgent({
      keepAlive: true,
      scheduling: 'lifo',
      ca,
      cert,
      key,
      rejectUnauthorized: !insecureSkipTlsVerify,
      ...(tlsServerName ? { servername: tlsServerName } : {}),
    });
  }
}

/** A small Kubernetes REST client: JSON in, JSON out, KubeApiError for every error status. */
export class KubeRest {
  constructor(
    readonly connection: KubeConnection,
    /** Sent as Impersonate-User on every request. */
    readonly impersonating: string | undefined = connection.config.impersonate,
  ) {}

  /** The same connection, acting as `user`. */
  impersonate(user: string): KubeRest {
    return new KubeRest(this.connection, user);
  }

  resetConnections(): void {
    this.connection.resetConnections();
  }

  async request<T = unknown>(req: KubeRequest): Promise<T> {
    const { text } = await this.send(req, false);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The body as sent, for the few paths that answer plain text (`/readyz`). */
  async requestText(req: KubeRequest): Promise<string> {
    return (await this.send(req, false)).text;
  }

  /**
   * Opens a streaming GET (a watch) and hands each line to `onLine`. Resolves when the server
   * ends the stream or `signal` aborts it; rejects with KubeApiError for an error status and
   * with the socket's error when the connection breaks.
   */
  stream(req: Omit<KubeRequest, 'method' | 'body'>, onOpen: () => void, onLine: (line: string) => void, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return resolve();
      const request = this.open({ ...req, method: 'GET' }, this.connection.bearer(), (res) => {
        if ((res.statusCode ?? 500) >= 300) {
          collect(res).then((text) => reject(new KubeApiError(res.statusCode ?? 500, parseStatus(text), 'GET', req.path)), reject);
          return;
        }
        onOpen();
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            try {
              if (line) onLine(line);
            } catch (error) {
              // A line that is not JSON (or a handler that threw) ends the watch as a failure.
              request.destroy(error as Error);
              return;
            }
          }
        });
        res.on('error', (error) => (signal.aborted ? resolve() : reject(error)));
        // A stream that closes before its end is a broken connection, unless we aborted it.
        res.on('close', () => (res.complete || signal.aborted ? resolve() : reject(new Error(`watch ${req.path}: connection closed`))));
      });
      const abort = () => request.destroy();
      signal.addEventListener('abort', abort, { once: true });
      request.on('close', () => signal.removeEventListener('abort', abort));
      request.on('error', (error) => (signal.aborted ? resolve() : reject(error)));
      request.end();
    });
  }

  private async send(req: KubeRequest, retried: boolean): Promise<{ res: IncomingMessage; text: string }> {
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    let result: { res: IncomingMessage; text: string };
    try {
      result = await new Promise((resolve, reject) => {
        const request = this.open(req, this.connection.bearer(retried), (res) => void collect(res).then((text) => resolve({ res, text }), reject), payload);
        request.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reusedSocket: request.reusedSocket })));
        request.end(payload);
      });
    } catch (error) {
      // A kept-alive socket the server closed while idle fails the first write; it never saw the request.
      const reused = (error as { reusedSocket?: boolean }).reusedSocket === true && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
      if (reused && !retried) return this.send(req, true);
      throw error;
    }
    const status = result.res.statusCode ?? 500;
    // A rotated token file: read it again and retry once.
    if (status === 401 && !retried && this.connection.usesTokenFile) return this.send(req, true);
    if (status >= 300) throw new KubeApiError(status, parseStatus(result.text), req.method, req.path);
    return result;
  }

  private open(req: KubeRequest, token: string | undefined, onResponse: (res: IncomingMessage) => void, payload?: string): ClientRequest {
    const url = new URL(this.connection.config.server + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string | number> = { Accept: req.accept ?? 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.impersonating) headers['Impersonate-User'] = this.impersonating;
    if (payload !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const send = this.connection.secure ? httpsRequest : httpRequest;
    const request = send(url, { method: req.method, headers, agent: this.connection.currentAgent() }, onResponse);
    const connectMs = this.connection.config.connectTimeoutMs;
    if (connectMs !== undefined) request.once('socket', (socket) => giveUpConnectingAfter(request, socket, connectMs, url.host));
    if (req.method !== 'GET' || !('watch' in (req.query ?? {}))) {
      const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      // ETIMEDOUT: a server that does not answer is told apart from one that answered with an error.
      const timedOut = () => Object.assign(new Error(`${req.method} ${req.path}: no answer within ${timeoutMs / 1000}s`), { code: 'ETIMEDOUT' });
      request.setTimeout(timeoutMs, () => request.destroy(timedOut()));
    }
    return request;
  }
}

/** Destroys `request` with an ETIMEDOUT error when its socket is not connected within `ms` (a reused socket already is). */
function giveUpConnectingAfter(request: ClientRequest, socket: Socket, ms: number, host: string): void {
  if (!socket.connecting) return;
  const timer = setTimeout(() => {
    request.destroy(Object.assign(new Error(`connect ETIMEDOUT ${host}: no connection within ${ms / 1000}s`), { code: 'ETIMEDOUT' }));
  }, ms);
  const clear = () => clearTimeout(timer);
  socket.once('connect', clear);
  socket.once('close', clear);
}

function collect(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** encodeURIComponent for one path segment (names are DNS labels, but never trust that). */
export const seg = (value: string): string => encodeURIComponent(value);
