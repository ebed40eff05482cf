import type { Server } from 'node:http';
import { App, LogLevel, SocketModeReceiver, type RespondFn } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { ConfigError } from '../../core/config/env.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { releaseOperations } from '../execute/wiring.js';
import { QueuedPreviews } from '../execute/preview-client.js';
import { connectRedis } from '../../core/redis.js';
import { PlanAction, RELEASE_ACTION_IDS, releaseActionVerb } from '../../core/slack/action-ids.js';
import { unescapeSlackText } from '../../core/slack/mrkdwn.js';
import { textMessage, type SlackMessage } from './blocks.js';
import type { BotConfig } from './config.js';
import { Directory } from './directory.js';
import { FreezeReports } from './freeze-reports.js';
import { PlanStore } from './plan-store.js';
import { ReleaseBot, type ChannelPoster, type RequestContext } from './release-bot.js';
import { BotMetrics, buttonVerb, commandVerb } from '../metrics/bot-metrics.js';
import { startHealthServer, type ReadinessCheck } from '../../core/metrics/health-server.js';
import { redisCheck } from '../../core/metrics/redis-check.js';
import { newMetricsRegistry, type Registry } from '../../core/metrics/registry.js';

export interface RunningBot {
  mode: 'http' | 'socket';
  port?: number;
  stop(): Promise<void>;
  /** What its readiness depends on (Redis; in Socket Mode the socket), for the process's /readyz. */
  readiness: ReadinessCheck[];
}

export interface BotOptions {
  /** The process's metrics registry (`helmcrew run`), served by that process. Without one the bot serves its own on HEALTH_PORT. */
  registry?: Registry;
}

/**
 * `helmcrew bot`: Bolt in HTTP mode (signed requests at /slack/events on PORT) or Socket Mode
 * (SLACK_APP_TOKEN). Every listener acks first and works after, so Slack's 3-second limit holds
 * however slow the cluster is; results go back by response_url or message updates.
 */
export async function startBot(config: BotConfig, log: Logger, options: BotOptions = {}): Promise<RunningBot> {
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
  const redis = connectRedis(config.redisUrl, { maxRetriesPerRequest: 3 });
  // The controller renders what a change would do (core/preview); asked over the shared queue prefix.
  const previewConnection = connectRedis(config.redisUrl);
  const previews = new QueuedPreviews(previewConnection, config.keyPrefix, config.previewTimeoutMs);
  const { kube, api, freezes, storage, ops } = releaseOperations(kubeConfig, log, 'helmcrew-bot', { previews });
  const directory = new Directory(new TeamApi(kube), web);
  const poster: ChannelPoster = {
    post: async (channel, message) => ({ ts: (await web.chat.postMessage({ channel, ...message })).ts! }),
    update: async (channel, ts, message) => void (await web.chat.update({ channel, ts, ...message })),
  };
  const freezeReports = new FreezeReports({
    freezes,
    api,
    teams: new TeamApi(kube),
    redis,
    prefix: config.keyPrefix,
    poster,
    log,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
  });
  const bot = new ReleaseBot({
    ops,
    api,
    freezes,
    storage,
    previews,
    teams: () => directory.teams(),
    userGroups: (user) => directory.userGroups(user),
    plans: new PlanStore(redis, config.keyPrefix, config.planTtlSeconds),
    poster,
    log,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
    freezeReports,
  });

  const registry = options.registry ?? newMetricsRegistry();
  const socket = config.appToken
    ? new SocketModeReceiver({ appToken: config.appToken, logLevel: LogLevel.WARN, installerOptions: { clientOptions } })
    : undefined;
  const app = new App({
    token: config.botToken,
    clientOptions,
    logLevel: LogLevel.WARN,
    // Bolt's own Socket Mode set-up ignores clientOptions; through installerOptions the socket
    // client's apps.connections.open goes to SLACK_API_URL too.
    ...(socket ? { receiver: socket } : { signingSecret: config.signingSecret!, endpoints: '/slack/events' }),
  });
  registerListeners(app, bot, web, log, new BotMetrics(registry));
  const started = config.appToken ? await app.start() : await app.start(config.port);
  const port = config.appToken ? undefined : ((started as Server).address() as { port: number }).port;
  freezeReports.start(config.freezeSweepMs);
  const readiness: ReadinessCheck[] = [redisCheck(previewConnection)];
  // Socket Mode: ready while the socket to Slack is open (HTTP mode: Slack comes to us).
  if (socket) readiness.push({ name: 'slack', ready: () => socketOpen(socket) });
  const health = !options.registry && config.healthPort ? startHealthServer({ port: config.healthPort, registry, checks: readiness }) : undefined;
  log.info({ mode: config.appToken ? 'socket' : 'http', port }, 'bot started');
  return {
    mode: config.appToken ? 'socket' : 'http',
    port,
    readiness,
    stop: async () => {
      await health?.close();
      await app.stop();
      await freezeReports.stop();
      redis.disconnect();
      await previews.close();
      previewConnection.disconnect();
    },
  };
}

/** Whether the Socket Mode client's WebSocket is open (its `websocket` is replaced on each reconnect). */
function socketOpen(receiver: SocketModeReceiver): boolean {
  const ws = (receiver.client as unknown as { websocket?: { isActive?: () => boolean } }).websocket;
  return ws?.isActive?.() ?? false;
}

function registerListeners(app: App, bot: ReleaseBot, web: WebClient, log: Logger, metrics: BotMetrics): void {
  const viaResponseUrl = (respond: RespondFn, user: string, channel: string): RequestContext => ({
    user,
    channel,
    reply: async (message: SlackMessage) => void (await respond({ response_type: 'ephemeral', replace_original: false, ...message })),
  });
  /** Work after the ack; a failure is told to the person and logged, never thrown at Bolt. */
  const work = (ctx: RequestContext, what: string, labels: { verb: string; via: string }, fn: () => Promise<void>) =>
    fn().then(
      () => metrics.handled(labels.verb, labels.via, 'handled'),
      async (error: unknown) => {
        metrics.handled(labels.verb, labels.via, 'error');
        log.error({ err: error, actor: `slack:${ctx.user}`, what }, 'bot request failed');
        await ctx.reply(textMessage(`Something went wrong (${what}); nothing was confirmed. The bot's log has the details.`)).catch(() => undefined);
      },
    );
  /** Times Slack's ack: Slack gives up after 3 s. */
  const timedAck = async (via: string, ack: () => Promise<void>) => {
    const started = performance.now();
    await ack();
    metrics.acked(via, (performance.now() - started) / 1000);
  };

  app.command('/release', async ({ command, ack, respond }) => {
    await timedAck('command', ack);
    const ctx = viaResponseUrl(respond, command.user_id, command.channel_id);
    const text = unescapeSlackText(command.text);
    await work(ctx, 'command', { verb: commandVerb(text), via: 'command' }, () => bot.handleText(text, ctx));
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
    const command = unescapeSlackText(text);
    await work(ctx, 'mention', { verb: commandVerb(command), via: 'mention' }, () => bot.handleText(command, ctx));
  });

  const button = (actionId: string, handle: (value: string, actionId: string, ctx: RequestContext) => Promise<void>) =>
    app.action(actionId, async ({ ack, body, action, respond }) => {
      await timedAck('button', ack);
      if (body.type !== 'block_actions' || action.type !== 'button' || !('action_id' in action)) return;
      const ctx = viaResponseUrl(respond, body.user.id, body.channel?.id ?? '');
      await work(ctx, action.action_id, { verb: buttonVerb(action.action_id), via: 'button' }, () => handle(action.value ?? '', action.action_id, ctx));
    });
  button(PlanAction.Confirm, (planId, _, ctx) => bot.confirm(planId, ctx));
  button(PlanAction.Cancel, (planId, _, ctx) => bot.cancel(planId, ctx));
  button(PlanAction.Approve, (planId, _, ctx) => bot.approve(planId, ctx));
  // A notification's button is the same as typing the command: plan, confirm, act.
  for (const id of RELEASE_ACTION_IDS) button(id, (release, actionId, ctx) => bot.handleText(`${releaseActionVerb(actionId)} ${release}`, ctx));

  // Bolt wants a promise back; logging is all there is to do.
  app.error((error) => {
    log.error({ err: error }, 'bolt error');
    return Promise.resolve();
  });
}
