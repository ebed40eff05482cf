import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { clusterKey, clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { deployedChartVersion } from '../../src/core/proposals/promotion.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { startSlackTeamBot, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 35, a promotion across a fleet: two agents, `edge` and `home`, on one Redis (one API server
 * stands for both clusters, each agent watching its own namespace), and the bot in front (its own
 * cluster `home`). `/release promote web --from edge --to home/<ns>` reads edge's release through
 * edge's agent — its values arrive masked, the image values by the agent's `image-values` answer —
 * opens the proposal in home's keyspace, home's controller tells it (ProposalOpened) and, once two
 * people approved, home's Deployment runs edge's image.
 */
describe('promotions across a fleet: --from edge --to home', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const fleet = uniqueName('hc-promo');
  const keys = { edge: randomBytes(32).toString('hex'), home: randomBytes(32).toString('hex') };
  const ns = { edge: '', home: '' };
  const agents: Partial<Record<'edge' | 'home', TestController>> = {};
  const host = new URL(env.ociRegistry.url.replace(/^oci:/, 'http:')).host;
  const repository = `${host}/${uniqueName('promo')}/web`;
  const channel = 'C0PROMO';
  let keysDir = '';
  let chat: SlackTeamBot | undefined;
  let redis: RedisConnection;

  const spec = (version: string, tag: string, extra: Partial<HelmReleaseSpec> = {}): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
    timeout: '90s',
    values: { image: { repository, tag } },
    imageUpdates: [{ repository, policy: { semver: '1.x' }, valuesPath: 'image.tag', interval: '1h', insecure: true }],
    ...extra,
  });
  const liveImage = async (namespace: string) =>
    (await apps.listNamespacedDeployment({ namespace })).items.find((d) => d.metadata?.name?.includes('web'))?.spec?.template.spec?.containers[0]?.image;

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    keysDir = await mkdtemp(join(tmpdir(), 'helmcrew-promo-keys-'));
    for (const cluster of ['edge', 'home'] as const) {
      await writeFile(join(keysDir, cluster), `${keys[cluster]}\n`);
      ns[cluster] = await freshNamespace(kubeConfig, `promo-${cluster}`);
      agents[cluster] = await startTestController([ns[cluster]], {
        HELMCREW_QUEUE_PREFIX: fleet,
        HELMCREW_CLUSTER_NAME: cluster,
        HELMCREW_COMMAND_KEY: keys[cluster],
        HELMCREW_HEARTBEAT_SECONDS: '1',
        HELMCREW_PROPOSALS_TICK_MS: '300',
      });
    }
    await applyHelmRelease(kubeConfig, helmReleaseObject(ns.edge, 'web', spec('2.0.0', '1.5.0')));
    await applyHelmRelease(kubeConfig, helmReleaseObject(ns.home, 'web', spec('1.0.0', '1.4.2', { approval: { required: 2, expireAfter: '1h' } })));
    await eventually(async () => expect(await liveImage(ns.home)).toBe(`${repository}:1.4.2`), { timeoutMs: 90_000 });
    await eventually(async () => expect(deployedChartVersion((await api.get(ns.edge, 'web'))!)).toBe('2.0.0'), { timeoutMs: 90_000 });
    await eventually(async () => expect(deployedChartVersion((await api.get(ns.home, 'web'))!)).toBe('1.0.0'), { timeoutMs: 90_000 });
    chat = await startSlackTeamBot({
      kube,
      namespace: ns.home,
      namespaces: 'any',
      queuePrefix: fleet,
      team: uniqueName('promo-oncall'),
      channel: { id: channel, name: 'promo' },
      verbs: ['list', 'status', 'upgrade'],
      env: { HELMCREW_CLUSTER_NAME: 'home', HELMCREW_FLEET_KEYS_DIR: keysDir, HELMCREW_FLEET_TIMEOUT_SECONDS: '5' },
    });
    await eventually(async () => expect((await readFleet(redis, fleet, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up'), { timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await chat?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
    redis?.disconnect();
    for (const namespace of Object.values(ns)) if (namespace) await deleteNamespace(kubeConfig, namespace);
    if (keysDir) await rm(keysDir, { recursive: true, force: true });
  });

  const slash = async (text: string) => String((await chat!.slash(text)).text);
  const events = async (reason: string) =>
    (await core.listNamespacedEvent({ namespace: ns.home, fieldSelector: `involvedObject.name=web,reason=${reason}` })).items.map((e) => e.message);

  it("edge's chart version and image, read through its agent, proposed in home, told there, and running there once approved", async () => {
    expect(await slash(`promote web --from edg --to home/${ns.home}`)).toContain('did you mean cluster edge (--from edge)?');

    const reply = await slash(`promote web --from edge --to home/${ns.home}`);
    const id = /^Proposed (p-[0-9a-f]{16}): /.exec(reply)?.[1];
    expect(id, reply).toBeDefined();
    expect(reply).toContain(`promotion from edge:${ns.edge}/web to home:${ns.home}/web: chart 1.0.0 → 2.0.0, image.tag 1.4.2 → 1.5.0`);
    const homeStore = new ProposalStore(redis, clusterKey(clusterKeyspace(fleet, 'home'), 'proposals'));
    const edgeStore = new ProposalStore(redis, clusterKey(clusterKeyspace(fleet, 'edge'), 'proposals'));
    expect(await homeStore.get(id!)).toMatchObject({
      kind: 'promotion',
      release: { cluster: 'home', namespace: ns.home, name: 'web' },
      chartVersion: { from: '1.0.0', to: '2.0.0' },
      values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
      facts: { required: 2, proposedBy: 'slack:UALICE' },
    });
    expect(await edgeStore.list()).toEqual([]);

    // home's controller tells it once (notify makes it the message; proposal-chat and promotion.test cover the chat).
    await eventually(async () => expect(await events('ProposalOpened')).toEqual([expect.stringContaining('(proposed by slack:UALICE)')]), {
      timeoutMs: 30_000,
    });
    await eventually(async () => expect((await homeStore.get(id!))!.unannounced).toBeUndefined());

    const vote = (person: string) => homeStore.vote(id!, { person, choice: 'approve', allowed: true, at: Date.now() });
    expect((await vote('slack:UALICE'))?.verdict).toMatchObject({ kind: 'refused', reply: expect.stringContaining('you proposed this change') });
    expect((await vote('slack:UBEN'))?.verdict.kind).toBe('counted');
    expect((await vote('slack:UCY'))?.verdict.kind).toBe('approved');
    await eventually(async () => expect(await liveImage(ns.home)).toBe(`${repository}:1.5.0`), { timeoutMs: 90_000 });
    expect((await homeStore.get(id!))!.state).toEqual({ phase: 'applied', approvers: ['slack:UBEN', 'slack:UCY'] });
  });
});
