import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError } from '@slack/web-api';
import type { RawData } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { eventually } from '../support/eventually.js';

// Socket Mode and the bot's other needs on the one fake Slack, spoken to by the real WebClient
// and a plain WebSocket client (the bot's own Socket Mode client is in release-bot-socket).

const client = (slack: FakeSlack, token: string) => new WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });

/** apps.connections.open as the Socket Mode client calls it. */
const openConnection = async (slack: FakeSlack, token: string) => ((await client(slack, token).apiCall('apps.connections.open')) as { url?: string }).url!;

async function platformError(call: Promise<unknown>): Promise<string | undefined> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  expect(error?.code).toBe(ErrorCode.PlatformError);
  return error?.data.error;
}

/** Opens a socket and collects what the fake sends; rejects with the HTTP status when refused. */
function connect(url: string): Promise<{ socket: WebSocket; received: Array<Record<string, unknown>>; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const received: Array<Record<string, unknown>> = [];
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('message', (data) => received.push(JSON.parse(rawText(data)) as Record<string, unknown>));
    socket.on('open', () => resolve({ socket, received, closed }));
    socket.on('unexpected-response', (_req, res) => reject(new Error(`refused: HTTP ${res.statusCode}`)));
    socket.on('error', reject);
  });
}

/** A WebSocket message's text, whichever of ws's shapes it came in. */
function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data))).toString('utf8');
}

describe('fake Slack: Socket Mode and user groups', () => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack({ tokens: ['xoxb-bot'], appTokens: ['xapp-app'], userGroups: { S0ONCALL: ['U1', 'U2'], S0DEV: [] } });
  });
  afterAll(() => slack.stop());

  it('apps.connections.open takes only the app-level token; other methods only the bot token', async () => {
    expect(await platformError(client(slack, 'xoxb-bot').apiCall('apps.connections.open'))).toBe('not_allowed_token_type');
    expect(await platformError(client(slack, 'xapp-app').auth.test())).toBe('not_allowed_token_type');
    expect(await platformError(client(slack, 'xapp-nope').apiCall('apps.connections.open'))).toBe('invalid_auth');
    expect(await openConnection(slack, 'xapp-app')).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/socket\?ticket=[0-9a-f]+$/);
  });

  it('hello on connect, envelopes out, acks back by envelope_id; a connection URL admits one connection', async () => {
    const url = await openConnection(slack, 'xapp-app');
    const { socket, received } = await connect(url);
    await slack.socketConnected();
    await eventually(() => expect(received[0]?.type).toBe('hello'), { timeoutMs: 5000, intervalMs: 20 });
    await expect(connect(url)).rejects.toThrow(/refused: HTTP 401/);

    socket.on('message', (data) => {
      const envelope = JSON.parse(rawText(data)) as { envelope_id?: string };
      if (envelope.envelope_id) socket.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { text: 'on it' } }));
    });
    const ack = await slack.sendEnvelope('slash_commands', { command: '/release', text: 'whoami' });
    const envelope = received.find((m) => m.envelope_id === ack.envelope_id);
    expect(envelope).toMatchObject({ type: 'slash_commands', payload: { command: '/release', text: 'whoami' }, accepts_response_payload: true });
    expect(ack.payload).toEqual({ text: 'on it' });
    const event = await slack.sendEnvelope('events_api', { event: { type: 'app_mention' } });
    expect(received.find((m) => m.envelope_id === event.envelope_id)).toMatchObject({ type: 'events_api', accepts_response_payload: false });
  });

  it('usergroups.list: every group, with its members when include_users', async () => {
    const web = client(slack, 'xoxb-bot');
    expect((await web.usergroups.list({ include_users: true })).usergroups).toEqual([
      { id: 'S0ONCALL', team_id: 'T0HELMCREW', users: ['U1', 'U2'], user_count: 2 },
      { id: 'S0DEV', team_id: 'T0HELMCREW', users: [], user_count: 0 },
    ]);
    expect((await web.usergroups.list({})).usergroups).toEqual([
      { id: 'S0ONCALL', team_id: 'T0HELMCREW' },
      { id: 'S0DEV', team_id: 'T0HELMCREW' },
    ]);
  });

  it('stop() closes the socket too', async () => {
    const other = await startFakeSlack();
    const url = await openConnection(other, other.appToken);
    const { closed } = await connect(url);
    await other.stop();
    await closed;
  });
});
