import type { ResultPromise } from 'execa';
import { Redis } from 'ioredis';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeHelmSlots, type NodeHelmSlotsOptions } from '../../src/controller/helm/node-helm-slots.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger, type Logger } from '../../src/core/log.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { startControllerProcess } from '../support/controller-process.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

/** Issue 50: replicas on one node share its helm slots through Redis (three replicas on two cores ran twelve helms). */
describe('node helm slots: replicas on one node run at most its limit of helm processes together', () => {
  const { env } = testEnv();
  const redis = new Redis(env.redisUrl);
  const opened: NodeHelmSlots[] = [];
  afterAll(() => {
    for (const slots of opened) slots.close();
    redis.disconnect();
  });

  /** A replica's node slots on the test's Redis; each replica has its own connection, as each controller has. */
  async function replica(keyspace: string, node: string, limit: number, more: Partial<NodeHelmSlotsOptions> = {}): Promise<NodeHelmSlots> {
    const connection = new Redis(env.redisUrl);
    const slots = new NodeHelmSlots({ connection, keyspace, node, limit, log: createLogger('test', 'silent'), ...more });
    opened.push(slots);
    await slots.start();
    return slots;
  }

  it('two replicas on one node hold at most the limit together, and a waiter in the other replica starts as soon as a lease is given back', async () => {
    const keyspace = uniqueName('hc-node');
    // A recheck far longer than the test: only the give-back's message can wake the other replica in time.
    const [a, b] = await Promise.all([replica(keyspace, 'node-1', 2, { recheckMs: 60_000 }), replica(keyspace, 'node-1', 2, { recheckMs: 60_000 })]);
    const giveA1 = await a.acquire();
    const giveB1 = await b.acquire();
    let bSecond: (() => void) | undefined;
    const waiting = b.acquire().then((give) => (bSecond = give));
    // The node was asked and said full.
    await eventually(() => expect(b.refused).toBeGreaterThanOrEqual(1), { timeoutMs: 5_000, intervalMs: 10 });
    expect(bSecond).toBeUndefined();
    expect(b.queued).toBe(1);
    expect(await redis.zcard(clusterKey(keyspace, 'nodeHelmSlots', 'node-1'))).toBe(2);
    const givenAt = Date.now();
    giveA1();
    await waiting;
    expect(Date.now() - givenAt).toBeLessThan(2_000);
    expect(await redis.zcard(clusterKey(keyspace, 'nodeHelmSlots', 'node-1'))).toBe(2);
    giveB1();
    bSecond!();
    // Given twice: the second is a no-op, not a lease taken from another holder.
    giveA1();
    await eventually(async () => expect(await redis.zcard(clusterKey(keyspace, 'nodeHelmSlots', 'node-1'))).toBe(0), { timeoutMs: 5_000, intervalMs: 50 });
  });

  it('many waiters across replicas: never more than the limit at once, and each runs', async () => {
    const keyspace = uniqueName('hc-node');
    const replicas = await Promise.all([1, 2, 3].map(() => replica(keyspace, 'node-1', 2, { recheckMs: 60_000 })));
    let running = 0;
    let most = 0;
    let ran = 0;
    await Promise.all(
      Array.from({ length: 12 }, async (_unused, i) => {
        const give = await replicas[i % 3]!.acquire();
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 20 + (i % 4) * 10));
        running--;
        ran++;
        give();
      }),
    );
    expect(ran).toBe(12);
    expect(most).toBe(2);
  });

  it('replicas on other nodes do not share a limit', async () => {
    const keyspace = uniqueName('hc-node');
    const [a, b] = await Promise.all([replica(keyspace, 'node-1', 1), replica(keyspace, 'node-2', 1)]);
    const gives = await Promise.all([a.acquire(), b.acquire()]);
    for (const give of gives) give();
  });

  it('a replica that died holding a lease frees it when the lease ends; a waiter then takes it without being told', async () => {
    const keyspace = uniqueName('hc-node');
    const dead = await replica(keyspace, 'node-1', 1, { leaseMs: 1_500 });
    await dead.acquire();
    dead.close(); // gone without giving its lease back, and no longer renewing it
    const alive = await replica(keyspace, 'node-1', 1, { leaseMs: 1_500, recheckMs: 200 });
    const started = Date.now();
    const give = await alive.acquire();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThan(500);
    expect(waited).toBeLessThan(5_000);
    give();
  });

  it('a lease held past its length is renewed while held', async () => {
    const keyspace = uniqueName('hc-node');
    // Renewed every max(1 s, lease ÷ 3): a 3 s lease held 5 s outlives two renewals.
    const holder = await replica(keyspace, 'node-1', 1, { leaseMs: 3_000 });
    const other = await replica(keyspace, 'node-1', 1, { leaseMs: 3_000, recheckMs: 200 });
    const give = await holder.acquire();
    let otherGot = false;
    const otherWaits = other.acquire().then((g) => {
      otherGot = true;
      return g;
    });
    // Asked every 200 ms: twenty refusals span more than the 3 s lease, which renewal kept.
    await eventually(() => expect(other.refused).toBeGreaterThanOrEqual(20), { timeoutMs: 15_000, intervalMs: 50 });
    expect(otherGot).toBe(false);
    give();
    (await otherWaits)();
  });

  it('a wait aborted (a newer generation) ends with its reason and takes no lease', async () => {
    const keyspace = uniqueName('hc-node');
    const [a, b] = await Promise.all([replica(keyspace, 'node-1', 1), replica(keyspace, 'node-1', 1)]);
    const give = await a.acquire();
    const controller = new AbortController();
    const waiting = b.acquire(controller.signal);
    await eventually(() => expect(b.refused).toBeGreaterThanOrEqual(1), { timeoutMs: 5_000, intervalMs: 10 });
    controller.abort(new Error('superseded by generation 3'));
    await expect(waiting).rejects.toThrow('superseded by generation 3');
    expect(b.queued).toBe(0);
    give();
    await eventually(async () => expect(await redis.zcard(clusterKey(keyspace, 'nodeHelmSlots', 'node-1'))).toBe(0), { timeoutMs: 5_000, intervalMs: 50 });
    await expect(b.acquire(controller.signal)).rejects.toThrow('superseded by generation 3');
  });

  it('Redis refusing the lease does not stop helm: it runs without one, and the log says why', async () => {
    const closed = new Redis(env.redisUrl, { maxRetriesPerRequest: 0, lazyConnect: true });
    closed.disconnect();
    const warnings: string[] = [];
    const log = { warn: (_fields: unknown, message: string) => void warnings.push(message) } as unknown as Logger;
    const slots = new NodeHelmSlots({ connection: closed, keyspace: uniqueName('hc-node'), node: 'node-1', limit: 1, log });
    const give = await slots.acquire();
    give();
    expect(warnings).toContain('could not take a node helm slot: helm runs without one');
  });

  it('a Redis that does not answer in time does not hold helm: it runs without a lease, the next without asking, and a lease granted late is given back', async () => {
    const keyspace = uniqueName('hc-node');
    const key = clusterKey(keyspace, 'nodeHelmSlots', 'node-1');
    const proxy = await startTcpProxy(Number(new URL(env.redisUrl).port));
    // As the controller's connection: commands wait through an outage rather than fail.
    const connection = new Redis({ host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: null });
    const said: string[] = [];
    const log = { warn: (_f: unknown, m: string) => void said.push(m), info: (_f: unknown, m: string) => void said.push(m) } as unknown as Logger;
    const slots = new NodeHelmSlots({ connection, keyspace, node: 'node-1', limit: 1, log, askTimeoutMs: 300 });
    try {
      await slots.start();
      proxy.delay(3_000); // Redis acts on each ask at once; its answers reach the replica 3 s later
      const started = Date.now();
      const giveFirst = await slots.acquire();
      const giveSecond = await slots.acquire();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(slots.unleased).toBe(2);
      // The second did not ask (it would have waited and warned too): one warning for the two.
      expect(said.filter((m) => m === 'Redis did not answer for a node helm slot: helm runs without one until it does')).toHaveLength(1);
      giveFirst();
      giveSecond();
      // Redis granted the first ask; the replica, told late, gives that lease back rather than hold it for a whole lease.
      expect(await redis.zcard(key)).toBe(1);
      await eventually(async () => expect(await redis.zcard(key)).toBe(0), { timeoutMs: 10_000, intervalMs: 100 });
      expect(said).toContain('Redis answers node helm slot asks again');
      proxy.delay(0);
      await connection.ping(); // answered after the give-back's answer, still held: the connection is prompt again
      const giveThird = await slots.acquire();
      expect(slots.unleased).toBe(2);
      expect(await redis.zcard(key)).toBe(1);
      giveThird();
    } finally {
      slots.close();
      connection.disconnect();
      await proxy.close();
    }
  });
});

/** The same through two real controller processes told they share a node with one helm slot: their helm installs never overlap. */
describe('two controllers on one node with one node helm slot', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const redis = new Redis(env.redisUrl);
  const prefix = uniqueName('hc-nodeslot');
  let namespace: string;
  let helm: HelmShim;
  const processes: ResultPromise[] = [];

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'nodeslot');
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-nodeslot-'));
    helm = await createHelmShim(dir, env.helmBin);
    for (const replica of ['a', 'b']) {
      processes.push(
        startControllerProcess(env, {
          helmBin: helm.bin,
          namespace,
          prefix,
          dir,
          replica,
          // Each replica alone would run four helm processes; the node allows one.
          env: { HELMCREW_CONCURRENCY: '4', HELMCREW_NODE_NAME: 'node-1', HELMCREW_NODE_HELM_SLOTS: '1' },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const child of processes) child.kill('SIGTERM');
    await Promise.all(processes);
    redis.disconnect();
    await deleteNamespace(kubeConfig, namespace);
  });

  it('three releases declared at once: one helm install runs while it is held, then the others one after another', async () => {
    const held = await helm.hold('install');
    const generations = await Promise.all(
      ['one', 'two', 'three'].map((name) =>
        applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } })),
      ),
    );
    try {
      // The first helm install runs (held), holding the node's lease; every pass has said it started: all three are past their replica's own slots.
      await eventually(
        async () => {
          expect(await helm.count('install')).toBeGreaterThanOrEqual(1);
          for (const name of ['one', 'two', 'three']) {
            const reconciling = (await api.get(namespace, name))?.status?.conditions?.find((c) => c.type === 'Reconciling');
            expect(reconciling).toMatchObject({ status: 'True', reason: 'Installing' });
          }
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      // One lease on the node and one helm install; the other two wait for the lease, not for a slot of their replica.
      expect(await redis.zcard(clusterKey(prefix, 'nodeHelmSlots', 'node-1'))).toBe(1);
      expect(await helm.count('install')).toBe(1);
    } finally {
      // Also when it fails: a held helm would otherwise wait in its loop after the controllers are gone.
      await held.release();
    }
    for (const [i, name] of ['one', 'two', 'three'].entries()) await waitForReconciled(kubeConfig, namespace, name, generations[i]!);
    expect(await helm.count('install')).toBe(3);
  });
});
