/**
 * A local fake of the Slack Web API for the demo, the tests and the bot: an HTTP server on
 * 127.0.0.1 (a free port) that answers Slack's JSON, checks tokens and channels, enforces the
 * documented limits (rate limits with 429 + Retry-After, message size, blocks), records every
 * call, and can be told to fail the next calls (500, 429, dropped connection).
 *
 *   const slack = await startFakeSlack({ channels: [{ name: 'frontend-releases' }] });
 *   new WebClient(slack.token, { slackApiUrl: slack.apiUrl });
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLarge, callerToken, parseArguments, readBody, send } from './http.js';
import { fail, METHODS, ok, rateLimited, type ApiAnswer } from './methods.js';
import { DEFAULT_RATE_LIMITS, RateLimiter, type BucketLimit, type RateLimitConfig } from './rate-limits.js';
import { firstAcceptedPost, ResponseUrls, type ResponseUrlRecord } from './response-urls.js';
import { SocketMode, type EnvelopeAck, type EnvelopeType } from './socket-mode.js';
import { fakeSlackOidc, type FakeOidcClient } from './oidc.js';
import { FakeWorkspace, type EphemeralMessage, type FakeChannel, type FakeMessage, type FakeUser, type RecordedCall, type TokenState } from './workspace.js';

export type {
  EnvelopeAck,
  EnvelopeType,
  EphemeralMessage,
  FakeChannel,
  FakeMessage,
  FakeUser,
  RecordedCall,
  TokenState,
  ResponseUrlRecord,
  RateLimitConfig,
  BucketLimit,
};

export const DEFAULT_FAKE_TOKEN = 'xoxb-fake-helmcrew-token';
export const DEFAULT_FAKE_APP_TOKEN = 'xapp-fake-helmcrew-token';
/** The fake workspace and its app's bot user, as auth.test reports them. */
export const FAKE_APP = { teamId: 'T0HELMCREW', team: 'helmcrew', userId: 'U0HELMBOT', botId: 'B0HELMBOT' } as const;

export interface FakeChannelSpec {
  name: string;
  id?: string;
  /** Default true; false makes chat.postMessage answer `not_in_channel`. */
  isMember?: boolean;
  isArchived?: boolean;
  members?: string[];
}

export interface FakeSlackOptions {
  /** Valid bot tokens; default [DEFAULT_FAKE_TOKEN]. */
  tokens?: string[];
  /** Valid app-level tokens (Socket Mode's apps.connections.open); default [DEFAULT_FAKE_APP_TOKEN]. */
  appTokens?: string[];
  channels?: FakeChannelSpec[];
  users?: FakeUser[];
  /** User groups (Slack "subteams", S…) and their members, for usergroups.users.list. */
  userGroups?: Record<string, string[]>;
  /** Override the rate limits (merged over Slack's defaults). */
  rateLimits?: Partial<RateLimitConfig>;
  /** Milliseconds clock, injectable for rate-limit and response_url expiry tests. */
  now?: () => number;
  /** Sign in with Slack: the apps (client id and secret) that may sign users in through the fake's OIDC endpoints. */
  oidcClients?: FakeOidcClient[];
}

/** What the next matching calls answer instead of the real thing. */
export type Fault =
  { kind: 'status'; status: number } | { kind: 'ratelimited'; retryAfterSeconds: number } | { kind: 'drop' } | { kind: 'error'; error: string };

interface PendingFault {
  fault: Fault;
  remaining: number;
  methods?: string[];
}

export interface FakeSlack {
  /** Base URL for WebClient's `slackApiUrl` (ends in /api/). */
  readonly apiUrl: string;
  /** Also Sign in with Slack's issuer (HELMCREW_SLACK_OIDC_ISSUER_URL): discovery at `<origin>/.well-known/openid-configuration`. */
  readonly origin: string;
  /** openid.connect.token calls and whether Slack accepted them. */
  readonly oidcTokenCalls: Array<{ ok: boolean; error?: string }>;
  /** The first valid bot token. */
  readonly token: string;
  /** The first valid app-level token. */
  readonly appToken: string;
  readonly workspace: FakeWorkspace;
  /** Every call, optionally of one method, in arrival order. */
  calls(method?: string): RecordedCall[];
  /** Calls of a method that Slack accepted (ok: true). */
  okCalls(method: string): RecordedCall[];
  /** Top-level messages in a channel (ID or name), oldest first, with their current content. */
  messages(channel: string): FakeMessage[];
  /** Thread replies under a message, oldest first. */
  replies(channel: string, threadTs: string): FakeMessage[];
  ephemerals(channel?: string): EphemeralMessage[];
  channel(ref: string): FakeChannel | undefined;
  addChannel(spec: FakeChannelSpec): FakeChannel;
  setToken(token: string, state: TokenState): void;
  /** A message by someone else (for `cant_update_message`). */
  postAsUser(channel: string, user: string, text: string): FakeMessage;
  /** The next `count` calls (of `methods`, or any) answer with the fault. */
  failNext(count: number, fault: Fault, methods?: string[]): void;
  /** A response_url as a slash command or button click carries it. */
  createResponseUrl(opts: { channel: string; user: string; messageTs?: string }): string;
  responseUrl(url: string): ResponseUrlRecord | undefined;
  responseUrls(): ResponseUrlRecord[];
  /** The first post Slack accepted on a response_url; rejects ("no reply on …") after the timeout. */
  replyOn(url: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Socket Mode: resolves once an app has connected and been sent `hello`. */
  socketConnected(): Promise<void>;
  /** Socket Mode: sends an envelope; resolves with the app's ack (same envelope_id). */
  sendEnvelope(type: EnvelopeType, payload: Record<string, unknown>): Promise<EnvelopeAck>;
  stop(): Promise<void>;
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const now = options.now ?? Date.now;
  const ws = new FakeWorkspace({ ...FAKE_APP }, now);
  const tokens = options.tokens ?? [DEFAULT_FAKE_TOKEN];
  for (const token of tokens) ws.tokens.set(token, 'valid');
  const appTokens = new Set(options.appTokens ?? [DEFAULT_FAKE_APP_TOKEN]);
  for (const user of options.users ?? []) ws.users.set(user.id, user);
  for (const [group, members] of Object.entries(options.userGroups ?? {})) ws.userGroups.set(group, members);
  const limits: RateLimitConfig = {
    ...DEFAULT_RATE_LIMITS,
    ...options.rateLimits,
    methods: { ...DEFAULT_RATE_LIMITS.methods, ...options.rateLimits?.methods },
  };
  const limiter = new RateLimiter(now);
  const responses = new ResponseUrls(ws, now);
  const faults: PendingFault[] = [];
  let channelCount = 0;

  const addChannel = (spec: FakeChannelSpec): FakeChannel => {
    channelCount += 1;
    const channel: FakeChannel = {
      id: spec.id ?? `C${String(channelCount).padStart(8, '0')}`,
      name: spec.name.replace(/^#/, ''),
      isMember: spec.isMember ?? true,
      isArchived: spec.isArchived ?? false,
      members: spec.members ?? [...ws.users.keys()],
    };
    ws.channels.set(channel.id, channel);
    return channel;
  };
  for (const spec of options.channels ?? []) addChannel(spec);

  const takeFault = (method: string): Fault | undefined => {
    const pending = faults.find((f) => f.remaining > 0 && (!f.methods || f.methods.includes(method)));
    if (!pending) return undefined;
    pending.remaining -= 1;
    if (pending.remaining === 0) faults.splice(faults.indexOf(pending), 1);
    return pending.fault;
  };

  const record = (method: string, params: Record<string, unknown>, answer: ApiAnswer | undefined, fault?: Fault) => {
    const { token: _token, ...safe } = params;
    ws.calls.push({
      method,
      params: safe,
      status: answer?.status ?? 0,
      ok: answer?.body.ok === true,
      error: typeof answer?.body.error === 'string' ? answer.body.error : undefined,
      fault: fault?.kind,
      at: now(),
    });
  };

  /** The fault's answer, or undefined for a dropped connection. */
  const faultAnswer = (fault: Fault): ApiAnswer | undefined => {
    switch (fault.kind) {
      case 'status':
        return { status: fault.status, body: { ok: false, error: 'fake_server_error' } };
      case 'ratelimited':
        return rateLimited(fault.retryAfterSeconds);
      case 'error':
        return fail(fault.error);
      case 'drop':
        return undefined;
    }
  };

  // apps.connections.open takes only an app-level token, every other method only a bot token.
  const authenticate = (token: string | undefined, method: string): ApiAnswer | undefined => {
    if (!token) return fail('not_authed');
    const wantsAppToken = method === 'apps.connections.open';
    if (appTokens.has(token)) return wantsAppToken ? undefined : fail('not_allowed_token_type');
    if (wantsAppToken && ws.tokens.has(token)) return fail('not_allowed_token_type');
    const state = ws.tokens.get(token);
    if (state === 'valid') return undefined;
    if (state === 'revoked') return fail('token_revoked');
    if (state === 'inactive') return fail('account_inactive');
    return fail('invalid_auth');
  };

  const oidc = await fakeSlackOidc({
    origin: () => origin,
    teamId: FAKE_APP.teamId,
    teamName: FAKE_APP.team,
    clients: options.oidcClients ?? [],
    users: () => ws.users,
    now,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake-slack.invalid');
    if (await oidc.handle(req, res, url, () => readBody(req))) return;
    const apiMatch = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
    const responseMatch = /^\/response\/([0-9a-f]+)$/.exec(url.pathname);
    if (!apiMatch && !responseMatch) return send(res, { status: 404, body: { ok: false, error: 'not_found' } });
    const method = apiMatch ? apiMatch[1]! : 'response_url';
    let raw: string;
    try {
      raw = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) return send(res, { status: 413, body: { ok: false, error: 'request_too_large' } });
      throw error;
    }
    const params = parseArguments(req.headers['content-type'], raw, url.searchParams);
    const fault = takeFault(method);
    if (fault) {
      const answer = faultAnswer(fault);
      record(method, params ?? {}, answer, fault);
      if (!answer) return req.socket.destroy();
      return send(res, answer);
    }
    let answer: ApiAnswer;
    if (!params) answer = fail('invalid_json');
    else if (responseMatch) answer = responses.post(responseMatch[1]!, params);
    else {
      const handler = method === 'apps.connections.open' ? () => ok({ url: socketMode.openConnection() }) : METHODS[method];
      answer = authenticate(callerToken(req, params), method) ?? (handler ? handler({ ws, limiter, limits }, params) : fail('unknown_method'));
    }
    record(method, params ?? {}, answer);
    send(res, answer);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { ok: false, error: 'fake_internal_error', detail: String(error) } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const socketMode = new SocketMode(server, () => origin);

  const channelId = (ref: string) => ws.resolveChannel(ref)?.id;
  return {
    apiUrl: `${origin}/api/`,
    origin,
    oidcTokenCalls: oidc.tokenCalls,
    token: tokens[0] ?? DEFAULT_FAKE_TOKEN,
    appToken: [...appTokens][0] ?? DEFAULT_FAKE_APP_TOKEN,
    workspace: ws,
    calls: (method) => ws.calls.filter((c) => method === undefined || c.method === method),
    okCalls: (method) => ws.calls.filter((c) => c.method === method && c.ok),
    messages: (ref) => ws.messages.filter((m) => m.channel === channelId(ref) && !m.threadTs && !m.deleted),
    replies: (ref, threadTs) => ws.messages.filter((m) => m.channel === channelId(ref) && m.threadTs === threadTs && !m.deleted),
    ephemerals: (ref) => ws.ephemerals.filter((e) => ref === undefined || e.channel === channelId(ref)),
    channel: (ref) => ws.resolveChannel(ref),
    addChannel,
    setToken: (token, state) => void ws.tokens.set(token, state),
    postAsUser: (ref, user, text) => {
      const channel = ws.resolveChannel(ref);
      if (!channel) throw new Error(`no channel ${ref}`);
      const message: FakeMessage = { channel: channel.id, ts: ws.nextTs(), author: user, text, edits: [] };
      ws.messages.push(message);
      return message;
    },
    failNext: (count, fault, methods) => void faults.push({ fault, remaining: count, methods }),
    createResponseUrl: ({ channel, user, messageTs }) => {
      const id = channelId(channel);
      if (!id) throw new Error(`no channel ${channel}`);
      return `${origin}/response/${responses.create(id, user, messageTs).id}`;
    },
    responseUrl: (url) => responses.get(url.split('/').pop() ?? ''),
    responseUrls: () => responses.all(),
    replyOn: (url, timeoutMs) => firstAcceptedPost(() => responses.get(url.split('/').pop() ?? ''), url, timeoutMs),
    socketConnected: () => socketMode.connected,
    sendEnvelope: (type, payload) => socketMode.sendEnvelope(type, payload),
    stop: async () => {
      await socketMode.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
