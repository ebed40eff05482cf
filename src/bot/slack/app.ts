import type { Server } from 'node:http';
import { App, LogLevel, SocketModeReceiver, type RespondFn } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { Redis } from 'ioredis';
import { ConfigError } from '../../core/config/env.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { releaseOperations } from '../execute/wiring.js';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_CONFIRM, textMessage, unescapeSlackText, type SlackMessage } from './blocks.js';
import type { BotConfig } from './config.js';
import { Directory } from './directory.js';
import { PlanStore } from './plan-store.js';
import { ReleaseBot, type RequestContext } from './release-bot.js';

/** Buttons on notification messages (from the Slack provider): value is "namespace/name". */
const NOTIFICATION_ACTIONS = /^release_(rollback|suspend|resume|history|status|correct)$/;

export interface RunningBot {
  mode: 'http' | 'socket';
  port?: number;
  stop(): Promise<void>;
}

/**
 * `helmcrew bot`: Bolt in HTTP mode (signed requests at /slack/events on PORT) or Socket Mode
 * (SLACK_APP_TOKEN). Every listener acks first and works after, so Slack's 3-second limit holds
 * however slow the cluster is; results go back by response_url or message updates.
 */
export async function startBot(config: BotConfig, log: Logger): Promise<RunningBot> {
  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  const web = new WebClient(config.botToken, clientOptions);
  // One quick check at start-up (the normal client retries for minutes): a wrong token or an
  // unreachable SLACK_API_URL stops start-up with one line.
  try {
    await new WebClient(config.botToken, { ...clientOptions, retryConfig: { retries: 0 }, timeout: 10_000 }).auth.test();
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code) throw new ConfigError(`SLACK_BOT_TOKEN was not accepted by the Slack Web API: ${code}`);
    throw new ConfigError(`the Slack Web API${config.slackApiUrl ? ` at SLACK_API_URL` : ''} could not be reached: ${(error as Error).message}`);
  }
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const { kube, api, storage, ops } = releaseOperations(kubeConfig, log, 'helmcrew-bot');
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
  const directory = new Directory(new TeamApi(kube), web);
  const bot = new ReleaseBot({
    ops,
    api,
    storage,
    teams: () => directory.teams(),
    userGroups: (user) => directory.userGroups(user),
    plans: new PlanStore(redis, config.keyPrefix, config.planTtlSeconds),
    poster: {
      post: async (channel, message) => ({ ts: (await web.chat.postMessage({ channel, ...message })).ts! }),
      update: async (channel, ts, message) => void (await web.chat.update({ channel, ts, ...message })),
    },
    log,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
  });

  const app = new App({
    token: config.botToken,
    clientOptions,
    logLevel: LogLevel.WARN,
    // Bolt's own Socket Mode set-up ignores clientOptions; through installerOptions the socket
    // client's apps.connections.open goes to SLACK_API_URL too.
    ...(config.appToken
      ? { receiver: new SocketModeReceiver({ appToken: config.appToken, logLevel: LogLevel.WARN, installerOptions: { clientOptions } }) }
      : { signingSecret: config.signingSecret!, endpoints: '/slack/events' }),
  });
  registerListeners(app, bot, web, log);
  const started = config.appToken ? await app.start() : await app.start(config.port);
  const port = config.appToken ? undefined : ((started as Server).address() as { port: number }).port;
  log.info({ mode: config.appToken ? 'socket' : 'http', port }, 'bot started');
  return {
    mode: config.appToken ? 'socket' : 'http',
    port,
    stop: async () => {
      await app.stop();
      redis.disconnect();
    },
  };
}

function registerListeners(app: App, bot: ReleaseBot, web: WebClient, log: Logger): void {
  const viaResponseUrl = (respond: RespondFn, user: string, channel: string): RequestContext => ({
    user,
    channel,
    reply: async (message: SlackMessage) => void (await respond({ response_type: 'ephemeral', replace_original: false, ...message })),
  });
  /** Work after the ack; a failure is told to the person and logged, never thrown at Bolt. */
  const work = (ctx: RequestContext, what: string, fn: () => Promise<void>) =>
    fn().catch(async (error: unknown) => {
      log.error({ err: error, actor: `slack:${ctx.user}`, what }, 'bot request failed');
      await ctx.reply(textMessage(`Something went wrong (${what}); nothing was confirmed. The bot's log has the details.`)).catch(() => undefined);
    });

  app.command('/release', async ({ command, ack, respond }) => {
    await ack();
    const ctx = viaResponseUrl(respond, command.user_id, command.channel_id);
    await work(ctx, 'command', () => bot.handleText(unescapeSlackText(command.text), ctx));
  });

  // Slash commands do not work in threads; "@helmcrew rollback unicorn" does.
  app.event('app_mention', async ({ event, context }) => {
    const user = event.user;
    if (!user) return;
    const text = event.text.replace(new RegExp(`<@${context.botUserId ?? 'U[A-Z0-9]+'}>`, 'g'), ' ');
    const ctx: RequestContext = {
      user,
      channel: event.channel,
      reply: async (message) =>
        void (await web.chat.postEphemeral({ channel: event.channel, user, ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}), ...message })),
    };
    await work(ctx, 'mention', () => bot.handleText(unescapeSlackText(text), ctx));
  });

  const button = (actionId: string | RegExp, handle: (value: string, actionId: string, ctx: RequestContext) => Promise<void>) =>
    app.action(actionId, async ({ ack, body, action, respond }) => {
      await ack();
      if (body.type !== 'block_actions' || action.type !== 'button' || !('action_id' in action)) return;
      const ctx = viaResponseUrl(respond, body.user.id, body.channel?.id ?? '');
      await work(ctx, action.action_id, () => handle(action.value ?? '', action.action_id, ctx));
    });
  button(ACTION_CONFIRM, (planId, _, ctx) => bot.confirm(planId, ctx));
  button(ACTION_CANCEL, (planId, _, ctx) => bot.cancel(planId, ctx));
  button(ACTION_APPROVE, (planId, _, ctx) => bot.approve(planId, ctx));
  // A notification's button is the same as typing the command: plan, confirm, act.
  button(NOTIFICATION_ACTIONS, (release, actionId, ctx) => bot.handleText(`${actionId.replace(/^release_/, '')} ${release}`, ctx));

  // Bolt wants a promise back; logging is all there is to do.
  app.error((error) => {
    log.error({ err: error }, 'bolt error');
    return Promise.resolve();
  });
}
