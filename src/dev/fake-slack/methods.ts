/**
 * The Web API methods the fake serves, with the answers and error codes Slack documents. Each
 * handler gets the parsed arguments of an authenticated call and returns the HTTP answer.
 */
import { checkMessage } from './block-limits.js';
import type { RateLimitConfig, RateLimiter } from './rate-limits.js';
import type { FakeChannel, FakeMessage, FakeWorkspace } from './workspace.js';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface MethodContext {
  ws: FakeWorkspace;
  limiter: RateLimiter;
  limits: RateLimitConfig;
}

type Params = Record<string, unknown>;
type Handler = (ctx: MethodContext, params: Params) => ApiAnswer;

export const ok = (body: Record<string, unknown> = {}): ApiAnswer => ({ status: 200, body: { ok: true, ...body } });
export const fail = (error: string, extra: Record<string, unknown> = {}): ApiAnswer => ({ status: 200, body: { ok: false, error, ...extra } });
export const rateLimited = (retryAfterSeconds: number): ApiAnswer => ({
  status: 429,
  body: { ok: false, error: 'ratelimited' },
  headers: { 'retry-after': String(retryAfterSeconds) },
});

/** A tiered method's workspace-wide limit; undefined when the call may go ahead. */
export function methodRateLimit(ctx: MethodContext, method: string): ApiAnswer | undefined {
  const limit = ctx.limits.methods[method];
  if (!limit) return undefined;
  const wait = ctx.limiter.take(`method:${method}`, limit);
  return wait > 0 ? rateLimited(wait) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A boolean argument as Slack reads it: JSON's true, or "true" / "1" in a form post. */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true' || value === '1';
}

function channelObject(channel: FakeChannel): Record<string, unknown> {
  return {
    id: channel.id,
    name: channel.name,
    is_channel: true,
    is_archived: channel.isArchived,
    is_member: channel.isMember,
    num_members: channel.members.length,
  };
}

function messageObject(ws: FakeWorkspace, m: FakeMessage): Record<string, unknown> {
  return {
    type: 'message',
    text: m.text,
    ...(m.author === ws.app.botId ? { bot_id: ws.app.botId, user: ws.app.userId } : { user: m.author }),
    ts: m.ts,
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.broadcast ? { subtype: 'thread_broadcast' } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.attachments ? { attachments: m.attachments } : {}),
  };
}

const authTest: Handler = ({ ws }) =>
  ok({
    url: `https://${ws.app.team.toLowerCase()}.slack.invalid/`,
    team: ws.app.team,
    user: 'helmcrew',
    team_id: ws.app.teamId,
    user_id: ws.app.userId,
    bot_id: ws.app.botId,
    is_enterprise_install: false,
  });

const postMessage: Handler = (ctx, params) => {
  const { ws } = ctx;
  const ref = str(params.channel);
  if (!ref) return fail('channel_not_found');
  const channel = ws.resolveChannel(ref);
  if (!channel) return fail('channel_not_found');
  if (channel.isArchived) return fail('is_archived');
  if (!channel.isMember) return fail('not_in_channel');
  const problem = checkMessage(params);
  if (problem) return fail(problem.error, problem.messages ? { response_metadata: { messages: problem.messages } } : {});
  const threadTs = str(params.thread_ts);
  if (threadTs) {
    const parent = ws.findMessage(channel.id, threadTs);
    // Slack wants the parent's ts, not a reply's.
    if (!parent || parent.threadTs) return fail('thread_not_found');
  }
  const wait = ctx.limiter.take(`post:${channel.id}`, ctx.limits.postMessagePerChannel);
  if (wait > 0) return rateLimited(wait);
  const message: FakeMessage = {
    channel: channel.id,
    ts: ws.nextTs(),
    author: ws.app.botId,
    text: str(params.text) ?? '',
    blocks: params.blocks as unknown[] | undefined,
    attachments: params.attachments as unknown[] | undefined,
    threadTs,
    ...(threadTs && isTrue(params.reply_broadcast) ? { broadcast: true } : {}),
    edits: [],
  };
  ws.messages.push(message);
  return ok({ channel: channel.id, ts: message.ts, message: messageObject(ws, message) });
};

const update: Handler = (ctx, params) => {
  const { ws } = ctx;
  // chat.update takes the channel ID (names are not resolved) and the message's ts.
  const channel = ws.channels.get(str(params.channel) ?? '');
  if (!channel) return fail('channel_not_found');
  if (channel.isArchived) return fail('is_archived');
  const message = ws.findMessage(channel.id, str(params.ts) ?? '');
  if (!message) return fail('message_not_found');
  if (message.author !== ws.app.botId) return fail('cant_update_message');
  const problem = checkMessage(params, false);
  if (problem) return fail(problem.error, problem.messages ? { response_metadata: { messages: problem.messages } } : {});
  const limited = methodRateLimit(ctx, 'chat.update');
  if (limited) return limited;
  message.edits.push({ text: message.text, blocks: message.blocks, attachments: message.attachments });
  // Slack keeps a field the update leaves out; blocks/attachments given replace the old ones.
  if (typeof params.text === 'string') message.text = params.text;
  if (params.blocks !== undefined) message.blocks = params.blocks as unknown[];
  if (params.attachments !== undefined) message.attachments = params.attachments as unknown[];
  return ok({ channel: channel.id, ts: message.ts, text: message.text, message: messageObject(ws, message) });
};

const postEphemeral: Handler = (ctx, params) => {
  const { ws } = ctx;
  const channel = ws.resolveChannel(str(params.channel) ?? '');
  if (!channel) return fail('channel_not_found');
  if (channel.isArchived) return fail('is_archived');
  const user = str(params.user);
  if (!user || !ws.users.has(user)) return fail('user_not_found');
  if (!channel.members.includes(user)) return fail('user_not_in_channel');
  const problem = checkMessage(params);
  if (problem) return fail(problem.error, problem.messages ? { response_metadata: { messages: problem.messages } } : {});
  const limited = methodRateLimit(ctx, 'chat.postEphemeral');
  if (limited) return limited;
  const messageTs = ws.nextTs();
  ws.ephemerals.push({ channel: channel.id, user, text: str(params.text) ?? '', blocks: params.blocks as unknown[] | undefined, messageTs });
  return ok({ message_ts: messageTs });
};

const conversationsInfo: Handler = (ctx, params) => {
  const limited = methodRateLimit(ctx, 'conversations.info');
  if (limited) return limited;
  const channel = ctx.ws.channels.get(str(params.channel) ?? '');
  return channel ? ok({ channel: channelObject(channel) }) : fail('channel_not_found');
};

/**
 * conversations.open with one user: the app's direct-message conversation with them, made on the
 * first call and the same one after (Slack answers its D… id; scope im:write).
 */
const conversationsOpen: Handler = (ctx, params) => {
  const limited = methodRateLimit(ctx, 'conversations.open');
  if (limited) return limited;
  const users = (str(params.users) ?? '').split(',').filter(Boolean);
  if (users.length === 0) return fail('users_list_not_supplied');
  if (users.length > 1) return fail('not_implemented', { detail: 'the fake opens direct messages with one user only' });
  const user = ctx.ws.users.get(users[0]!);
  if (!user) return fail('user_not_found');
  const id = `D${user.id.replace(/^[UW]/, '')}`;
  const existing = ctx.ws.channels.get(id);
  if (!existing) ctx.ws.channels.set(id, { id, name: id, isMember: true, isArchived: false, members: [user.id], isIm: true });
  return ok({ channel: { id }, ...(existing ? { already_open: true } : {}) });
};

/** chat.getPermalink: the message's address, `https://<team>.slack.invalid/archives/<channel>/p<ts without the dot>`. */
const getPermalink: Handler = (ctx, params) => {
  const channel = ctx.ws.channels.get(str(params.channel) ?? '');
  if (!channel) return fail('channel_not_found');
  const ts = str(params.message_ts) ?? '';
  if (!ctx.ws.findMessage(channel.id, ts)) return fail('message_not_found');
  return ok({ channel: channel.id, permalink: `https://${ctx.ws.app.team.toLowerCase()}.slack.invalid/archives/${channel.id}/p${ts.replace('.', '')}` });
};

const usersInfo: Handler = (ctx, params) => {
  const limited = methodRateLimit(ctx, 'users.info');
  if (limited) return limited;
  const user = ctx.ws.users.get(str(params.user) ?? '');
  if (!user) return fail('user_not_found');
  return ok({
    user: {
      id: user.id,
      team_id: ctx.ws.app.teamId,
      name: user.name,
      real_name: user.realName ?? user.name,
      is_bot: false,
      deleted: false,
      // Real Slack gives the email with the users:read.email scope; the fake always does (as its Sign in with Slack does).
      profile: { display_name: user.name, real_name: user.realName ?? user.name, email: user.email ?? `${user.name}@example.org` },
    },
  });
};

const userGroupMembers: Handler = (ctx, params) => {
  const limited = methodRateLimit(ctx, 'usergroups.users.list');
  if (limited) return limited;
  const members = ctx.ws.userGroups.get(str(params.usergroup) ?? '');
  return members ? ok({ users: [...members] }) : fail('no_such_subteam');
};

/** The bot reads every group with its members at once (include_users) and caches the answer. */
const userGroupsList: Handler = (ctx, params) => {
  const limited = methodRateLimit(ctx, 'usergroups.list');
  if (limited) return limited;
  const withUsers = params.include_users === true || params.include_users === 'true';
  const usergroups = [...ctx.ws.userGroups].map(([id, users]) => ({
    id,
    team_id: ctx.ws.app.teamId,
    ...(withUsers ? { users: [...users], user_count: users.length } : {}),
  }));
  return ok({ usergroups });
};

export const METHODS: Record<string, Handler> = {
  'usergroups.list': userGroupsList,
  'usergroups.users.list': userGroupMembers,
  'auth.test': (ctx, params) => methodRateLimit(ctx, 'auth.test') ?? authTest(ctx, params),
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.postEphemeral': postEphemeral,
  'conversations.info': conversationsInfo,
  'conversations.open': conversationsOpen,
  'chat.getPermalink': getPermalink,
  'users.info': usersInfo,
};
