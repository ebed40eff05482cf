import { LogLevel, WebClient } from '@slack/web-api';
import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseEvent } from '../../src/api/vocabulary.js';
import { webSurface } from '../../src/cli/compose/web-surface.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { FleetCommandClient } from '../../src/core/fleet/command-client.js';
import { newQuery, signQuery } from '../../src/core/fleet/fleet-query.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FLEET_SLACK_MESSAGES_CONFIGMAP } from '../../src/core/links/slack-thread.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { startNotify, type RunningNotify } from '../../src/notify/notify.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import type { WebRequestContext } from '../../src/web/contract.js';
import { eventually } from '../support/eventually.js';
import { fleetWebPages, hubWebSettings } from '../support/fleet-web.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { fleetAgents } from '../support/fleet-agents.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { PLANNER, startPlannerRepo, type PlannerRepo } from '../support/planner-chart.js';

/**
 * Issue 47, what another cluster's release page still lacked: `helmcrew web` in `home` shows on
 * edge's release page its objects' health as edge's agent read them (the `objects` question: rows
 * only — a Secret's row, never its data), and the link to edge's Slack thread from the fleet
 * notify's one map (HELMCREW_NAMESPACE) — not the thread of a same-named release that `home`
 * posted later. One API server stands for both clusters.
 */
describe('`helmcrew web`: another cluster’s objects and Slack thread', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const fleet = fleetAgents('webobjects');
  const { fleetPrefix, ns } = fleet;
  const log = createLogger('web-fleet-objects', 'warn');
  const run = uniqueName('webobjects');
  const TOKEN = 'xoxb-web-fleet-objects';
  let redis: RedisConnection;
  let planner: PlannerRepo;
  let slack: FakeSlack;
  let notifyNs = '';
  let notify: RunningNotify | undefined;
  let surface: Awaited<ReturnType<typeof webSurface>>;
  let app: FastifyInstance;
  const olga = (): WebRequestContext => ({
    principal: { id: 'slack:UOLGA', name: 'olga', via: 'slack', subject: { slackUser: 'UOLGA', slackUserGroups: [] } },
    teams: [{ name: 'ops', members: { slackUsers: ['UOLGA'] }, permissions: [{ namespaces: [ns.edge, ns.home], verbs: ['status', 'list'] }] }],
    csrfToken: 'c',
  });

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    planner = await startPlannerRepo(env.helmBin);
    slack = await startFakeSlack({ tokens: [TOKEN], channels: [{ name: 'fleet-oncall' }] });
    await fleet.start();
    notifyNs = await freshNamespace(kubeConfig, 'webobjects-notify');
    await createTeam(kube, run, `${run}-oncall`, { subscriptions: [{ namespaces: [ns.edge] }], channels: [{ slack: '#fleet-oncall' }] });
    // The hub's fleet notify: every cluster's messages, their references in one ConfigMap of its namespace.
    const notifyEnv = {
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: fleetPrefix,
      HELMCREW_NOTIFY_CLUSTERS: 'edge,home',
      HELMCREW_TEAM_SELECTOR: `helmcrew.dev/test-run=${run}`,
      HELMCREW_TEAM_REFRESH_MS: '500',
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_NAMESPACE: notifyNs,
    };
    notify = await startNotify(readNotifyConfig(notifyEnv), log, { env: notifyEnv });
    const unicorn = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    const secretive = { repository: planner.url, name: PLANNER.name, version: PLANNER.from };
    for (const [name, chart] of [
      ['edge-app', unicorn],
      ['edge-vault', secretive],
    ] as const) {
      await waitForReconciled(kubeConfig, ns.edge, name, await applyHelmRelease(kubeConfig, helmReleaseObject(ns.edge, name, { chart, timeout: '60s' })));
    }
    await eventually(async () => expect((await readFleet(redis, fleetPrefix, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up'), {
      timeoutMs: 15_000,
    });
    const settings = hubWebSettings(env, fleet, { HELMCREW_NAMESPACE: notifyNs });
    // The permalink as `helmcrew web` asks Slack for it (chat.getPermalink), here of the fake.
    const web = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
    const permalink = async (ref: { channelId: string; ts: string }) => (await web.chat.getPermalink({ channel: ref.channelId, message_ts: ref.ts })).permalink;
    ({ surface, app } = await fleetWebPages({ env, redis, settings, log, person: { name: 'olga', context: olga }, links: { permalink } }));
  });

  afterAll(async () => {
    await app?.close();
    await surface?.stop();
    await notify?.stop();
    await fleet.stop();
    await deleteTeams(kube, run);
    if (notifyNs) await deleteNamespace(kubeConfig, notifyNs);
    await slack?.stop();
    await planner?.close();
    redis?.disconnect();
  });

  const get = async (url: string) => {
    const answer = await app.inject({ method: 'GET', url, headers: { 'x-test-person': 'olga' } });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.body.replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');
  };
  const rowOf = (page: string, kind: string, name: string) => new RegExp(`<tr><td>${kind}</td><td>[^<]*/${name}</td><td>(.*?)</td></tr>`).exec(page)?.[1];

  it('edge’s release page shows its objects’ health as edge’s agent read them', async () => {
    const page = await eventually(
      async () => {
        const body = await get(`/releases/edge/${ns.edge}/edge-app`);
        expect(rowOf(body, 'ConfigMap', 'edge-app-page')).toContain('mark current');
        return body;
      },
      { timeoutMs: 30_000 },
    );
    const deployment = rowOf(page, 'Deployment', 'edge-app');
    expect(deployment, page).toBeDefined();
    // Read: the Deployment's health in kstatus' words, not the unread placeholder.
    expect(deployment).not.toContain('not read');
    expect(page).not.toContain('no objects recorded');
  });

  it('a release whose inventory holds a Secret: the agent answers its row, never its data', async () => {
    const key = (await readFile(join(fleet.keysDir, 'edge'), 'utf8')).trim();
    const client = new FleetCommandClient(redis, fleetPrefix);
    try {
      const answer = await client.query(signQuery(newQuery('edge', { kind: 'objects', namespace: ns.edge, name: 'edge-vault' }, Date.now()), key), 20_000);
      expect(answer).toMatchObject({ ok: true, kind: 'objects' });
      const rows = answer.ok && answer.kind === 'objects' ? answer.objects : [];
      expect(rows).toContainEqual(expect.objectContaining({ kind: 'Secret', name: 'edge-vault-credentials', namespace: ns.edge, health: 'current' }));
      const text = JSON.stringify(answer);
      for (const password of PLANNER.passwords) {
        expect(text).not.toContain(password);
        expect(text).not.toContain(Buffer.from(password).toString('base64'));
      }
    } finally {
      await client.close();
    }
    const page = await get(`/releases/edge/${ns.edge}/edge-vault`);
    expect(rowOf(page, 'Secret', 'edge-vault-credentials')).toContain('mark current');
    for (const password of PLANNER.passwords) expect(page).not.toContain(password);
  });

  it('links edge’s Slack thread from the fleet map, not the later thread of a same-named release in home', async () => {
    const entries = async () => {
      const map = await kube.core.readNamespacedConfigMap({ namespace: notifyNs, name: FLEET_SLACK_MESSAGES_CONFIGMAP }).catch(() => undefined);
      return Object.values(map?.data ?? {}).map((raw) => JSON.parse(raw) as { release: string; cluster?: string; channelId: string; ts: string });
    };
    const release = `${ns.edge}/edge-app`;
    // edge's install, posted by the fleet notify with its cluster in the reference.
    const edge = await eventually(
      async () => {
        const found = (await entries()).find((e) => e.release === release && e.cluster === 'edge');
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 30_000 },
    );
    // Later, home posts about a release of the same namespace and name (home's keyspace: the fleet notify names it home).
    const home = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(fleetPrefix, 'home'), log });
    await home.publish(notificationFor({ namespace: ns.edge, name: 'edge-app' }, ReleaseEvent.UpgradeSucceeded, `op-home-${run}`));
    await home.close();
    const homes = await eventually(
      async () => {
        const found = (await entries()).find((e) => e.release === release && e.cluster === 'home');
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 30_000 },
    );
    expect(homes.ts).not.toBe(edge.ts);
    const linkOf = (ts: string) => `/p${ts.replace('.', '')}"`;
    const edgePage = await get(`/releases/edge/${ns.edge}/edge-app`);
    expect(edgePage).toContain('>Slack thread</a>');
    expect(edgePage).toContain(linkOf(edge.ts));
    expect(edgePage).not.toContain(linkOf(homes.ts));
    // The one API server shows home the same HelmRelease: home's page links home's thread.
    const homePage = await get(`/releases/home/${ns.edge}/edge-app`);
    expect(homePage).toContain(linkOf(homes.ts));
    expect(homePage).not.toContain(linkOf(edge.ts));
  });
});
