import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A small local stand-in for Slack, for the bot's tests, benchmark and demo: the Web API methods
 * the bot calls (checking tokens like Slack: invalid_auth), response_url endpoints, and Socket
 * Mode (apps.connections.open, then hello, envelopes and acks over a WebSocket). It records
 * every call. Loopback only, a free port. (The fuller fake Web API is src/dev/fake-slack.)
 */
export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
}

export interface FakeSlack {
  /** Web API base URL, like https://slack.com/api/ */
  apiUrl: string;
  responseUrl(): string;
  calls: RecordedCall[];
  responses: Array<{ path: string; body: Record<string, unknown>; at: number }>;
  userGroups: Array<{ id: string; users: string[] }>;
  /** Socket Mode: resolves when a client has connected and been sent `hello`. */
  socketConnected(): Promise<void>;
  /** Socket Mode: sends an envelope and resolves with the client's ack (same envelope_id). */
  sendEnvelope(type: 'slash_commands' | 'interactive' | 'events_api', payload: Record<string, unknown>): Promise<{ envelope_id: string; payload?: unknown; ms: number }>;
  close(): Promise<void>;
}

export async function startFakeSlack(botToken: string, appToken?: string): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const responses: FakeSlack['responses'] = [];
  const userGroups: FakeSlack['userGroups'] = [];
  let ts = 1_700_000_000;
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/response/')) {
      responses.push({ path: url.pathname, body: JSON.parse(raw || '{}') as Record<string, unknown>, at: performance.now() });
      return json(200, { ok: true });
    }
    const method = url.pathname.replace(/^\/api\//, '');
    const args = parseArgs(req.headers['content-type'] ?? '', raw);
    // apps.connections.open takes the app-level token; every other method the bot token.
    const expected = method === 'apps.connections.open' ? appToken : botToken;
    if (!expected || req.headers.authorization !== `Bearer ${expected}`) return json(200, { ok: false, error: 'invalid_auth' });
    calls.push({ method, args });
    switch (method) {
      case 'apps.connections.open':
        return json(200, { ok: true, url: `ws://127.0.0.1:${port}/socket?ticket=${randomBytes(8).toString('hex')}` });
      case 'auth.test':
        return json(200, { ok: true, url: 'https://fake.slack/', team: 'Fake', user: 'helmcrew', team_id: 'T0FAKE', user_id: 'U0BOT', bot_id: 'B0BOT' });
      case 'chat.postMessage':
        if (!args.channel) return json(200, { ok: false, error: 'channel_not_found' });
        ts += 1;
        return json(200, { ok: true, channel: args.channel, ts: `${ts}.000100`, message: { text: args.text } });
      case 'chat.update':
        return json(200, { ok: true, channel: args.channel, ts: args.ts, text: args.text });
      case 'chat.postEphemeral':
        ts += 1;
        return json(200, { ok: true, message_ts: `${ts}.000200` });
      case 'usergroups.list':
        return json(200, { ok: true, usergroups: userGroups.map((g) => ({ id: g.id, users: g.users })) });
      default:
        return json(200, { ok: false, error: 'unknown_method' });
    }
  });
  // Socket Mode as Slack speaks it: hello on connect, envelopes out, acks back by envelope_id.
  const sockets = new WebSocketServer({ server, path: '/socket' });
  let socket: WebSocket | undefined;
  let onConnected: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const acks = new Map<string, (ack: { envelope_id: string; payload?: unknown }) => void>();
  sockets.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      if (message.envelope_id) acks.get(message.envelope_id)?.({ envelope_id: message.envelope_id, payload: message.payload });
    });
    ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake', approximate_connection_time: 3600 }, connection_info: { app_id: 'A0APP' } }));
    onConnected();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    responseUrl: () => `http://127.0.0.1:${port}/response/${randomBytes(6).toString('hex')}`,
    calls,
    responses,
    userGroups,
    socketConnected: () => connected,
    sendEnvelope: (type, payload) =>
      new Promise((resolve, reject) => {
        if (!socket) return reject(new Error('no Socket Mode client connected'));
        const envelopeId = randomBytes(8).toString('hex');
        const started = performance.now();
        acks.set(envelopeId, (ack) => resolve({ ...ack, ms: performance.now() - started }));
        socket.send(JSON.stringify({ envelope_id: envelopeId, payload, type, accepts_response_payload: type !== 'events_api', retry_attempt: 0, retry_reason: '' }));
      }),
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Slack clients send forms whose complex fields (blocks) are JSON strings, or JSON bodies. */
function parseArgs(contentType: string, raw: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return JSON.parse(raw || '{}') as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    args[key] = /^[[{]/.test(value) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
