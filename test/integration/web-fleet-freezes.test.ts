import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webSurface } from '../../src/cli/compose/web-surface.js';
import { fleetFreezeObject, FleetFreezeStore } from '../../src/core/fleet/fleet-freezes.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { readSessionConfig } from '../../src/session/flow/config.js';
import { TokenStore } from '../../src/session/tokens/token-store.js';
import { PlanStore } from '../../src/session/execute/plan-store.js';
import type { WebRequestContext } from '../../src/web/contract.js';
import { eventually } from '../support/eventually.js';
import { fleetWebPages, hubWebSettings } from '../support/fleet-web.js';
import { testEnv } from '../support/fixtures.js';
import { fleetAgents } from '../support/fleet-agents.js';
import { listenWeb } from '../support/mcp-server.js';

/**
 * Issue 47, what was own-cluster-only: `helmcrew web` in `home` over the agents of `edge` and
 * `home` (and a key for `gone`, a cluster with no agent) shows every cluster's Freezes and the
 * fleet freezes in the banner and on the freezes page — edge's as edge's agent answers them — names
 * the cluster it could not ask, and shows on edge's release page the people's actions edge's agent
 * recorded (a suspend asked for on that page). One API server stands for both clusters, so home
 * sees the same Freeze objects: edge's row is the one its agent answered.
 */
describe('`helmcrew web` shows a fleet’s freezes and another cluster’s timeline', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const freezeApi = new FreezeApi(kube);
  const fleet = fleetAgents('webfreezes');
  const { fleetPrefix, ns } = fleet;
  const log = createLogger('web-fleet-freezes', 'warn');
  const tag = randomBytes(4).toString('hex');
  const freezeName = `edge-train-${tag}`;
  const olga = (): WebRequestContext => ({
    principal: { id: 'slack:UOLGA', name: 'olga', via: 'slack', subject: { slackUser: 'UOLGA', slackUserGroups: [] } },
    teams: [{ name: 'ops', members: { slackUsers: ['UOLGA'] }, permissions: [{ namespaces: [ns.edge, ns.home], verbs: ['status', 'list', 'suspend'] }] }],
    csrfToken: 'c',
  });
  let redis: RedisConnection;
  let fleetFreezes: FleetFreezeStore;
  let surface: Awaited<ReturnType<typeof webSurface>>;
  let app: FastifyInstance;
  let web: FastifyInstance | undefined;
  let mcpUrl: URL;
  let tokens: TokenStore;
  const teamName = `webfreezes-ops-${tag}`;
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    fleetFreezes = new FleetFreezeStore(redis, fleetPrefix);
    await fleet.start();
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    await waitForReconciled(kubeConfig, ns.edge, 'edge-app', await applyHelmRelease(kubeConfig, helmReleaseObject(ns.edge, 'edge-app', { chart })));
    await eventually(async () => expect((await readFleet(redis, fleetPrefix, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up'), {
      timeoutMs: 15_000,
    });
    // A key for a cluster that never announced itself: the pages name it instead of its Freezes.
    await writeFile(join(fleet.keysDir, 'gone'), `${randomBytes(32).toString('hex')}\n`);
    const settings = hubWebSettings(env, fleet);
    ({ surface, app } = await fleetWebPages({ env, redis, settings, log, person: { name: 'olga', context: olga } }));
    // `/mcp` as `helmcrew web` serves it: the same surface on a listening web server, a bearer token in the session's keyspace.
    tokens = new TokenStore(redis, readSessionConfig(settings).keyPrefix);
    ({ web, mcpUrl } = await listenWeb(env, kube, redis, readSessionConfig(settings).keyPrefix, surface.pages, log));
    // The assistants' Teams, read from the cluster: olga may read in every cluster, pia in home only.
    await createTeam(kube, teamName, {
      members: { slackUsers: ['UOLGA'] },
      permissions: [{ namespaces: [ns.edge], verbs: ['status', 'list', 'history', 'resume'] }],
    });
    await createTeam(kube, `${teamName}-home`, {
      members: { slackUsers: ['UPIA'] },
      permissions: [{ namespaces: [ns.edge], verbs: ['status', 'list', 'history', 'resume'], clusters: ['home'] }],
    });
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await web?.close();
    await deleteTeam(kube, teamName);
    await deleteTeam(kube, `${teamName}-home`);
    await freezeApi.delete(freezeName).catch(() => undefined);
    await app?.close();
    await surface?.stop();
    await fleet.stop();
    redis?.disconnect();
  });

  const headers = { 'x-test-person': 'olga' };
  const get = (url: string) => app.inject({ method: 'GET', url, headers });
  const links = (html: string) => html.replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');
  const bannerOf = (html: string) => /<div class="banner frozen" id="live-banner"[^>]*>(.*?)<\/div><\/div>/s.exec(links(html))?.[1] ?? '';

  it('edge’s release page shows the suspend asked for on it, as edge’s agent recorded it, with who and why', async () => {
    const planned = await get(`/releases/edge/${ns.edge}/edge-app/plan?verb=suspend&reason=web-timeline-${tag}`);
    expect(planned.statusCode, planned.body).toBe(200);
    const planId = /action="\/plans\/([A-Za-z0-9_-]+)\/confirm"/.exec(links(planned.body))?.[1];
    expect(planId, planned.body).toBeDefined();
    const done = await app.inject({
      method: 'POST',
      url: `/plans/${planId}/confirm`,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_csrf=c',
    });
    expect(done.statusCode, done.body).toBe(200);
    await eventually(async () => expect((await api.get(ns.edge, 'edge-app'))?.spec.suspend).toBe(true), { timeoutMs: 30_000 });
    const page = await eventually(
      async () => {
        const answer = await get(`/releases/edge/${ns.edge}/edge-app`);
        expect(answer.statusCode, answer.body).toBe(200);
        expect(links(answer.body)).toContain(`asked for suspend of ${ns.edge}/edge-app in cluster edge`);
        return links(answer.body);
      },
      { timeoutMs: 20_000 },
    );
    // The timeline's row: who (with where it came from) and why.
    const row = /<tr class="action">(.*?)<\/tr>/s.exec(page)?.[1] ?? '';
    expect(row).toContain('slack:UOLGA');
    expect(row).toContain(`web-timeline-${tag}`);
  });

  it('the banner on every page and the freezes page show edge’s Freeze as edge answers it and a fleet freeze once; `gone` is named', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await freezeApi.create(
      {
        apiVersion: 'helmcrew.dev/v1alpha1',
        kind: 'Freeze',
        metadata: { name: freezeName },
        spec: { scope: { namespaces: [`elsewhere-${tag}`] }, reason: `edge train ${tag}`, setBy: 'slack:UANA', until },
      },
      'test',
    );
    const fleetReason = `fleet window ${tag}`;
    expect(await fleetFreezes.create({ clusters: ['ed*'], freeze: fleetFreezeObject(`fleet-${tag}`, { reason: fleetReason, setBy: 'slack:UBEA' }) })).toBe(
      true,
    );

    for (const url of ['/', `/releases/edge/${ns.edge}/edge-app`, '/proposals']) {
      const banner = await eventually(
        async () => {
          const answer = await get(url);
          expect(answer.statusCode, answer.body).toBe(200);
          const found = bannerOf(answer.body);
          expect(found).toContain(`<em>cluster edge</em> namespace elsewhere-${tag} — by slack:UANA: edge train ${tag} (${until})`);
          return found;
        },
        { timeoutMs: 20_000 },
      );
      // The fleet freeze, with its clusters and who set it, once: not again as edge's answer carries it too.
      expect(banner).toContain(`<em>fleet: ed*</em> every release in the cluster — by slack:UBEA: ${fleetReason}`);
      expect(banner.split(fleetReason)).toHaveLength(2);
      expect(banner).toContain('Freezes unknown</strong> cluster gone: cluster gone has no agent announced on this Redis');
    }

    const freezesPage = links((await get('/freezes')).body);
    expect(freezesPage).toContain('<th>where</th>');
    expect(freezesPage).toMatch(new RegExp(`<td>${freezeName}</td><td>cluster edge</td>.*?<small>lifted in its cluster</small>`, 's'));
    expect(freezesPage).toMatch(new RegExp(`<td>fleet-${tag}</td><td>fleet: ed\\*</td>.*?name="unfreeze" value="fleet-${tag}"`, 's'));
    expect(freezesPage).toContain('Freezes unknown: cluster gone');
  });

  it('an assistant’s read tools answer about edge’s release through edge’s agent, under the Teams’ per-cluster grants', async () => {
    const connect = async (user: string, scope: 'read' | 'propose' = 'read') => {
      const client = new Client({ name: 'helmcrew-test', version: '1' });
      const token = (await tokens.create(user, scope, 600_000)).token;
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    };
    const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    const olgaTools = await connect('UOLGA');
    const history = await eventually(
      async () => {
        const text = textOf(await olgaTools.callTool({ name: 'release_history', arguments: { namespace: ns.edge, name: 'edge-app', cluster: 'edge' } }));
        expect(text).toContain('cluster edge');
        return text;
      },
      { timeoutMs: 20_000 },
    );
    // Helm's revisions and the people's actions, both from edge's agent: the suspend asked for on edge's page.
    expect(history).toContain(`asked for suspend of ${ns.edge}/edge-app in cluster edge: web-timeline-${tag}`);
    const status = textOf(await olgaTools.callTool({ name: 'release_status', arguments: { namespace: ns.edge, name: 'edge-app', cluster: 'edge' } }));
    expect(status).toContain('edge-app');
    expect(status).toContain('cluster edge');
    // A cluster without an agent: named, nothing sent.
    const gone = textOf(await olgaTools.callTool({ name: 'release_status', arguments: { namespace: ns.edge, name: 'edge-app', cluster: 'gone' } }));
    expect(gone).toContain('cluster gone has no agent announced');
    // Pia's Team grants her home only: edge's release is not hers to read.
    const piaTools = await connect('UPIA');
    const refused = textOf(await piaTools.callTool({ name: 'release_status', arguments: { namespace: ns.edge, name: 'edge-app', cluster: 'edge' } }));
    expect(refused).not.toContain('ready=');
    expect(refused).toContain(`you may not status ${ns.edge}/edge-app`);
    expect(refused).toContain('in cluster edge');

    // The propose tools take a `cluster` too: a plan of edge's release, through edge's agent, kept naming edge.
    const olgaProposes = await connect('UOLGA', 'propose');
    const change = { verb: 'resume', namespace: ns.edge, name: 'edge-app', cluster: 'edge' };
    const diff = textOf(await olgaProposes.callTool({ name: 'plan_diff', arguments: change }));
    expect(diff).toContain(`resume ${ns.edge}/edge-app`);
    expect(diff).toContain('edge');
    const proposed = await olgaProposes.callTool({ name: 'propose_change', arguments: { ...change, reason: `resume from an assistant ${tag}` } });
    expect(textOf(proposed)).toContain('Proposed');
    const planId = (proposed.structuredContent as { planId?: string } | undefined)?.planId;
    const kept = planId
      ? await new PlanStore(redis, readSessionConfig({ HELMCREW_QUEUE_PREFIX: fleetPrefix, HELMCREW_CLUSTER_NAME: 'home' }).keyPrefix, 600).peek(planId)
      : undefined;
    expect(JSON.stringify(kept?.action)).toContain('"cluster":"edge"');
    // Pia's Team grants home only: she may not propose a change of edge's release.
    const piaProposes = await connect('UPIA', 'propose');
    const notHers = textOf(await piaProposes.callTool({ name: 'propose_change', arguments: { ...change, reason: 'not hers to propose' } }));
    expect(notHers).not.toContain('Proposed');
    expect(notHers).toContain('in cluster edge');
  });
});
