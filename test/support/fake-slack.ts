import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * The smallest local stand-in for the Slack Web API the bot tests need (h-slack builds the full
 * one under src/dev/fake-slack): it checks the bot token like Slack (invalid_auth), answers the
 * methods the bot calls with Slack's documented shapes, records every call, and serves
 * response_url endpoints. Loopback only, a free port.
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
  responses: Array<{ path: string; body: Record<string, unknown> }>;
  userGroups: Array<{ id: string; users: string[] }>;
  close(): Promise<void>;
}

export async function startFakeSlack(botToken: string): Promise<FakeSlack> {
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
      responses.push({ path: url.pathname, body: JSON.parse(raw || '{}') as Record<string, unknown> });
      return json(200, { ok: true });
    }
    const method = url.pathname.replace(/^\/api\//, '');
    const args = parseArgs(req.headers['content-type'] ?? '', raw);
    if (req.headers.authorization !== `Bearer ${botToken}`) return json(200, { ok: false, error: 'invalid_auth' });
    calls.push({ method, args });
    switch (method) {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    responseUrl: () => `http://127.0.0.1:${port}/response/${randomBytes(6).toString('hex')}`,
    calls,
    responses,
    userGroups,
    close: () => new Promise((resolve) => server.close(() => resolve())),
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
