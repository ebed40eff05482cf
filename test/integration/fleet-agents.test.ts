import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { FleetCommandClient } from '../../src/core/fleet/command-client.js';
import { newCommand } from '../../src/core/fleet/command-protocol.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { CheckLedger } from '../../src/controller/queue/check-ledger.js';
import { signCommand } from '../../src/core/fleet/signed-command.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { memoryLogger } from '../support/notify-fixtures.js';

/**
 * Issue 32 (B): two agents on one Redis, told apart by nothing but HELMCREW_CLUSTER_NAME (and their
 * keys). One API server stands for both clusters: `edge` watches one namespace, `home` another.
 */
describe('a fleet of two agents on one Redis', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const fleet = uniqueName('hc-fleet');
  const keys = { edge: randomBytes(32).toString('hex'), home: randomBytes(32).toString('hex') };
  const logs = { edge: memoryLogger('edge'), home: memoryLogger('home') };
  const namespaces = { edge: '', home: '' };
  const agents: Partial<Record<'edge' | 'home', TestController>> = {};
  let redis: Redis;
  let client: FleetCommandClient;

  beforeAll(async () => {
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    client = new FleetCommandClient(redis, fleet);
    for (const cluster of ['edge', 'home'] as const) {
      namespaces[cluster] = await freshNamespace(kubeConfig, cluster);
      agents[cluster] = await startTestController(
        [namespaces[cluster]],
        { HELMCREW_QUEUE_PREFIX: fleet, HELMCREW_CLUSTER_NAME: cluster, HELMCREW_COMMAND_KEY: keys[cluster], HELMCREW_HEARTBEAT_SECONDS: '1' },
        logs[cluster].log,
      );
      await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespaces[cluster], 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, suspend: false }),
      );
    }
  });
  afterAll(async () => {
    await client.close();
    for (const agent of Object.values(agents)) await agent.stop();
    redis.disconnect();
    for (const ns of Object.values(namespaces)) if (ns) await deleteNamespace(kubeConfig, ns);
  });

  it('the fleet listing shows both agents up', async () => {
    const listed = await eventually(
      async () => {
        const clusters = await readFleet(redis, fleet, Date.now());
        expect(clusters.map((c) => [c.name, c.state])).toEqual([
          ['edge', 'up'],
          ['home', 'up'],
        ]);
        return clusters;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(listed.every((c) => c.replicas === 1 && c.version === '0.1.0')).toBe(true);
  });

  it('each agent works in its own keyspace only: its release is checked there, the other’s never', async () => {
    const ledger = (cluster: string) => new CheckLedger(redis, clusterKeyspace(fleet, cluster)).all();
    await eventually(
      async () => {
        expect([...(await ledger('edge')).keys()]).toEqual([`${namespaces.edge}/unicorn`]);
        expect([...(await ledger('home')).keys()]).toEqual([`${namespaces.home}/unicorn`]);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    // Nothing of either cluster under the bare prefix (a controller with no cluster name would work there).
    expect(await redis.keys(`${fleet}:*`)).toEqual([]);
  });

  const suspendCommand = () =>
    signCommand(
      newCommand(
        {
          cluster: 'edge',
          namespace: namespaces.edge,
          name: 'unicorn',
          verb: 'suspend',
          patch: {
            metadata: { annotations: { [SUSPENSION_ANNOTATION]: JSON.stringify({ by: 'slack:UALICE', at: new Date().toISOString() }) } },
            spec: { suspend: true },
          },
          actor: 'slack:UALICE',
          reason: 'fleet test',
        },
        Date.now(),
      ),
      keys.edge,
    );
  let sent: ReturnType<typeof suspendCommand>;

  it('a command for edge suspends the release there and nothing in home', async () => {
    sent = suspendCommand();
    const outcome = await client.send(sent, 15_000);
    expect(outcome).toMatchObject({ ok: true });
    const edge = await api.get(namespaces.edge, 'unicorn');
    expect(edge?.spec.suspend).toBe(true);
    expect(edge?.metadata.annotations?.[SUSPENSION_ANNOTATION]).toContain('slack:UALICE');
    const home = await api.get(namespaces.home, 'unicorn');
    expect(home?.spec.suspend).toBe(false);
    expect(home?.metadata.annotations?.[SUSPENSION_ANNOTATION]).toBeUndefined();
    expect(logs.home.lines.join('')).not.toContain(sent.command.nonce);
  });

  it('the same command replayed to home is refused and logged there', async () => {
    const outcome = await client.send(sent, 15_000, 'home');
    expect(outcome).toMatchObject({ ok: false, refused: 'wrong-cluster' });
    const refusal = logs.home.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.nonce === sent.command.nonce);
    expect(refusal).toMatchObject({ refused: 'wrong-cluster', signedFor: 'edge', cluster: 'home' });
    expect((await api.get(namespaces.home, 'unicorn'))?.spec.suspend).toBe(false);
  });

  it('the same command replayed to edge a second time is refused and logged', async () => {
    await api.patchIntent(namespaces.edge, 'unicorn', { spec: { suspend: false } }, 'test');
    const outcome = await client.send(sent, 15_000);
    expect(outcome).toMatchObject({ ok: false, refused: 'replayed' });
    expect(logs.edge.lines.some((l) => l.includes('"refused":"replayed"') && l.includes(sent.command.nonce))).toBe(true);
    expect((await api.get(namespaces.edge, 'unicorn'))?.spec.suspend).toBe(false);
  });

  it('a command signed with home’s key but named for edge is refused by edge; no log line holds a key', async () => {
    const forged = signCommand({ ...suspendCommand().command }, keys.home);
    expect(await client.send(forged, 15_000)).toMatchObject({ ok: false, refused: 'bad-signature' });
    for (const [cluster, key] of Object.entries(keys)) {
      expect(logs.edge.lines.join('') + logs.home.lines.join(''), cluster).not.toContain(key);
    }
  });

  it('an agent that stopped is listed as unreachable since its last heartbeat', async () => {
    await agents.home!.stop();
    delete agents.home;
    const home = await eventually(
      async () => {
        const found = (await readFleet(redis, fleet, Date.now())).find((c) => c.name === 'home');
        expect(found?.state).toBe('unreachable');
        return found!;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(Date.now() - Date.parse(home.lastHeartbeat)).toBeGreaterThan(3000);
    expect((await readFleet(redis, fleet, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up');
  });
});
