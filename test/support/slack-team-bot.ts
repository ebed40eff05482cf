import type { TeamSpec } from '../../src/api/team.js';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import type { KubeClients } from '../../src/core/kube/client.js';
import { createLogger } from '../../src/core/log.js';
import { freePort } from '../../src/dev/free-port.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { eventually } from './eventually.js';
import { testEnv } from './fixtures.js';

/** The bot's answer on a response URL: its text, and its blocks (buttons) when it has some. */
export type ChatReply = { text: string; blocks?: Array<{ type: string; elements?: Array<{ action_id: string; value: string; text?: { text: string } }> }> };

/** What a file of one /release verb over signed Slack requests talks to. */
export interface SlackTeamBot {
  slack: FakeSlack;
  bot: RunningBot;
  /** The bot's Events API URL (HTTP mode), where signed requests go. */
  events: string;
  /** The signing secret those requests are signed with. */
  secret: string;
  /** `/release <text>` as a signed request from `user` (Alice unless told) in the channel; the bot's reply. */
  slash(text: string, user?: string): Promise<ChatReply>;
  /** A press of a reply's button, signed; the bot's reply. */
  click(actionId: string, value: string, user?: string): Promise<ChatReply>;
  /**
   * Presses a plan's Confirm as Alice and waits for the channel's record to end with the
   * controller's report (:white_check_mark: or :x:); the Confirm reply's text and that line.
   */
  confirmAndAwaitOutcome(plan: ChatReply, timeoutMs?: number): Promise<{ confirmed: string; outcome: string }>;
  stop(): Promise<void>;
}

/** A reply's button of this action id. */
export function buttonOf(reply: ChatReply, actionId: string) {
  return reply.blocks?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === actionId);
}

/**
 * The bot in HTTP mode on a free 127.0.0.1 port, talking to `slack` (the local fake) and working
 * the queue under `queuePrefix`; `events` is where signed requests go.
 */
export async function startHttpBot(
  slack: FakeSlack,
  opts: { token: string; secret: string; queuePrefix: string; env?: Record<string, string> },
): Promise<{ bot: RunningBot; events: string }> {
  const { env } = testEnv();
  const bot = await startBot(
    readBotConfig({
      SLACK_BOT_TOKEN: opts.token,
      SLACK_SIGNING_SECRET: opts.secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: opts.queuePrefix,
      ...opts.env,
    }),
    createLogger('bot', process.env.LOG_LEVEL ?? 'warn'),
  );
  return { bot, events: `http://127.0.0.1:${bot.port}/slack/events` };
}

/**
 * The local fake Slack with Alice and Mallory in one channel, a Team (labelled for this run) that
 * gives Alice these verbs in the namespace, and a bot in HTTP mode on the test controller's queue.
 */
export async function startSlackTeamBot(opts: {
  kube: KubeClients;
  namespace: string;
  queuePrefix: string;
  team: string;
  channel: { id: string; name: string };
  verbs: NonNullable<TeamSpec['permissions']>[number]['verbs'];
  /** The Team's namespaces when not just `namespace`; `any` leaves them out (every namespace, `list` of all). */
  namespaces?: string[] | 'any';
  /** More of the bot's settings (a fleet: HELMCREW_CLUSTER_NAME, HELMCREW_FLEET_KEYS_DIR). */
  env?: Record<string, string>;
  /** More permissions of the same Team (a fleet: a verb granted only in some clusters). */
  morePermissions?: NonNullable<TeamSpec['permissions']>;
}): Promise<SlackTeamBot> {
  const secret = 'test-signing-secret';
  const token = 'xoxb-test-token';
  const slack = await startFakeSlack({
    tokens: [token],
    users: ['UALICE', 'UMALLORY'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
    channels: [opts.channel],
  });
  await createTeam(opts.kube, opts.team, {
    members: { slackUsers: ['UALICE'] },
    permissions: [
      { ...(opts.namespaces === 'any' ? {} : { namespaces: opts.namespaces ?? [opts.namespace] }), verbs: opts.verbs },
      ...(opts.morePermissions ?? []),
    ],
  });
  const { bot, events } = await startHttpBot(slack, { token, secret, queuePrefix: opts.queuePrefix, ...(opts.env ? { env: opts.env } : {}) });
  const channel = opts.channel.id;
  const slash = async (text: string, user = 'UALICE') => {
    const request = slashCommand(slack, text, user, channel);
    await postSigned(events, request.form, { secret });
    return (await slack.replyOn(request.responseUrl, 30_000)) as ChatReply;
  };
  const click = async (actionId: string, value: string, user = 'UALICE') => {
    const request = buttonClick(slack, actionId, value, user, channel);
    await postSigned(events, request.form, { secret });
    return (await slack.replyOn(request.responseUrl, 30_000)) as ChatReply;
  };
  const confirmAndAwaitOutcome = async (plan: ChatReply, timeoutMs = 30_000) => {
    const confirm = buttonOf(plan, 'release_confirm');
    if (!confirm) throw new Error(`the plan has no Confirm button: ${plan.text}`);
    const mark = slack.calls().length;
    const confirmed = (await click('release_confirm', confirm.value)).text;
    let outcome = '';
    await eventually(
      () => {
        const texts = slack
          .calls()
          .slice(mark)
          .map((c) => String(c.params.text));
        outcome = texts.find((text) => /:white_check_mark:|:x:/.test(text)) ?? '';
        if (!outcome) throw new Error(`no outcome in the channel's record yet: ${JSON.stringify(texts)}`);
      },
      { timeoutMs, intervalMs: 200 },
    );
    return { confirmed, outcome };
  };
  return {
    slack,
    bot,
    events,
    secret,
    slash,
    click,
    confirmAndAwaitOutcome,
    stop: async () => {
      await bot.stop();
      await slack.stop();
      await deleteTeam(opts.kube, opts.team);
    },
  };
}
