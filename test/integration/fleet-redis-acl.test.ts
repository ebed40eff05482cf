import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetAclCommand } from '../../src/cli/commands/fleet-acl.js';
import { agentAclLine } from '../../src/core/fleet/acl.js';
import { clusterKey, clusterKeyspace, fleetFreezesKey, fleetIndexKey } from '../../src/core/fleet/cluster-keys.js';
import { fleetFreezeObject, FleetFreezeStore } from '../../src/core/fleet/fleet-freezes.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { memoryLogger } from '../support/notify-fixtures.js';
import { readFleet } from '../../src/core/fleet/fleet-store.js';
import { createLogger } from '../../src/core/log.js';
import { stopProcess, type StartedProcess } from '../../src/dev/processes.js';
import { startRedis } from '../../src/dev/redis.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 32: with the ACL users of docs/redis.md (core/fleet/acl.ts) on Debian's redis-server, the
 * `edge` agent cannot read or write `home`'s keys nor take a name out of the fleet index, and a
 * controller logged in as that user still works (BullMQ's scripts, streams and blocking reads).
 */
describe('Redis ACLs per cluster', () => {
  const { env, kubeConfig } = testEnv();
  const fleet = uniqueName('hcacl');
  const pw = { edge: 'edge-secret-0123456789', home: 'home-secret-0123456789', hub: 'hub-secret-0123456789', blind: 'blind-secret-0123456789' };
  let proc: StartedProcess | undefined;
  let port = 0;
  const clients: Redis[] = [];
  let namespace = '';
  let agent: TestController | undefined;
  let blind: TestController | undefined;
  let blindNamespace = '';
  const as = (user: string, password: string) => {
    const client = new Redis({ port, host: '127.0.0.1', username: user, password, maxRetriesPerRequest: 1, lazyConnect: false });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-acl-'));
    const aclFile = join(dir, 'users.acl');
    // The agents' and the hub's lines as `helmcrew fleet acl` prints them, from password files.
    const passwords = join(dir, 'passwords');
    await mkdir(passwords);
    for (const [user, password] of [
      ['agent-edge', pw.edge],
      ['agent-home', pw.home],
      ['hub', pw.hub],
    ] as const)
      await writeFile(join(passwords, user), password);
    let printed = '';
    const code = await fleetAclCommand(
      ['--clusters', 'edge,home', '--passwords', passwords],
      { HELMCREW_QUEUE_PREFIX: fleet },
      (t) => (printed += t),
      (t) => {
        throw new Error(t);
      },
    );
    expect(code).toBe(0);
    await writeFile(
      aclFile,
      [
        // The unauthenticated user may only PING (the start-up's readiness check); nobody holds every key.
        'user default on nopass resetkeys resetchannels -@all +ping',
        printed.trimEnd(),
        // An agent whose user was given no read of the fleet freezes (an ACL written before them).
        agentAclLine('agent-blind', pw.blind, fleet, 'blind').replace(/ \(~\S+:fleet:freezes \+hgetall\)$/, ''),
        '',
      ].join('\n'),
    );
    const started = await startRedis({
      stateDir: dir,
      dir: join(dir, 'redis'),
      log: createLogger('redis', 'warn'),
      onStarted: (p) => (proc = p),
      extraArgs: ['--aclfile', aclFile],
    });
    port = started.port;
  });
  afterAll(async () => {
    await agent?.stop();
    await blind?.stop();
    for (const c of clients) c.disconnect();
    if (proc) await stopProcess(proc, 2000);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
    if (blindNamespace) await deleteNamespace(kubeConfig, blindNamespace);
  });

  const edgeKey = (kind: 'checked' | 'agents') => clusterKey(clusterKeyspace(fleet, 'edge'), kind);
  const homeKey = (kind: 'checked' | 'agents') => clusterKey(clusterKeyspace(fleet, 'home'), kind);

  it('the edge agent reads and writes its own keys, and none of home’s', async () => {
    const home = as('agent-home', pw.home);
    await home.zadd(homeKey('checked'), 1, 'web/unicorn');
    const edge = as('agent-edge', pw.edge);
    await edge.zadd(edgeKey('checked'), 1, 'web/unicorn');
    expect(await edge.zrange(edgeKey('checked'), 0, -1)).toEqual(['web/unicorn']);
    await expect(edge.zrange(homeKey('checked'), 0, -1)).rejects.toThrow(/NOPERM/);
    await expect(edge.zadd(homeKey('checked'), 2, 'web/forged')).rejects.toThrow(/NOPERM/);
    await expect(edge.del(homeKey('checked'))).rejects.toThrow(/NOPERM/);
    await expect(edge.set(`${clusterKeyspace(fleet, 'home')}:command:completed`, 'forged')).rejects.toThrow(/NOPERM/);
    // Key names reach past patterns through SCAN and KEYS: both are taken away.
    await expect(edge.scan(0)).rejects.toThrow(/NOPERM/);
    await expect(edge.keys('*')).rejects.toThrow(/NOPERM/);
    await expect(edge.flushall()).rejects.toThrow(/NOPERM/);
    expect(await home.zrange(homeKey('checked'), 0, -1)).toEqual(['web/unicorn']);
  });

  it('an agent may add its name to the fleet index and do nothing else there', async () => {
    const edge = as('agent-edge', pw.edge);
    expect(await edge.sadd(fleetIndexKey(fleet), 'edge')).toBeGreaterThanOrEqual(0);
    await expect(edge.srem(fleetIndexKey(fleet), 'home')).rejects.toThrow(/NOPERM/);
    await expect(edge.del(fleetIndexKey(fleet))).rejects.toThrow(/NOPERM/);
    await expect(edge.smembers(fleetIndexKey(fleet))).rejects.toThrow(/NOPERM/);
  });

  it('an agent reads the fleet freezes and can neither lift nor forge one; the hub writes them', async () => {
    const hub = new FleetFreezeStore(as('hub', pw.hub), fleet);
    expect(await hub.create({ clusters: ['home'], freeze: fleetFreezeObject('cluster-home-1', { reason: 'INC' }) })).toBe(true);
    const edge = as('agent-edge', pw.edge);
    expect((await new FleetFreezeStore(edge, fleet).list()).map((r) => r.freeze.metadata.name)).toEqual(['cluster-home-1']);
    await expect(new FleetFreezeStore(edge, fleet).delete('cluster-home-1')).rejects.toThrow(/NOPERM/);
    await expect(edge.hset(fleetFreezesKey(fleet), 'forged', '{}')).rejects.toThrow(/NOPERM/);
    await expect(edge.del(fleetFreezesKey(fleet))).rejects.toThrow(/NOPERM/);
    expect(await hub.delete('cluster-home-1')).toBe(true);
  });

  it('an agent that cannot read the fleet freezes runs no helm action, and says why on Ready and in its log', async () => {
    blindNamespace = await freshNamespace(kubeConfig, 'blind');
    const logs = memoryLogger('blind');
    blind = await startTestController(
      [blindNamespace],
      {
        REDIS_URL: `redis://agent-blind:${pw.blind}@127.0.0.1:${port}`,
        HELMCREW_QUEUE_PREFIX: fleet,
        HELMCREW_CLUSTER_NAME: 'blind',
        HELMCREW_FLEET_FREEZE_MS: '300',
      },
      logs.log,
    );
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(blindNamespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
    const ready = await pollUntil(
      async () => {
        const found = (await api.get(blindNamespace, 'unicorn'))?.status?.conditions?.find((c) => c.type === 'Ready');
        return found?.reason === 'FleetFreezesUnknown' ? found : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'Ready never said FleetFreezesUnknown',
    );
    expect(ready.status).toBe('False');
    expect(ready.message).toMatch(/^the fleet freezes have not been read from Redis yet since .*NOPERM.*; no helm action until they are$/);
    expect(await blind.helm.count('install')).toBe(0);
    const lines = logs.lines.join('');
    expect(lines).toContain('cannot read the fleet freezes from Redis');
    expect(lines).toContain('held: the fleet freezes are unknown (fail closed)');
    expect(lines).not.toContain(pw.blind);
  });

  it('a controller logged in as the edge agent reconciles and announces itself; the hub lists it', async () => {
    namespace = await freshNamespace(kubeConfig, 'acl');
    agent = await startTestController([namespace], {
      REDIS_URL: `redis://agent-edge:${pw.edge}@127.0.0.1:${port}`,
      HELMCREW_QUEUE_PREFIX: fleet,
      HELMCREW_CLUSTER_NAME: 'edge',
      HELMCREW_HEARTBEAT_SECONDS: '1',
    });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const hub = as('hub', pw.hub);
    await eventually(async () => expect((await readFleet(hub, fleet, Date.now())).find((c) => c.name === 'edge')?.state).toBe('up'), {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    await expect(hub.get('other-app:secret')).rejects.toThrow(/NOPERM/);
  });
});
