import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import { ClusterObjects } from '../../core/kube/cluster-objects.js';
import { ObjectReader } from '../../core/kube/object-reader.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { slimKubeClients } from '../../core/kube/slim-clients.js';
import { slackThreadReader, type SlackMessageRef } from '../../core/links/slack-thread.js';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { Logger } from '../../core/log.js';
import type { Registry } from 'prom-client';
import { assistantRoutes, type AssistantSlack } from './mcp-surface.js';
import { ProposalStore } from '../../core/proposals/proposal-store.js';
import { connectRedis, type RedisConnection } from '../../core/redis.js';
import { RequesterLedger } from '../../core/requests/requester-ledger.js';
import { PlanStore } from '../../session/execute/plan-store.js';
import { FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import { withOwnParts } from '../../session/fleet/own-parts.js';
import { checkedFleetKeys, fleetRouter, ownFleetFreezes, proposalReach, type FleetSettings } from '../../session/fleet/fleet-settings.js';
import { notifySignal } from '../../web/live/notify-signal.js';
import { QueuedPreviews } from '../../session/execute/preview-client.js';
import { releaseOperations } from '../../session/execute/wiring.js';
import type { SessionConfig } from '../../session/flow/config.js';
import { ReleaseSession } from '../../session/flow/release-session.js';
import type { ProposalMessagePoster } from '../../session/flow/proposal-vote-messages.js';
import { actionRoutes } from '../../web/actions/action-routes.js';
import { PROPOSAL_VOTE_FORMS, proposalVoteRoutes } from '../../web/actions/proposal-vote-routes.js';
import type { PageRoutes } from '../../web/contract.js';
import { ReleaseEventWatch } from '../../web/live/event-watch.js';
import { HelmRecordWatch } from '../../web/live/record-watch.js';
import { keptForPages, SharedReleaseWatch } from '../../web/live/release-watch.js';
import { listInPages } from '../../core/kube/watch/paged-list.js';
import { watchedReads } from '../../web/live/watched-reads.js';
import { recordDecoder, recordReader, releaseEventReader } from '../../web/pages/kube-reads.js';
import { releasePages } from '../../web/pages/release-pages.js';
import { OWN_CLUSTER_SEGMENT } from '../../web/urls.js';

/** How long a web plan waits for its Confirm (as the bot's, HELMCREW_PLAN_TTL_SECONDS' default). */
const WEB_PLAN_TTL_SECONDS = 600;

/**
 * The web surface's pages and actions over the server's own cluster and, with fleet settings
 * (HELMCREW_FLEET_KEYS_DIR), every cluster of the fleet as the bot drives it: the same release session,
 * plan store (Redis, the cluster's keyspace: a plan made in Slack may be approved on the web and back),
 * previews and requester ledger as the bot; one shared watch feeds every page. `/mcp` (assistants,
 * docs/mcp.md) is served beside them through the same session, with the OAuth server that issues its tokens.
 */
export async function webSurface(
  rest: KubeRest,
  redis: RedisConnection,
  redisUrl: string,
  session: SessionConfig,
  log: Logger,
  slack?: { permalink(ref: SlackMessageRef): Promise<string | undefined>; proposalMessages?: ProposalMessagePoster },
  assistants: {
    webUrl?: string;
    corsOrigins?: readonly string[];
    registry?: Registry;
    slackUserGroups?: (user: string) => Promise<string[]>;
    slack?: AssistantSlack;
  } = {},
  fleetSettings?: FleetSettings,
) {
  // A bad key file stops start-up naming the file, before anything is connected or listed.
  const fleetKeys = fleetSettings ? await checkedFleetKeys(fleetSettings, log) : undefined;
  const previewConnection = connectRedis(redisUrl);
  const previews = new QueuedPreviews(previewConnection, session.keyPrefix, session.previewTimeoutMs);
  // A fleet's freezes, one store: the router's commands and the own cluster's plans read it, as the bot's do.
  const fleetFreezes = fleetSettings ? new FleetFreezeStore(previewConnection, fleetSettings.fleetPrefix) : undefined;
  const parts = releaseOperations(slimKubeClients(rest), log, 'helmcrew-web', {
    previews,
    timeZone: session.timeZone,
    requesters: new RequesterLedger(redis, session.keyPrefix),
    ...(fleetSettings && fleetFreezes ? { fleetFreezes: ownFleetFreezes(fleetFreezes, fleetSettings.own) } : {}),
  });
  const proposals = new ProposalStore(redis, clusterKey(session.keyPrefix, 'proposals'));
  // A fleet (HELMCREW_FLEET_KEYS_DIR): every other cluster through its agent on this Redis, the bot's router (session/fleet/).
  const fleet =
    fleetSettings && fleetKeys && fleetFreezes
      ? {
          settings: fleetSettings,
          router: await fleetRouter(fleetSettings, fleetKeys, {
            redis: previewConnection,
            local: { ops: parts.ops, api: parts.api, freezes: parts.freezes, storage: parts.storage, previews, proposals },
            freezes: fleetFreezes,
            teams: parts.teams,
            log,
            timeZone: session.timeZone,
            previewTimeoutMs: session.previewTimeoutMs,
          }),
        }
      : undefined;
  const watch = new SharedReleaseWatch({
    rest,
    // Releases in pages, each kept as the pages keep it at once: the listing's peak is a page, not the fleet.
    list: {
      releases: () =>
        listInPages(
          (page) => parts.api.listPage(page),
          (r) => keptForPages(r as unknown as KubernetesObject) as unknown as HelmRelease,
        ),
      freezes: () => parts.freezes.list(),
      teams: () => parts.teams.list(),
    },
    log,
  });
  // Helm's records and the Events about releases, held as the watches deliver them, for release pages' timelines
  // and the assistants' reads (docs/performance.md). Started by the first release page or assistant's read, not
  // here: a web server where only the fleet is looked at never lists helm's records (~10 MiB of RSS at 1,000 releases).
  const records = new HelmRecordWatch({ rest, log });
  const releaseEvents = new ReleaseEventWatch({ rest, log });
  await watch.start();
  const directEvents = releaseEventReader(rest);
  // With a fleet, `--cluster` reaches the other clusters, as `/release` does in Slack.
  const releaseSession = new ReleaseSession({ ...parts, ...(fleet ? { fleet: fleet.router } : {}), outcomeTimeoutMs: session.outcomeTimeoutMs });
  // Assistants read releases, freezes and Teams from the shared watch (docs/performance.md): a call costs the API server no read of them.
  const assistantParts = releaseOperations(slimKubeClients(rest), log, 'helmcrew-mcp', {
    previews,
    timeZone: session.timeZone,
    reads: (direct) => watchedReads(watch, direct, records),
    ...(fleetSettings && fleetFreezes ? { fleetFreezes: ownFleetFreezes(fleetFreezes, fleetSettings.own) } : {}),
  });
  // With a fleet, assistants reach the other clusters through the same router (`cluster` in their tools), the own through their parts.
  const assistantFleet = fleet && withOwnParts(fleet.router, { ...assistantParts, previews, proposals });
  const assistantSession = new ReleaseSession({
    ...assistantParts,
    ...(assistantFleet ? { fleet: assistantFleet } : {}),
    outcomeTimeoutMs: session.outcomeTimeoutMs,
  });
  const pages: PageRoutes[] = [
    releasePages(
      {
        own: { api: parts.api, freezes: parts.freezes, storage: parts.storage, proposals },
        watch,
        // A fleet's other clusters through their agents, each followed live by its notify queue's events (web/live/notify-signal.ts).
        ...(fleet
          ? {
              fleet: fleet.router,
              remoteChanges: (cluster: string) => notifySignal(() => connectRedis(redisUrl), fleet.settings.fleetPrefix, cluster, log),
            }
          : {}),
        events: directEvents,
        // Timelines from the record and Event watches, started by the first release page or assistant's call.
        timeline: { records, events: releaseEvents, readRecord: recordReader(parts.storage), decodeRecord: recordDecoder(parts.storage) },
        objects: new ObjectReader(new ClusterObjects(rest)),
        // The release's Slack thread, where notify keeps its messages, when Slack can be asked for the link.
        ...(slack
          ? {
              slackThread: slackThreadReader(
                slimKubeClients(rest),
                (ref) => slack.permalink(ref),
                (err) => log.warn({ err }, 'the Slack thread could not be read'),
                // A fleet: other clusters' threads in the fleet notify's one map, in the namespace it keeps it in.
                fleetSettings?.notifyNamespace ? { namespace: fleetSettings.notifyNamespace, own: fleetSettings.own } : undefined,
              ),
            }
          : {}),
        proposalActions: PROPOSAL_VOTE_FORMS,
      },
      log,
    ),
    proposalVoteRoutes({
      // The own cluster's proposals; in a fleet, every cluster's, each in its keyspace, its release read through its agent (as the bot's votes).
      ...proposalReach({ redis, own: session.cluster, keyPrefix: session.keyPrefix, api: parts.api, ...(fleet ? { fleet } : {}), speaker: 'this server' }),
      events: parts.events,
      log,
      // A fleet's pages name every cluster, the own one too; without one, `-`.
      clusterSegment: (cluster) => (fleet ? cluster : OWN_CLUSTER_SEGMENT),
      // A web vote edits the proposal's Slack messages as a button's does.
      ...(slack?.proposalMessages ? { slack: slack.proposalMessages } : {}),
    }),
    actionRoutes({
      session: releaseSession,
      plans: new PlanStore(redis, session.keyPrefix, WEB_PLAN_TTL_SECONDS),
      ownCluster: OWN_CLUSTER_SEGMENT,
      // In a fleet every plan names its cluster, the own one too: a release of the same name elsewhere is never asked about.
      ...(fleet ? { fleetOwn: fleet.settings.own } : {}),
      // A requester's Slack user groups are not known here: their own Slack id (and the Teams) decide.
      subjectOf: async (requester) => ({ slackUser: requester.slackUser, slackUserGroups: [] }),
    }),
    ...assistantRoutes({
      rest,
      redis,
      keyspace: session.keyPrefix,
      session: assistantSession,
      api: assistantParts.api,
      teamApi: assistantParts.teams,
      events: async (namespace, name) => {
        releaseEvents.readEveryEvent();
        return releaseEvents.events(namespace, name) ?? directEvents(namespace, name);
      },
      ...(assistantFleet ? { fleet: assistantFleet } : {}),
      newestNotes: (namespace, releaseName) => {
        records.readEveryRecord();
        const held = records.notes(namespace, releaseName);
        return held.known ? held : undefined;
      },
      log: log.child({ part: 'mcp' }),
      ...assistants,
    }),
  ];
  return {
    pages,
    /** The shared watch has listed every kind: pages answer from memory (`helmcrew web`'s /readyz). */
    ready: () => watch.ready,
    stop: async () => {
      await Promise.all([watch.stop(), records.stop(), releaseEvents.stop()]);
      await fleet?.router.close();
      previewConnection.disconnect();
      await previews.close?.();
    },
  };
}
