import { ReleaseEvent } from '../../api/vocabulary.js';
import type { WebClient } from '@slack/web-api';
import type { Registry } from 'prom-client';
import { recordNotesReader } from '../../core/helm-storage/record-notes.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { slimKubeClients } from '../../core/kube/slim-clients.js';
import { TeamApi } from '../../core/kube/team-api.js';
import type { Logger } from '../../core/log.js';
import type { RedisConnection } from '../../core/redis.js';
import { SlackUserEmails } from '../../core/slack/user-emails.js';
import type { SlackUserGroups } from '../../core/slack/user-groups.js';
import { slackSubject, type SlackDirectory } from '../../session/authz/slack-subject.js';
import { mcpAudit } from '../../mcp/audit.js';
import { mcpRoute } from '../../mcp/http-route.js';
import type { McpDeps } from '../../mcp/mcp-deps.js';
import { teamPolicy } from '../../session/authz/policy-types.js';
import { PlanStore } from '../../session/execute/plan-store.js';
import type { ReleaseSession } from '../../session/flow/release-session.js';
import type { FleetRouting } from '../../session/flow/fleet-routing.js';
import { TokenStore } from '../../session/tokens/token-store.js';
import type { PageRoutes } from '../../web/contract.js';
import { oauthServerRoutes } from '../../web/oauth/oauth-routes.js';
import { releaseEventReader } from '../../web/pages/kube-reads.js';
import type { ReleaseEventRecord } from '../../web/views/timeline.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** An assistant's proposal waits a day for its approval (a person's plan waits minutes). */
export const ASSISTANT_PLAN_TTL_SECONDS = 24 * 3600;
/** Calls one token may make a minute. */
export const MCP_CALLS_PER_MINUTE = 60;

export interface McpSurfaceParts {
  rest: KubeRest;
  redis: RedisConnection;
  /** The session's keyspace (SessionConfig.keyPrefix): tokens and plans live beside the bot's. */
  keyspace: string;
  session: Pick<ReleaseSession, 'run'>;
  api: Pick<HelmReleaseApi, 'get'>;
  /** A HelmRelease's Events (the web: its Events watch); default one LIST of them per call. */
  events?: (namespace: string, name: string) => Promise<ReleaseEventRecord[]>;
  /** A helm release's newest revision and its NOTES (the web: its record watch), or undefined when that is not known here. */
  newestNotes?: (namespace: string, releaseName: string) => { revision?: number; notes?: string } | undefined;
  /** A fleet: the tools' `cluster` reaches the other clusters through their agents (the web's router). */
  fleet?: FleetRouting;
  /** Where the Teams are read on every call (the web: its shared watch); default the API server. */
  teamApi?: Pick<TeamApi, 'list'>;
  webUrl?: string;
  /** Browser origins allowed to call `/mcp` (HELMCREW_MCP_CORS_ORIGINS). */
  corsOrigins?: readonly string[];
  /** A Slack user's user groups (the bot's reading, SLACK_BOT_TOKEN set), so a Team's slackUserGroups count for tokens too. */
  slackUserGroups?: (user: string) => Promise<string[]>;
  registry?: Registry;
  log: Logger;
  /** Slack through the bot's token, when set: proposals are posted in the Teams' channels, a token's person is matched by user groups and email. */
  slack?: AssistantSlack;
}

/** What the assistants' surface asks of Slack (cli/commands/web.ts builds it from the web's WebClient). */
export interface AssistantSlack {
  post(channel: string, message: { text: string; blocks: unknown[] }): Promise<{ ts: string }>;
  directory: SlackDirectory;
}

/** Slack's Web API for assistants: chat.postMessage, and the cached user groups (the reader the bot and the web share) and profile emails. */
export function assistantSlack(slack: WebClient, groups: SlackUserGroups): AssistantSlack {
  const emails = new SlackUserEmails(slack);
  return {
    post: async (channel, message) => ({ ts: (await slack.chat.postMessage({ channel, ...message })).ts ?? '' }),
    directory: { userGroups: (user) => groups.of(user), email: (user) => emails.of(user) },
  };
}

/** A fleet cluster's timeline Events, through its agent (the `events` question); why not, as an error. */
async function fleetEvents(fleet: FleetRouting, cluster: string, namespace: string, name: string): Promise<ReleaseEventRecord[]> {
  const route = await fleet.route(cluster);
  if (!route.ok) throw new Error(route.message);
  return route.deps.timelineEvents ? route.deps.timelineEvents(namespace, name) : [];
}

/** The assistants' surface's parts: the one session, the Teams read on every call, tokens and plans in Redis. */
export function mcpDeps(parts: McpSurfaceParts): McpDeps {
  const teamApi = parts.teamApi ?? new TeamApi(slimKubeClients(parts.rest));
  const events = parts.events ?? releaseEventReader(parts.rest);
  const recordNotes = recordNotesReader(parts.rest);
  const slack = parts.slack;
  return {
    session: parts.session,
    teams: async () => (await teamApi.list()).items.map(teamPolicy),
    proposals: new PlanStore(parts.redis, parts.keyspace, ASSISTANT_PLAN_TTL_SECONDS),
    tokens: new TokenStore(parts.redis, parts.keyspace),
    ...(parts.webUrl ? { webUrl: parts.webUrl } : {}),
    ...(parts.slackUserGroups ? { slackUserGroups: parts.slackUserGroups } : {}),
    failureDetails: async (namespace, name) => {
      const release = await parts.api.get(namespace, name);
      const status = release?.status;
      const helm = [
        ...(status?.lastAttemptFailed
          ? [`last attempt (${status.lastAttemptedAction ?? 'helm'}) failed; failures since the last success: ${status.failures ?? 0}`]
          : []),
        ...(status?.lastRemediation ? [`remediation ${status.lastRemediation.action} at ${status.lastRemediation.at}: ${status.lastRemediation.message}`] : []),
      ];
      const recent = (await events(namespace, name)).sort((a, b) => byCodeUnits(b.at, a.at)).slice(0, 10);
      return [...helm, ...recent.map((e) => `${e.at} ${e.type ?? 'Normal'} ${e.reason}: ${e.message.slice(0, 500)}`)];
    },
    releaseNotes: async (namespace, name) => {
      const release = await parts.api.get(namespace, name);
      if (!release) return undefined;
      const target = releaseTarget(release);
      const held = parts.newestNotes?.(target.namespace, target.releaseName);
      if (held) return held.revision === undefined ? undefined : { revision: held.revision, ...(held.notes ? { notes: held.notes } : {}) };
      // Not held here (stdio, or the web's record watch not listed yet): the newest revision the controller reported, read by name.
      const revision = release.status?.history?.[0]?.revision;
      if (revision === undefined) return undefined;
      const notes = await recordNotes(target.namespace, target.releaseName, revision);
      return { revision, ...(notes ? { notes } : {}) };
    },
    actions: async (namespace, name, cluster) =>
      (cluster && parts.fleet && cluster !== parts.fleet.own ? await fleetEvents(parts.fleet, cluster, namespace, name) : await events(namespace, name))
        .filter((e) => e.reason === ReleaseEvent.ActionRequested || e.reason === ReleaseEvent.ActionRefused)
        .sort((a, b) => byCodeUnits(b.at, a.at))
        .map((e) => `${e.at} ${e.message.slice(0, 500)}`),
    ...(parts.fleet ? { ownCluster: parts.fleet.own } : {}),
    ...(slack
      ? {
          slack: { post: (channel, message) => slack.post(channel, message) },
          subjectOf: (user: string) =>
            slackSubject(user, slack.directory, (error) =>
              parts.log.warn({ error: error.message.slice(0, 200) }, 'Slack could not say who a token’s person is'),
            ),
        }
      : {}),
    ratePerMinute: MCP_CALLS_PER_MINUTE,
    audit: mcpAudit(parts.log, parts.registry),
    log: parts.log,
  };
}

/**
 * `/mcp` on the web server and, with the web's public address, the OAuth 2.1 server that lets a
 * person signed in on the web give an MCP client a short-lived token (docs/mcp.md).
 */
export function assistantRoutes(parts: McpSurfaceParts, oauth: { accessTokenSeconds?: number } = {}): PageRoutes[] {
  const deps = mcpDeps(parts);
  const publicUrl = parts.webUrl;
  return [
    mcpRoute(deps, { publicUrl, ...(parts.corsOrigins ? { corsOrigins: parts.corsOrigins } : {}) }),
    ...(publicUrl
      ? oauthServerRoutes({
          publicUrl,
          redis: parts.redis,
          keyspace: parts.keyspace,
          tokens: new TokenStore(parts.redis, parts.keyspace),
          log: parts.log,
          ...oauth,
        })
      : []),
  ];
}
