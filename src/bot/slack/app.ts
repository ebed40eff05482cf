import type { Server } from 'node:http';
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { connectKube, slimKubeClients } from '../../core/kube/slim-clients.js';
import type { FleetRouter } from '../../session/fleet/fleet-router.js';
import { ownFleetFreezes, proposalReach, startFleetRouter } from '../../session/fleet/fleet-settings.js';
import { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import { startHealthServer, type ReadinessCheck } from '../../core/metrics/health-server.js';
import { redisCheck } from '../../core/metrics/redis-check.js';
import { newMetricsRegistry, type Registry } from '../../core/metrics/registry.js';
import { connectRedis, type RedisConnection } from '../../core/redis.js';
import { RequesterLedger } from '../../core/requests/requester-ledger.js';
import { QueuedPreviews } from '../../session/execute/preview-client.js';
import { releaseOperations } from '../../session/execute/wiring.js';
import { BotMetrics } from '../metrics/bot-metrics.js';
import type { ChannelPoster } from './channel-progress.js';
import { answerEveryRequest, slackHttpReceiver } from './answer-every-request.js';
import type { BotConfig } from './config.js';
import { Directory } from './directory.js';
import { FreezeReports } from './freeze-reports.js';
import { registerListeners, socketOpen } from './listeners.js';
import { PlanStore } from '../../session/execute/plan-store.js';
import { ReleaseBot } from './release-bot.js';
import { DmPreferences } from './requester-dm.js';
import { checkBotToken } from './token-check.js';
import { ProposalVotes, type ProposalVoteDeps } from './proposal-votes.js';
import { ProposalStore } from '../../core/proposals/proposal-store.js';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import { FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { registerUnknownRequestAnswers } from './unknown-requests.js';

/**
 * The bot's proposal votes (issue 35): where a vote goes — the store and release of the cluster the
 * button names, through the fleet when there is one (session/fleet/fleet-settings.ts) — and Slack's parts.
 */
function proposalVoteDeps(
  config: BotConfig,
  redis: RedisConnection,
  api: Pick<HelmReleaseApi, 'get'>,
  fleet: FleetRouter | undefined,
  parts: { poster: ChannelPoster; events: ProposalVoteDeps['events']; log: Logger; directory: Directory },
): ProposalVoteDeps {
  return {
    ...proposalReach({
      redis,
      own: config.fleet?.own ?? config.cluster,
      keyPrefix: config.keyPrefix,
      api,
      ...(config.fleet && fleet ? { fleet: { settings: config.fleet, router: fleet } } : {}),
      speaker: 'this bot',
    }),
    teams: () => parts.directory.teams(),
    userGroups: (user) => parts.directory.userGroups(user),
    userName: (user) => parts.directory.userName(user),
    poster: parts.poster,
    events: parts.events,
    log: parts.log,
  };
}

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
 * (SLACK_APP_TOKEN). Wiring only: the listeners (listeners.ts) hand requests to the ReleaseBot
 * (release-bot.ts), whose `/release` flow is the session shared with the terminal (session/).
 */
export async function startBot(config: BotConfig, log: Logger, options: BotOptions = {}): Promise<RunningBot> {
  await checkBotToken(config);
  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  const web = new WebClient(config.botToken, clientOptions);
  const redis = connectRedis(config.redisUrl, { maxRetriesPerRequest: 3 });
  // The controller renders what a change would do (core/preview); asked over the shared queue prefix.
  const previewConnection = connectRedis(config.redisUrl);
  const previews = new QueuedPreviews(previewConnection, config.keyPrefix, config.previewTimeoutMs);
  // A fleet's freezes, one store: the router's commands and queries and the own cluster's plans read it.
  const fleetFreezes = config.fleet ? new FleetFreezeStore(previewConnection, config.fleet.fleetPrefix) : undefined;
  const { kube, api, freezes, storage, ops, events } = releaseOperations(slimKubeClients(connectKube(config.kubeconfig)), log, 'helmcrew-bot', {
    previews,
    timeZone: config.timeZone,
    // Who asked, from the signed request, for the controller's reports (core/requests).
    requesters: new RequesterLedger(redis, config.keyPrefix),
    // A fleet freeze taking in the bot's own cluster holds there as its Freezes do: its plans warn of it.
    ...(config.fleet && fleetFreezes ? { fleetFreezes: ownFleetFreezes(fleetFreezes, config.fleet.own) } : {}),
  });
  const directory = new Directory(new TeamApi(kube), web);
  // A fleet: other clusters through their agents on this Redis, each with its key (session/fleet/); BullMQ waits on a connection that retries for ever.
  const fleet =
    config.fleet && fleetFreezes
      ? await startFleetRouter(config.fleet, {
          redis: previewConnection,
          local: { ops, api, freezes, storage, previews, proposals: new ProposalStore(redis, clusterKey(config.keyPrefix, 'proposals')) },
          freezes: fleetFreezes,
          teams: new TeamApi(kube),
          log,
          timeZone: config.timeZone,
          previewTimeoutMs: config.previewTimeoutMs,
        })
      : undefined;
  const poster: ChannelPoster = {
    post: async (channel, message) => ({ ts: (await web.chat.postMessage({ channel, ...message })).ts! }),
    update: async (channel, ts, message) => void (await web.chat.update({ channel, ts, ...message })),
    reply: async (channel, ts, message) => void (await web.chat.postMessage({ channel, thread_ts: ts, ...message })),
  };
  const proposalVotes = new ProposalVotes(proposalVoteDeps(config, redis, api, fleet, { poster, events, log, directory }));
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
    userName: (user) => directory.userName(user),
    plans: new PlanStore(redis, config.keyPrefix, config.planTtlSeconds),
    ...(fleet ? { fleet } : {}),
    poster,
    log,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
    freezeReports,
    proposals: new ProposalStore(redis, clusterKey(config.keyPrefix, 'proposals')),
    ownCluster: config.cluster,
    ...(config.webUrl ? { webUrl: config.webUrl } : {}),
    proposalVotes,
    requesterDm: {
      direct: {
        permalink: async (channel, ts) => (await web.chat.getPermalink({ channel, message_ts: ts })).permalink,
        // A direct message goes to the IM conversations.open opens (or finds) with the person (scope im:write).
        send: async (user, message) => {
          const opened = await web.conversations.open({ users: user });
          await web.chat.postMessage({ channel: opened.channel!.id!, ...message });
        },
      },
      preferences: new DmPreferences(redis, config.keyPrefix),
      log,
    },
  });

  const registry = options.registry ?? newMetricsRegistry();
  // Bolt's own Socket Mode set-up ignores clientOptions; through installerOptions the socket
  // client's apps.connections.open goes to SLACK_API_URL too.
  const socket = config.appToken
    ? new SocketModeReceiver({ appToken: config.appToken, logLevel: LogLevel.WARN, installerOptions: { clientOptions } })
    : undefined;
  const app = new App({
    token: config.botToken,
    clientOptions,
    logLevel: LogLevel.WARN,
    // Every request answered within Slack's 3 s, also what no listener takes (answer-every-request.ts).
    receiver: answerEveryRequest(socket ?? slackHttpReceiver(config.signingSecret!, log), log),
  });
  registerListeners(app, bot, web, log, new BotMetrics(registry));
  registerUnknownRequestAnswers(app, log);
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
      await fleet?.close();
      redis.disconnect();
      await previews.close();
      previewConnection.disconnect();
    },
  };
}
