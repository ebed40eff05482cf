import { ErrorCode, LogLevel, WebClient, type WebAPIHTTPError, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';

// The fake is proven against @slack/web-api's own WebClient: if the fake spoke a protocol the
// real client does not expect, these calls would fail or decode wrongly.

const quiet = { logLevel: LogLevel.ERROR };
const noRetries = { retries: 0 };

function client(slack: FakeSlack, token: string | undefined = slack.token, extra: ConstructorParameters<typeof WebClient>[1] = {}) {
  return new WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: noRetries, rejectRateLimitedCalls: true, ...quiet, ...extra });
}

async function platformError(call: Promise<unknown>): Promise<WebAPIPlatformError> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  expect(error?.code).toBe(ErrorCode.PlatformError);
  return error!;
}

describe('fake Slack Web API, spoken to by the real WebClient', () => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: ['xoxb-good', 'xoxb-other'],
      users: [
        { id: 'U1', name: 'alice' },
        { id: 'U2', name: 'bob' },
      ],
      userGroups: { S0ONCALL: ['U1'] },
      channels: [
        { name: 'releases', id: 'C1' },
        { name: 'outside', id: 'C2', isMember: false },
        { name: 'old', id: 'C3', isArchived: true },
        { name: 'alice-only', id: 'C4', members: ['U1'] },
        { name: 'burst', id: 'C5' },
      ],
      rateLimits: { postMessagePerChannel: { burst: 1, perSecond: 1 } },
    });
  });
  afterAll(() => slack.stop());

  it('binds loopback only', () => {
    expect(slack.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it('auth.test answers the app identity for a valid token', async () => {
    const result = await client(slack, 'xoxb-good').auth.test();
    expect(result).toMatchObject({ ok: true, team_id: 'T0HELMCREW', user_id: 'U0HELMBOT', bot_id: 'B0HELMBOT' });
  });

  it.each([
    { name: 'no token', token: '', want: 'not_authed' },
    { name: 'unknown token', token: 'xoxb-nope', want: 'invalid_auth' },
  ])('auth: $name → $want', async ({ token, want }) => {
    const error = await platformError(client(slack, token).auth.test());
    expect(error.data.error).toBe(want);
  });

  it('a revoked or deactivated token answers token_revoked / account_inactive', async () => {
    slack.setToken('xoxb-other', 'revoked');
    expect((await platformError(client(slack, 'xoxb-other').auth.test())).data.error).toBe('token_revoked');
    slack.setToken('xoxb-other', 'inactive');
    expect((await platformError(client(slack, 'xoxb-other').auth.test())).data.error).toBe('account_inactive');
    slack.setToken('xoxb-other', 'valid');
  });

  it('chat.postMessage by channel name answers the channel ID and a ts; replies go to the thread', async () => {
    const web = client(slack, 'xoxb-good');
    const top = await web.chat.postMessage({ channel: '#releases', text: 'hello', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hello*' } }] });
    expect(top).toMatchObject({ ok: true, channel: 'C1', message: { text: 'hello', bot_id: 'B0HELMBOT' } });
    expect(top.ts).toMatch(/^\d+\.\d{6}$/);
    await new Promise((r) => setTimeout(r, 1100)); // the channel's rate limit in this file is 1/s, burst 1
    const reply = await web.chat.postMessage({ channel: 'C1', text: 'detail', thread_ts: top.ts! });
    expect(reply.message?.thread_ts).toBe(top.ts);
    expect(slack.messages('releases').map((m) => m.text)).toEqual(['hello']);
    expect(slack.replies('C1', top.ts!).map((m) => m.text)).toEqual(['detail']);
    expect(slack.messages('C1')[0]?.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: '*hello*' } }]);
  });

  it.each([
    { name: 'unknown channel', channel: '#nowhere', want: 'channel_not_found' },
    { name: 'bot not a member', channel: 'outside', want: 'not_in_channel' },
    { name: 'archived', channel: 'C3', want: 'is_archived' },
  ])('chat.postMessage: $name → $want', async ({ channel, want }) => {
    const error = await platformError(client(slack, 'xoxb-good').chat.postMessage({ channel, text: 'x' }));
    expect(error.data.error).toBe(want);
  });

  it.each([
    { name: 'no content', args: {}, want: 'no_text' },
    { name: 'text over 40,000 characters', args: { text: 'x'.repeat(40_001) }, want: 'msg_too_long' },
    { name: '51 blocks', args: { text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }, want: 'invalid_blocks' },
    {
      name: 'section text of 3001',
      args: { text: 'x', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3001) } }] },
      want: 'invalid_blocks',
    },
    {
      name: 'blocks in an attachment over the limit',
      args: { text: 'x', attachments: [{ color: '#e01e5a', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }] },
      want: 'invalid_blocks',
    },
    {
      name: 'button label of 76',
      args: { text: 'x', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'b'.repeat(76) }, action_id: 'a' }] }] },
      want: 'invalid_blocks',
    },
  ])('chat.postMessage limits: $name → $want (nothing posted)', async ({ args, want }) => {
    const before = slack.workspace.messages.length;
    const error = await platformError(client(slack, 'xoxb-good').chat.postMessage({ channel: 'C5', ...args } as never));
    expect(error.data.error).toBe(want);
    expect(slack.workspace.messages.length).toBe(before);
  });

  it('invalid_blocks names the offending field with a json-pointer, as Slack does', async () => {
    const error = await platformError(
      client(slack, 'xoxb-good').chat.postMessage({
        channel: 'C5',
        text: 'x',
        blocks: [{ type: 'divider' }, { type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3001) } }],
      }),
    );
    expect(error.data.response_metadata?.messages).toEqual(['[ERROR] must be less than 3001 characters [json-pointer:/blocks/1/text/text]']);
  });

  it('accepts exactly the limits: 40,000 characters, 50 blocks, 3000-character sections', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const web = client(slack, 'xoxb-good');
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3000) } }, ...Array.from({ length: 49 }, () => ({ type: 'divider' }))];
    const result = await web.chat.postMessage({ channel: 'C5', text: 'x'.repeat(40_000), blocks });
    expect(result.ok).toBe(true);
  });

  it('conversations.open opens one direct-message conversation per user; chat.getPermalink links a message', async () => {
    const web = client(slack);
    const opened = await web.conversations.open({ users: 'U2' });
    expect((await web.conversations.open({ users: 'U2' })).channel?.id).toBe(opened.channel?.id);
    const posted = await web.chat.postMessage({ channel: opened.channel!.id!, text: 'done' });
    expect(slack.messages(opened.channel!.id!).map((m) => m.text)).toEqual(['done']);
    const link = await web.chat.getPermalink({ channel: opened.channel!.id!, message_ts: posted.ts! });
    expect(link.permalink).toMatch(new RegExp(`/archives/${opened.channel!.id}/p${posted.ts!.replace('.', '')}$`));
    expect((await platformError(web.conversations.open({ users: 'UNOBODY' }))).data.error).toBe('user_not_found');
    expect((await platformError(web.chat.getPermalink({ channel: 'C1', message_ts: '1.000000' }))).data.error).toBe('message_not_found');
  });

  it('chat.update edits the app’s own message and keeps the old version', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const web = client(slack, 'xoxb-good');
    const posted = await web.chat.postMessage({ channel: 'C5', text: 'upgrading' });
    const updated = await web.chat.update({ channel: 'C5', ts: posted.ts!, text: 'ready' });
    expect(updated).toMatchObject({ ok: true, channel: 'C5', ts: posted.ts, text: 'ready' });
    const message = slack.messages('burst').find((m) => m.ts === posted.ts)!;
    expect(message.text).toBe('ready');
    expect(message.edits.map((e) => e.text)).toEqual(['upgrading']);
  });

  it.each([
    { name: 'unknown ts', setup: () => '1.000001', channel: 'C5', want: 'message_not_found' },
    { name: 'a person’s message', setup: (s: FakeSlack) => s.postAsUser('C5', 'U1', 'mine').ts, channel: 'C5', want: 'cant_update_message' },
    { name: 'channel given by name', setup: () => '1.000001', channel: '#burst', want: 'channel_not_found' },
  ])('chat.update: $name → $want', async ({ setup, channel, want }) => {
    const error = await platformError(client(slack, 'xoxb-good').chat.update({ channel, ts: setup(slack), text: 'edit' }));
    expect(error.data.error).toBe(want);
  });

  it('rate limit: 429 with Retry-After, surfaced as WebAPIRateLimitedError when the client rejects rate-limited calls', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const web = client(slack, 'xoxb-good');
    await web.chat.postMessage({ channel: 'C5', text: 'one' });
    const error = (await web.chat.postMessage({ channel: 'C5', text: 'two' }).catch((e: unknown) => e)) as WebAPIRateLimitedError;
    expect(error.code).toBe(ErrorCode.RateLimitedError);
    expect(error.retryAfter).toBe(1);
    const last = slack.calls('chat.postMessage').at(-1)!;
    expect(last).toMatchObject({ status: 429, ok: false, error: 'ratelimited' });
  });

  it('rate limit: WebClient’s own 429 handling waits Retry-After and then succeeds', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const web = new WebClient('xoxb-good', { slackApiUrl: slack.apiUrl, ...quiet });
    const before = slack.calls('chat.postMessage').length;
    const started = Date.now();
    await web.chat.postMessage({ channel: 'C5', text: 'a' });
    const second = await web.chat.postMessage({ channel: 'C5', text: 'b' });
    expect(second.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(
      slack
        .calls('chat.postMessage')
        .slice(before)
        .map((c) => c.status),
    ).toEqual([200, 429, 200]);
  });

  it('faults: 500 → WebAPIHTTPError; dropped connection → request error; injected 429 → retryAfter', async () => {
    const web = client(slack, 'xoxb-good');
    slack.failNext(1, { kind: 'status', status: 500 }, ['auth.test']);
    const http = (await web.auth.test().catch((e: unknown) => e)) as WebAPIHTTPError;
    expect(http.code).toBe(ErrorCode.HTTPError);
    expect(http.statusCode).toBe(500);
    slack.failNext(1, { kind: 'drop' });
    const dropped = (await web.auth.test().catch((e: unknown) => e)) as { code: string };
    expect(dropped.code).toBe(ErrorCode.RequestError);
    slack.failNext(1, { kind: 'ratelimited', retryAfterSeconds: 7 });
    const limited = (await web.auth.test().catch((e: unknown) => e)) as WebAPIRateLimitedError;
    expect(limited.retryAfter).toBe(7);
    expect((await web.auth.test()).ok).toBe(true);
    expect(
      slack
        .calls('auth.test')
        .slice(-4)
        .map((c) => c.fault),
    ).toEqual(['status', 'drop', 'ratelimited', undefined]);
  });

  it('WebClient’s default retry policy retries a 500 and then succeeds', async () => {
    const web = new WebClient('xoxb-good', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 }, ...quiet });
    slack.failNext(1, { kind: 'status', status: 503 }, ['auth.test']);
    expect((await web.auth.test()).ok).toBe(true);
    expect(
      slack
        .calls('auth.test')
        .slice(-2)
        .map((c) => c.status),
    ).toEqual([503, 200]);
  });

  it('chat.postEphemeral, conversations.info, users.info and usergroups.users.list', async () => {
    const web = client(slack, 'xoxb-good');
    const eph = await web.chat.postEphemeral({ channel: 'C4', user: 'U1', text: 'only you' });
    expect(eph.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(slack.ephemerals('alice-only')).toMatchObject([{ user: 'U1', text: 'only you' }]);
    expect((await platformError(web.chat.postEphemeral({ channel: 'C4', user: 'U2', text: 'x' }))).data.error).toBe('user_not_in_channel');
    expect((await web.conversations.info({ channel: 'C2' })).channel).toMatchObject({ id: 'C2', name: 'outside', is_member: false });
    expect((await web.users.info({ user: 'U2' })).user).toMatchObject({ id: 'U2', name: 'bob' });
    expect((await platformError(web.users.info({ user: 'U9' }))).data.error).toBe('user_not_found');
    expect((await web.usergroups.users.list({ usergroup: 'S0ONCALL' })).users).toEqual(['U1']);
    expect((await platformError(web.usergroups.users.list({ usergroup: 'S0NONE' }))).data.error).toBe('no_such_subteam');
  });

  it('response_url: 5 posts accepted, the 6th refused; in_channel answers land in the channel', async () => {
    const url = slack.createResponseUrl({ channel: 'C4', user: 'U1' });
    const post = (body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post({ text: `answer ${i}`, response_type: i === 0 ? 'in_channel' : 'ephemeral' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(slack.responseUrl(url)?.posts).toHaveLength(6);
    expect(slack.messages('C4').map((m) => m.text)).toContain('answer 0');
    expect(slack.ephemerals('C4').map((e) => e.text)).toEqual(expect.arrayContaining(['answer 1', 'answer 4']));
  });

  it('the recorded calls never keep the token', () => {
    expect(JSON.stringify(slack.calls())).not.toContain('xoxb-good');
  });
});
