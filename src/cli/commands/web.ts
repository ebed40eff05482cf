import type { Registry } from 'prom-client';
import type { WebClient } from '@slack/web-api';
import { SHARED_ENV } from '../../core/config/env.js';
import { TeamApi } from '../../core/kube/team-api.js';
import { connectKube, slimKubeClients } from '../../core/kube/slim-clients.js';
import { createLogger, type Logger } from '../../core/log.js';
import { connectRedis } from '../../core/redis.js';
import { SlackUserGroups } from '../../core/slack/user-groups.js';
import type { SlackMessageRef } from '../../core/links/slack-thread.js';
import { teamPolicy } from '../../session/authz/policy-types.js';
import type { PageRoutes } from '../../web/contract.js';
import { readWebConfig, type WebConfig } from '../../web/server/config.js';
import { startWebServer } from '../../web/server/server.js';
import { assistantSlack } from '../compose/mcp-surface.js';
import { webSurface } from '../compose/web-surface.js';
import { untilSignal } from './until-signal.js';
import { startHealthServer, type ReadinessCheck } from '../../core/metrics/health-server.js';
import { redisCheck } from '../../core/metrics/redis-check.js';
import { intIn, readSessionConfig } from '../../session/flow/config.js';
import type { ProposalMessagePoster } from '../../session/flow/proposal-vote-messages.js';

/** A proposal's Slack messages through the web's WebClient: edited, and replied under, as the bot's poster does (bot/slack/app.ts). */
export function slackProposalMessages(slack: WebClient): ProposalMessagePoster {
  return {
    post: async (channel, message) => slack.chat.postMessage({ channel, ...message }),
    update: async (channel, ts, message) => void (await slack.chat.update({ channel, ts, ...message })),
    reply: async (channel, ts, message) => void (await slack.chat.postMessage({ channel, thread_ts: ts, ...message })),
  };
}

/**
 * The web surface wired to its parts: Redis for sessions, the API server for Teams (listed on every
 * signed-in request, as the bot does for every command: a person removed from a Team loses access at
 * once; Teams are few, one LIST is cheap), Slack for a Slack principal's user groups when a bot token is set
 * (and for assistants: their proposals posted in the Teams' channels, a token's person's groups and email).
 */
export async function startWeb(
  config: WebConfig,
  log: Logger,
  pages?: PageRoutes[],
  env: Record<string, string | undefined> = process.env,
  registry?: Registry,
) {
  const redis = connectRedis(config.redisUrl, { maxRetriesPerRequest: 2 });
  const rest = connectKube(config.kubeconfig);
  const teamApi = new TeamApi(slimKubeClients(rest));
  const shared = SHARED_ENV.in(env);
  const botToken = shared.raw('SLACK_BOT_TOKEN');
  const apiUrl = shared.raw('SLACK_API_URL');
  // @slack/web-api (axios with it: ~13 MiB of RSS) only when there is a bot token to use it with.
  const slack = botToken
    ? new (await import('@slack/web-api')).WebClient(botToken, apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {})
    : undefined;
  const groups = slack ? new SlackUserGroups(slack) : undefined;
  // A release page links its Slack thread through chat.getPermalink, as the bot links a message.
  // A vote on the web edits the proposal's Slack messages as a button's does.
  const slackPages = slack
    ? {
        permalink: async (ref: SlackMessageRef) => (await slack.chat.getPermalink({ channel: ref.channelId, message_ts: ref.ts })).permalink,
        proposalMessages: slackProposalMessages(slack),
      }
    : undefined;
  // The release pages and the verbs of chat, unless a caller (a test) mounts its own.
  const slackUserGroups = groups ? (user: string) => groups.of(user) : undefined;
  const surface = pages
    ? undefined
    : await webSurface(
        rest,
        redis,
        config.redisUrl,
        readSessionConfig(env),
        log,
        slackPages,
        {
          webUrl: config.publicUrl,
          corsOrigins: config.mcpCorsOrigins,
          registry,
          slackUserGroups,
          ...(slack && groups ? { slack: assistantSlack(slack, groups) } : {}),
        },
        // A fleet (HELMCREW_FLEET_KEYS_DIR): every cluster the bot drives, shown and acted on (docs/web.md#a-fleet).
        config.fleet,
      ).catch((error: unknown) => {
        redis.disconnect();
        throw error;
      });
  try {
    const server = await startWebServer(config, {
      redis,
      teams: async () => (await teamApi.list()).items.map(teamPolicy),
      slackUserGroups,
      log,
      pages: pages ?? surface!.pages,
    });
    return {
      address: server.address,
      /** What `helmcrew web`'s /readyz waits on: Redis (sessions) answers, the pages' watch has listed. */
      readiness: [redisCheck(redis), { name: 'release watch', ready: () => surface?.ready() ?? true }] as ReadinessCheck[],
      stop: async () => {
        await server.close();
        await surface?.stop();
        redis.disconnect();
      },
    };
  } catch (error) {
    await surface?.stop();
    redis.disconnect();
    throw error;
  }
}

/**
 * `helmcrew web`: the release pages alone (replicas share sessions through Redis). With HEALTH_PORT
 * (the chart's split Deployment) /healthz, /readyz and /metrics on that port, as every other part;
 * prom-client loads only then.
 */
export async function webCommand(): Promise<number> {
  const env = process.env;
  const config = readWebConfig(env);
  const log = createLogger('web');
  const healthPort = SHARED_ENV.in(env).raw('HEALTH_PORT') ? intIn(env, 'HEALTH_PORT', 8081, 1, 65535) : undefined;
  const registry = healthPort ? (await import('../../core/metrics/registry.js')).newMetricsRegistry() : undefined;
  const web = await startWeb(config, log, undefined, env, registry);
  const health = healthPort && registry ? startHealthServer({ port: healthPort, registry, checks: web.readiness }) : undefined;
  await untilSignal(log, async () => {
    await health?.close();
    await web.stop();
  });
  return 0;
}
