import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import { webSurface } from '../../src/cli/compose/web-surface.js';
import { clusterKey, clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { proposalId, type Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { readSessionConfig } from '../../src/session/flow/config.js';
import type { WebRequestContext } from '../../src/web/contract.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { eventually } from '../support/eventually.js';
import { hubWebSettings } from '../support/fleet-web.js';
import { testEnv } from '../support/fixtures.js';
import { fleetAgents } from '../support/fleet-agents.js';

/**
 * Issue 47: `helmcrew web` with the fleet settings the bot reads (HELMCREW_FLEET_KEYS_DIR, the own
 * cluster's name, the shared prefix) serves the fleet as the bot drives it. The web surface as
 * `helmcrew web` builds it (webSurface, its settings read by readWebConfig), over two agents,
 * `edge` and `home` (its own), on one Redis: the fleet page lists both clusters' releases, edge's
 * through its agent; edge's release page loads, followed live; a vote on edge's proposal is
 * counted in edge's keyspace; a suspend planned on edge's page is carried out there by edge's
 * agent. A key file that is not a cluster's stops it before anything starts. Sign-in is a test hook
 * (web-signin and web-browser tests cover it).
 */
describe('`helmcrew web` serves a fleet', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const fleet = fleetAgents('websurface');
  const { fleetPrefix, ns } = fleet;
  const log = createLogger('web-fleet-surface', 'warn');
  const olga = (): WebRequestContext => ({
    principal: { id: 'slack:UOLGA', name: 'olga', via: 'slack', subject: { slackUser: 'UOLGA', slackUserGroups: [] } },
    teams: [
      { name: 'ops', members: { slackUsers: ['UOLGA'] }, permissions: [{ namespaces: [ns.edge, ns.home], verbs: ['status', 'list', 'suspend', 'approve'] }] },
    ],
    csrfToken: 'c',
  });
  const webEnv = (keysDir: string) => hubWebSettings(env, { fleetPrefix, keysDir });
  const start = (redis: RedisConnection, keysDir: string) => {
    const settings = webEnv(keysDir);
    return webSurface(connectKube(env.kubeconfig), redis, env.redisUrl, readSessionConfig(settings), log, undefined, {}, readWebConfig(settings).fleet);
  };
  let redis: RedisConnection;
  let surface: Awaited<ReturnType<typeof webSurface>>;
  let app: FastifyInstance;

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    await fleet.start();
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    await Promise.all(
      (['edge', 'home'] as const).map(async (cluster) =>
        waitForReconciled(
          kubeConfig,
          ns[cluster],
          `${cluster}-app`,
          await applyHelmRelease(kubeConfig, helmReleaseObject(ns[cluster], `${cluster}-app`, { chart })),
        ),
      ),
    );
    // Edge's agent has announced itself: the router sends nothing to a cluster without a heartbeat.
    await eventually(async () => expect((await readFleet(redis, fleetPrefix, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up'), {
      timeoutMs: 15_000,
    });
    surface = await start(redis, fleet.keysDir);
    app = Fastify();
    await app.register(formbody);
    app.addHook('preHandler', async (request) => {
      if (request.headers['x-test-person'] === 'olga') request.web = olga();
    });
    for (const routes of surface.pages) await routes(app);
  });

  afterAll(async () => {
    await app?.close();
    await surface?.stop();
    await fleet.stop();
    redis?.disconnect();
  });

  const headers = { 'x-test-person': 'olga' };
  const get = (url: string) => app.inject({ method: 'GET', url, headers });
  const post = (url: string, form: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: 'c', ...form }).toString(),
    });
  /** A page's HTML with mustache's escapes of `/`, `=` and `&` undone, to read its links. */
  const links = (html: string) => html.replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');

  it('the fleet page lists both clusters’ releases, edge’s through its agent; edge’s release page loads and is followed live', async () => {
    await eventually(() => expect(surface.ready()).toBe(true), { timeoutMs: 30_000 });
    const fleetPage = await get('/');
    expect(fleetPage.statusCode, fleetPage.body).toBe(200);
    const page = links(fleetPage.body);
    // A section per cluster; each release linked under the cluster it was read from.
    expect(page).toContain('id="live-cluster-edge"');
    expect(page).toContain(`href="/releases/edge/${ns.edge}/edge-app"`);
    expect(page).toContain(`href="/releases/home/${ns.home}/home-app"`);

    const release = await get(`/releases/edge/${ns.edge}/edge-app`);
    expect(release.statusCode, release.body).toBe(200);
    expect(release.body).toContain('edge-app');
    // Its live stream names edge: the follower, woken by edge's notify queue, is wired.
    expect(links(release.body)).toContain(`/events?page=release&release=${ns.edge}%2Fedge-app&cluster=edge`);
    // The own cluster's release page, by name, as the fleet page links it.
    expect((await get(`/releases/home/${ns.home}/home-app`)).statusCode).toBe(200);
  });

  it('a vote on edge’s proposal is counted in edge’s keyspace, its release read through edge’s agent', async () => {
    const store = new ProposalStore(redis, clusterKey(clusterKeyspace(fleetPrefix, 'edge'), 'proposals'));
    const release = { cluster: 'edge', namespace: ns.edge, name: 'edge-app' };
    const values = [{ valuesPath: 'image.tag', from: '1.0.0', to: '1.1.0' }];
    const subject = `${ns.edge}/edge-app promotion 1.1.0`;
    const proposal: Proposal = {
      id: proposalId(release, subject, values),
      kind: 'promotion',
      release,
      values,
      summary: 'promotion: image.tag 1.0.0 → 1.1.0',
      subject,
      // Two approvals needed: one vote leaves it open, for edge's controller to leave alone.
      facts: { required: 2, expiresAt: Date.now() + 3_600_000, proposedBy: 'slack:UANA', teams: ['ops'] },
      state: { phase: 'open', approvers: [] },
      createdAt: Date.now(),
    };
    const { id } = (await store.open(proposal)).proposal;
    const voted = await post(`/proposals/edge/${id}/vote`, { choice: 'approve' });
    expect(voted.statusCode, voted.body).toBe(200);
    expect(voted.body).toContain('Vote counted');
    expect(links(voted.body)).toContain(`href="/releases/edge/${ns.edge}/edge-app"`);
    expect((await store.get(id))?.state.approvers).toEqual(['slack:UOLGA']);
  });

  it('the own cluster’s plans name home, never asking which cluster; a suspend confirmed on edge’s page is carried out in edge by its agent', async () => {
    // One API server stands for both clusters, so home sees edge-app too: its pages, by name and by `-`, plan in home.
    for (const segment of ['home', '-']) {
      const own = await get(`/releases/${segment}/${ns.edge}/edge-app/plan?verb=suspend&reason=web-fleet`);
      expect(own.statusCode, own.body).toBe(200);
      expect(own.body).toContain('(cluster home)');
    }

    const planned = await get(`/releases/edge/${ns.edge}/edge-app/plan?verb=suspend&reason=web-fleet`);
    expect(planned.statusCode, planned.body).toBe(200);
    expect(planned.body).toContain('(cluster edge)');
    const planId = /action="\/plans\/([A-Za-z0-9_-]+)\/confirm"/.exec(links(planned.body))?.[1];
    expect(planId, planned.body).toBeDefined();
    const done = await post(`/plans/${planId}/confirm`, {});
    expect(done.statusCode, done.body).toBe(200);
    // Written by edge's agent, as the web's requester.
    const suspended = await eventually(
      async () => {
        const release = await api.get(ns.edge, 'edge-app');
        expect(release?.spec.suspend).toBe(true);
        return release!;
      },
      { timeoutMs: 30_000 },
    );
    expect(suspended.metadata.annotations?.[SUSPENSION_ANNOTATION]).toContain('slack:UOLGA');
  });

  it('a key file that is not a cluster’s stops start-up naming the file, before anything is connected', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-bad-keys-'));
    try {
      await writeFile(join(dir, 'Not_A_Cluster'), 'x'.repeat(64));
      await expect(start(redis, dir)).rejects.toThrow(/HELMCREW_FLEET_KEYS_DIR: "Not_A_Cluster" is not a cluster name/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
