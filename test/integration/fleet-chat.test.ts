import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { isReconciledAt } from '../../src/core/release/reconciled.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { fleetFreezesKey } from '../../src/core/fleet/cluster-keys.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { memoryLogger } from '../support/notify-fixtures.js';
import { startSlackTeamBot, type ChatReply, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 32, chat across the fleet: two agents, `edge` and `home`, on one Redis, and one bot in
 * front (its own cluster `home`, through its kubeconfig; `edge` only through edge's agent), driven
 * by signed Slack requests. One API server stands for both clusters: each agent watches its own
 * namespace (the bot's own view of `home` therefore sees edge's namespace too).
 */
describe('/release across a fleet of two agents', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const fleet = uniqueName('hc-fleet');
  const keys = { edge: randomBytes(32).toString('hex'), home: randomBytes(32).toString('hex') };
  const logs = { edge: memoryLogger('edge'), home: memoryLogger('home') };
  const ns = { edge: '', home: '' };
  const agents: Partial<Record<'edge' | 'home', TestController>> = {};
  const channel = 'C0FLEET';
  let keysDir = '';
  let chat: SlackTeamBot;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    keysDir = await mkdtemp(join(tmpdir(), 'helmcrew-fleet-keys-'));
    for (const cluster of ['edge', 'home'] as const) {
      await writeFile(join(keysDir, cluster), `${keys[cluster]}\n`);
      ns[cluster] = await freshNamespace(kubeConfig, cluster);
      agents[cluster] = await startTestController(
        [ns[cluster]],
        {
          HELMCREW_QUEUE_PREFIX: fleet,
          HELMCREW_CLUSTER_NAME: cluster,
          HELMCREW_COMMAND_KEY: keys[cluster],
          HELMCREW_HEARTBEAT_SECONDS: '1',
          // freeze cluster:… from chat is read within 300 ms here
          HELMCREW_FLEET_FREEZE_MS: '300',
        },
        logs[cluster].log,
      );
    }
    const generations = await Promise.all(
      (['edge', 'home'] as const).map((cluster) =>
        applyHelmRelease(kubeConfig, helmReleaseObject(ns[cluster], 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } })),
      ),
    );
    await Promise.all((['edge', 'home'] as const).map((cluster, i) => waitForReconciled(kubeConfig, ns[cluster], 'unicorn', generations[i]!)));
    chat = await startSlackTeamBot({
      kube,
      namespace: ns.home,
      namespaces: 'any',
      queuePrefix: fleet,
      team: uniqueName('fleet-oncall'),
      channel: { id: channel, name: 'fleet' },
      verbs: ['list', 'status', 'suspend', 'upgrade', 'test', 'freeze-all'],
      // Team clusters: resume only at home.
      morePermissions: [{ verbs: ['resume'], clusters: ['home'] }],
      env: { HELMCREW_CLUSTER_NAME: 'home', HELMCREW_FLEET_KEYS_DIR: keysDir, HELMCREW_FLEET_TIMEOUT_SECONDS: '5', HELMCREW_OUTCOME_TIMEOUT_SECONDS: '30' },
    });
  });
  afterAll(async () => {
    await chat?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
    redis?.disconnect();
    for (const namespace of Object.values(ns)) if (namespace) await deleteNamespace(kubeConfig, namespace);
    if (keysDir) await rm(keysDir, { recursive: true, force: true });
  });

  type Reply = ChatReply;
  const buttons = (reply: Reply) => reply.blocks?.find((b) => b.type === 'actions')?.elements ?? [];
  const slash = (text: string) => chat.slash(text);
  const click = (actionId: string, value: string) => chat.click(actionId, value);

  /** Confirms a plan and waits for the channel's record to end with the outcome (read back through the agent). */
  const confirmAndAwaitRecord = async (plan: Reply, confirmed: RegExp, record: RegExp, timeoutMs = 30_000) => {
    const said = await chat.confirmAndAwaitOutcome(plan, timeoutMs);
    expect(said.confirmed).toMatch(confirmed);
    expect(said.outcome).toMatch(record);
  };

  it('test … --cluster edge: the chart’s tests run in edge and are recorded there; nothing in home', async () => {
    const reply = await slash(`test ${ns.edge}/unicorn --cluster edge --reason smoke`);
    expect(reply.text).toBe(`Plan: test ${ns.edge}/unicorn: helm test of revision 1 (cluster edge)`);
    // The outcome is read back through edge's agent until edge's controller recorded the test.
    await confirmAndAwaitRecord(
      reply,
      /^Confirmed: test .* \(cluster edge\)/,
      new RegExp(
        `<@UALICE> test ${ns.edge}/unicorn: helm test of revision 1 \\(cluster edge\\) — _smoke_\\n:white_check_mark: ${ns.edge}/unicorn: helm test of revision 1 \\(unicorn@1\\.0\\.0\\) passed`,
      ),
      60_000,
    );
    expect((await api.get(ns.edge, 'unicorn'))?.status?.lastTest).toMatchObject({ revision: 1, succeeded: true });
    expect((await api.get(ns.home, 'unicorn'))?.status?.lastTest).toBeUndefined();
    expect(logs.edge.lines.some((l) => l.includes('"release action requested"') && l.includes('"action":"test"'))).toBe(true);
    expect(logs.home.lines.some((l) => l.includes('"action":"test"'))).toBe(false);
  });

  it('suspend … --cluster edge: planned, confirmed and done in edge, named so; nothing in home', async () => {
    const reply = await slash(`suspend ${ns.edge}/unicorn --cluster edge --reason fleet test`);
    expect(reply.text).toBe(`Plan: suspend ${ns.edge}/unicorn (cluster edge)`);
    // The channel's record ends with the agent's report, read back through Redis.
    await confirmAndAwaitRecord(
      reply,
      /^Confirmed: suspend .* \(cluster edge\)/,
      new RegExp(`<@UALICE> suspend ${ns.edge}/unicorn \\(cluster edge\\) — _fleet test_\\n:white_check_mark: ${ns.edge}/unicorn: `),
    );
    const edge = await api.get(ns.edge, 'unicorn');
    expect(edge?.spec.suspend).toBe(true);
    expect(edge?.metadata.annotations?.[SUSPENSION_ANNOTATION]).toContain('slack:UALICE');
    const home = await api.get(ns.home, 'unicorn');
    expect(home?.spec.suspend).toBeFalsy();
    expect(home?.metadata.annotations?.[SUSPENSION_ANNOTATION]).toBeUndefined();
    // edge's agent wrote it, signed for edge; home's never saw it.
    expect(logs.edge.lines.some((l) => l.includes('"release action requested"') && l.includes('"action":"suspend"'))).toBe(true);
    expect(logs.home.lines.some((l) => l.includes('"action":"suspend"'))).toBe(false);
  });

  it('a permission limited to clusters [home]: resume in edge is refused, naming where it is granted; at home it is planned', async () => {
    const refused = await slash(`resume ${ns.edge}/unicorn --cluster edge`);
    expect(refused.text).toMatch(/resume/);
    expect(refused.text).toMatch(/clusters home/);
    expect(buttons(refused).some((e) => e.action_id === 'release_confirm')).toBe(false);
    const planned = await slash(`resume ${ns.home}/unicorn --cluster home`);
    expect(planned.text).toMatch(/^Plan: resume .*\(cluster home\)/);
  });

  it('list --cluster all: each cluster under its name, edge’s release read through its agent', async () => {
    const reply = await slash('list --cluster all');
    const body = reply.text;
    const edge = body.slice(body.indexOf('== cluster edge =='));
    expect(body).toContain('== cluster home (this bot’s own) ==');
    expect(edge.split('\n').slice(0, 2)).toEqual([
      '== cluster edge ==',
      expect.stringMatching(new RegExp(`^${ns.edge}/unicorn  unicorn 1\\.0\\.0  ready=True suspended(\`\`\`)?$`)),
    ]);
    expect(body).toMatch(new RegExp(`${ns.home}/unicorn  unicorn 1\\.0\\.0  ready=True`));
  });

  it('a name in both clusters asks which cluster, one button each; pressing edge’s carries on there', async () => {
    const reply = await slash('status unicorn');
    expect(reply.text).toContain('"unicorn" is in 2 clusters (edge, home): which cluster?');
    const choices = buttons(reply);
    expect(choices.map((e) => [e.action_id, e.text?.text, e.value])).toEqual([
      ['release_cluster_choice.edge', 'edge', 'status unicorn --cluster edge'],
      ['release_cluster_choice.home', 'home', 'status unicorn --cluster home'],
    ]);
    const answer = await click(choices[0]!.action_id, choices[0]!.value);
    expect(answer.text).toContain('cluster edge');
    expect(answer.text).toContain(`${ns.edge}/unicorn: chart unicorn 1.0.0 declared, SUSPENDED`);
  });

  it('freeze cluster:edge* from chat: edge holds an upgrade (Frozen), home upgrades; unfreeze lifts it and edge goes on', async () => {
    const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' });
    const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);
    const apply = (cluster: 'edge' | 'home', version: string) => applyHelmRelease(kubeConfig, helmReleaseObject(ns[cluster], 'icicle', spec(version)));
    const ready = (cluster: 'edge' | 'home', generation: number) =>
      pollUntil(
        async () => {
          const release = await api.get(ns[cluster], 'icicle');
          return release && isReconciledAt(release, generation) && condition(release, 'Ready')?.status === 'True' ? release : undefined;
        },
        { timeoutMs: 60_000 },
        () => `${cluster}/icicle never became Ready at generation ${generation}`,
      );
    await Promise.all((['edge', 'home'] as const).map(async (cluster) => ready(cluster, await apply(cluster, '1.0.0'))));

    const plan = await slash('freeze cluster:edge* --reason edge maintenance --for 10m');
    const name = /^Plan: freeze clusters edge\* \((cluster-edge-[0-9a-f]{4})\)$/.exec(plan.text)?.[1];
    expect(name, plan.text).toBeDefined();
    const confirm = buttons(plan).find((e) => e.action_id === 'release_confirm')!;
    expect((await click('release_confirm', confirm.value)).text).toMatch(/^Confirmed: freeze clusters edge\*/);
    await eventually(async () => expect(await redis.hexists(fleetFreezesKey(fleet), name!)).toBe(1), { timeoutMs: 10_000, intervalMs: 100 });
    expect((await slash('freezes')).text).toMatch(
      new RegExp(`fleet freezes:\\n${name}  ACTIVE  clusters edge\\* until \\S+ by slack:UALICE: edge maintenance`),
    );

    // What holds in edge is asked of edge's agent: the plan warns of it.
    const edgePlan = await slash(`upgrade ${ns.edge}/icicle 2.0.0 --cluster edge`);
    expect(edgePlan.text).toBe(`Plan: upgrade ${ns.edge}/icicle to 2.0.0 (cluster edge)`);
    expect(JSON.stringify(edgePlan.blocks)).toContain(`held by freeze ${name} (edge maintenance, set by slack:UALICE`);
    await click('release_cancel', buttons(edgePlan).find((e) => e.action_id === 'release_cancel')!.value);

    const [edgeGen, homeGen] = [await apply('edge', '2.0.0'), await apply('home', '2.0.0')];
    let edgeSeen: HelmRelease | undefined;
    const frozen = await pollUntil(
      async () => {
        edgeSeen = await api.get(ns.edge, 'icicle');
        const f = condition(edgeSeen, 'Frozen');
        return f?.status === 'True' && f.observedGeneration === edgeGen ? f : undefined;
      },
      { timeoutMs: 30_000 },
      () =>
        `edge never showed Frozen: ${JSON.stringify(edgeSeen?.status?.conditions)} generation ${edgeSeen?.metadata.generation}; log ${logs.edge.lines
          .filter((l) => l.includes('freeze'))
          .slice(-5)
          .join(' | ')}`,
    );
    expect(frozen.message).toContain(`freeze ${name} (edge maintenance, set by slack:UALICE, until `);
    expect(condition(await ready('home', homeGen), 'Frozen')).toBeUndefined();

    const lift = await slash(`unfreeze ${name}`);
    expect(lift.text).toBe(`Plan: unfreeze ${name} (fleet)`);
    await click('release_confirm', buttons(lift).find((e) => e.action_id === 'release_confirm')!.value);
    const edge = await ready('edge', edgeGen);
    expect(condition(edge, 'Frozen')).toBeUndefined();
    expect(await redis.hexists(fleetFreezesKey(fleet), name!)).toBe(0);
  });

  it('a fleet freeze taking in the bot’s own cluster: a plan there warns of it, as of a Freeze', async () => {
    const plan = await slash('freeze cluster:home --reason home maintenance --for 10m');
    const name = /^Plan: freeze clusters home \((cluster-home-[0-9a-f]{4})\)$/.exec(plan.text)?.[1];
    expect(name, plan.text).toBeDefined();
    await click('release_confirm', buttons(plan).find((e) => e.action_id === 'release_confirm')!.value);
    await eventually(async () => expect(await redis.hexists(fleetFreezesKey(fleet), name!)).toBe(1), { timeoutMs: 10_000, intervalMs: 100 });
    try {
      const homePlan = await slash(`upgrade ${ns.home}/unicorn 2.0.0 --cluster home`);
      expect(homePlan.text).toBe(`Plan: upgrade ${ns.home}/unicorn to 2.0.0 (cluster home)`);
      expect(JSON.stringify(homePlan.blocks)).toContain(`held by freeze ${name} (home maintenance, set by slack:UALICE`);
      await click('release_cancel', buttons(homePlan).find((e) => e.action_id === 'release_cancel')!.value);
    } finally {
      await redis.hdel(fleetFreezesKey(fleet), name!);
    }
  });

  it('an agent that stopped is named unreachable since its last heartbeat; nothing is sent', async () => {
    await agents.edge!.stop();
    delete agents.edge;
    await eventually(async () => expect((await readFleet(redis, fleet, Date.now())).find((c) => c.name === 'edge')?.state).toBe('unreachable'), {
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    const reply = await slash(`status edge/${ns.edge}/unicorn`);
    expect(reply.text).toMatch(
      /^cluster edge is unreachable: its agent stopped answering \(last heartbeat \d{4}-\d\d-\d\dT[\d:.]+Z, \d+s ago\); nothing was sent$/,
    );
    const listed = (await slash('list --cluster all')).text;
    expect(listed).toMatch(/== cluster edge ==\ncluster edge is unreachable: its agent stopped answering \(last heartbeat /);
    expect(listed).toContain(`${ns.home}/unicorn`);
  });
});
