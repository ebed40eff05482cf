import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES, clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { FleetFreezeStore } from '../../src/core/fleet/fleet-freezes.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { FleetKeys } from '../../src/session/fleet/fleet-keys.js';
import { FleetRouter } from '../../src/session/fleet/fleet-router.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { notifySignal } from '../../src/web/live/notify-signal.js';
import { SharedReleaseWatch } from '../../src/web/live/release-watch.js';
import { releasePages } from '../../src/web/pages/release-pages.js';
import { eventually } from '../support/eventually.js';
import { testEnv } from '../support/fixtures.js';
import { fleetAgents } from '../support/fleet-agents.js';
import { openStream, pagesServer, parts, type OpenStream } from '../support/web-pages.js';
import { releaseUrl } from '../../src/web/urls.js';

/**
 * A fleet page's other cluster, live (issue 47): two agents, `edge` and `home`, on one Redis, and the
 * pages of `home`'s web server (edge read only through edge's agent). Ten open fleet pages and five
 * of edge's release follow edge through one follower, woken by the release events edge's controller
 * publishes for notify; an upgrade in edge reaches every page, and edge's agent is asked once per signalled change, not
 * once per page (its questions counted at edge's command queue in Redis).
 */
describe('the fleet page follows another cluster live', () => {
  const { env, kubeConfig } = testEnv();
  const fleet = fleetAgents('webfleet');
  const { fleetPrefix, ns } = fleet;
  const log = createLogger('web-fleet-live', 'warn');
  const edgeKeyspace = clusterKeyspace(fleetPrefix, 'edge');
  let redis: Redis;
  let router: FleetRouter;
  let watch: SharedReleaseWatch;
  let app: FastifyInstance;
  let base: string;

  /** `added` entries on one of edge's queues' events streams: notifications published, questions sent to its agent. */
  const added = async (queue: string) => {
    const entries = (await redis.xrange(`${edgeKeyspace}:${queue}:events`, '-', '+')) as Array<[string, string[]]>;
    return entries.filter(([, fields]) => fields[0] === 'event' && fields[1] === 'added').length;
  };

  beforeAll(async () => {
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    await fleet.start();
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    await waitForReconciled(kubeConfig, ns.edge, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(ns.edge, 'unicorn', { chart })));

    const rest = connectKube(env.kubeconfig);
    const local = releaseOperations(slimKubeClients(rest), log, 'web-fleet-live');
    router = new FleetRouter({
      own: 'home',
      local: { ops: local.ops, api: local.api, freezes: local.freezes, storage: local.storage },
      redis,
      fleetPrefix,
      keys: new FleetKeys(fleet.keysDir),
      freezes: new FleetFreezeStore(redis, fleetPrefix),
      teams: local.teams,
      log,
      timeZone: 'UTC',
      queryTimeoutMs: 5000,
      previewTimeoutMs: 1000,
    });
    watch = new SharedReleaseWatch({ rest, list: { releases: () => local.api.list(), freezes: () => local.freezes.list() }, log });
    await watch.start();
    const routes = releasePages(
      {
        own: { api: local.api, freezes: local.freezes, storage: local.storage },
        fleet: router,
        watch,
        remoteChanges: (cluster) => notifySignal(() => redis.duplicate(), fleetPrefix, cluster, log),
      },
      log,
    );
    ({ app, base } = await pagesServer(routes, {
      olga: {
        principal: { id: 'slack:UOLGA', name: 'olga', via: 'slack', subject: { slackUser: 'UOLGA', slackUserGroups: [] } },
        teams: [{ name: 'ops', members: { slackUsers: ['UOLGA'] }, permissions: [{ verbs: ['status', 'list'] }] }],
        csrfToken: 'csrf-token',
      },
    }));
  });

  afterAll(async () => {
    await app?.close();
    await watch?.stop();
    await router?.close();
    await fleet.stop();
    redis?.disconnect();
  });

  it('ten open fleet pages and five of edge’s release see an upgrade in edge; edge’s agent is asked once per signalled change, not once per page', async () => {
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { 'x-test-person': 'olga' } })).text();
    const fleetPage = await get(`/?cluster=edge&namespace=${ns.edge}`);
    expect(fleetPage).toContain('id="live-cluster-edge"');
    expect(fleetPage).toContain('1.0.0');
    const releaseStream = `/events?page=release&release=${ns.edge}%2Funicorn&cluster=edge`;
    // The page names its stream (the anchor's URL escaped by mustache): edge's release, followed through edge.
    expect(await get(releaseUrl('', 'edge', ns.edge, 'unicorn'))).toMatch(/data-live="[^"]*page&#x3D;release&amp;release&#x3D;[^"]*&amp;cluster&#x3D;edge"/);
    const streams: OpenStream[] = [];
    const releases: OpenStream[] = [];
    const latest = (s: OpenStream, id: string) =>
      parts(s.text())
        .filter((p) => p.id === id)
        .at(-1)?.html ?? '';
    try {
      for (let i = 0; i < 10; i++) streams.push(await openStream(`${base}/events?page=fleet&cluster=edge&namespace=${ns.edge}`, 'olga'));
      for (let i = 0; i < 5; i++) releases.push(await openStream(`${base}${releaseStream}`, 'olga'));
      expect([...streams, ...releases].every((s) => s.status === 200)).toBe(true);
      // Nothing is asked of edge's agent until edge signals a change.
      const questionsBefore = await added(QUEUE_NAMES.command);
      const notificationsBefore = await added(QUEUE_NAMES.notify);

      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(ns.edge, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' } }),
      );
      await waitForReconciled(kubeConfig, ns.edge, 'unicorn', generation);
      await eventually(
        () =>
          expect([
            streams.every((s) => latest(s, 'live-cluster-edge').includes('2.0.0')),
            releases.every((s) => latest(s, 'live-summary').includes('chart unicorn 2.0.0 declared')),
          ]).toEqual([true, true]),
        { timeoutMs: 30_000 },
      );

      const questions = (await added(QUEUE_NAMES.command)) - questionsBefore;
      const notifications = (await added(QUEUE_NAMES.notify)) - notificationsBefore;
      expect(notifications).toBeGreaterThanOrEqual(1);
      // Its Freezes once at the follower's start, then its releases at most once per notification: never per page.
      expect(questions).toBeGreaterThanOrEqual(2);
      expect(questions).toBeLessThanOrEqual(1 + notifications);
    } finally {
      for (const s of [...streams, ...releases]) s.close();
    }
  });
});
