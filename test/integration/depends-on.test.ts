import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReconcileQueue } from '../../src/controller/queue/reconcile-queue.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectRedis } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { memoryLogger } from '../support/notify-fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 8: dependsOn orders installs, reports cycles, and holds dependants of a release that is not Ready. */
describe('dependsOn', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const logged = memoryLogger('controller');
  const { namespace, ctl } = namespaceWithController('deps', {}, logged.log);
  const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);
  const declare = (name: string, spec: Partial<HelmReleaseSpec>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        timeout: '60s',
        interval: '1m',
        ...spec,
      }),
    );
  const passReasons = (name: string) =>
    logged.lines
      .map((line) => JSON.parse(line) as { msg?: string; release?: string; reason?: string })
      .filter((p) => p.msg === 'reconciled' && p.release === `${namespace}/${name}`)
      .map((p) => p.reason);
  /** The reasons of the passes of `key` that wait or run in the controller's queue (a delayed one is left out: any wake replaces it). */
  const pendingJobsOf = async (key: string) => {
    const connection = connectRedis(env.redisUrl);
    const queue = new ReconcileQueue(connection, ctl.prefix);
    try {
      const jobs = await queue.raw.getJobs(['waiting', 'prioritized', 'active']);
      return jobs.filter((job) => job.data.key === key).map((job) => job.data.reason);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  };
  const deployedAt = async (name: string) => Date.parse((await storage.history(namespace, name)).deployed?.lastDeployed ?? 'NaN');

  it('A ← B ← C applied in reverse order install A, then B, then C', async () => {
    const c = await declare('c', { dependsOn: [{ name: 'b' }] });
    const b = await declare('b', { dependsOn: [{ name: 'a', namespace }] });
    const a = await declare('a', {});
    // c (and b) may first be reconciled before what they name exists: wait for the outcome, installed.
    await Promise.all(
      [
        ['a', a],
        ['b', b],
        ['c', c],
      ].map(([name, generation]) =>
        eventually(async () => {
          const r = await api.get(namespace, name as string);
          expect(r?.status?.observedGeneration).toBe(generation);
          expect(condition(r, 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
        }),
      ),
    );
    const [ta, tb, tc] = [await deployedAt('a'), await deployedAt('b'), await deployedAt('c')];
    expect(ta).toBeLessThan(tb);
    expect(tb).toBeLessThan(tc);
    // each was installed exactly once: waiting started no helm
    expect(await ctl.helm.count('install')).toBe(3);
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=c' });
    expect(events.items.map((e) => e.reason)).toContain('DependencyNotReady');
  });

  it('a cycle is reported on every release in it, and nothing is installed or looped on', async () => {
    const installs = await ctl.helm.count('install');
    await declare('x', { dependsOn: [{ name: 'y' }] });
    await declare('y', { dependsOn: [{ name: 'z' }] });
    await declare('z', { dependsOn: [{ name: 'x' }] });
    // x may first be reconciled before y exists ("names y, which does not exist"): the outcome is
    // the cycle on all three, once the watch has woken x for y and again for z (the chain wake; its
    // reason is not asserted: a wake that finds x's job already waiting joins it, keeping that reason).
    const cycled = await Promise.all(
      ['x', 'y', 'z'].map((name) =>
        eventually(async () => {
          const r = await api.get(namespace, name);
          expect(condition(r, 'Ready')?.message).toMatch(/dependsOn forms a cycle: .*→/);
          return r!;
        }),
      ),
    );
    for (const r of cycled) {
      expect(condition(r, 'Stalled')).toMatchObject({ status: 'True', reason: 'DependencyInvalid' });
      expect(condition(r, 'Ready')?.message).toContain(`${namespace}/${r.metadata.name} → `);
    }
    const before = await api.get(namespace, 'x');
    // Proves that nothing happens: no install, and no status rewritten over and over.
    await sleep(3000);
    expect(await ctl.helm.count('install')).toBe(installs);
    expect((await api.get(namespace, 'x'))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it('breaking a cycle two links below a release wakes it: p → q → r → p, then r names s instead', async () => {
    // interval 1h, and a cycle is not retried by itself: once p reports it, only the chain wake
    // (r's spec change reaching p through q) can make p look again. q alone is woken without it.
    await declare('p', { dependsOn: [{ name: 'q' }], interval: '1h' });
    await declare('q', { dependsOn: [{ name: 'r' }], interval: '1h' });
    await declare('r', { dependsOn: [{ name: 'p' }], interval: '1h' });
    await Promise.all(
      ['p', 'q', 'r'].map((name) =>
        eventually(async () => expect(condition(await api.get(namespace, name), 'Ready')?.message).toMatch(/dependsOn forms a cycle: .*→/)),
      ),
    );
    // At rest: no pass of p waits or runs, so the pass the wake asks for is a new job and logs the wake's reason.
    await eventually(async () => expect(await pendingJobsOf(`${namespace}/p`)).toEqual([]));
    await declare('r', { dependsOn: [{ name: 's' }], interval: '1h' });
    await eventually(async () => {
      const ready = condition(await api.get(namespace, 'p'), 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });
      expect(ready?.message).toContain(`Waiting for ${namespace}/q to be Ready`);
    });
    await eventually(() => expect(passReasons('p')).toContain(`dependency ${namespace}/r changed`));
  });

  it('a missing dependency is reported; creating it wakes the dependant at once, before it is Ready', async () => {
    // interval 1h: no periodic check comes to the rescue; only the watch, seeing `later` appear, can.
    const lonely = await declare('lonely', { dependsOn: [{ name: 'later' }], interval: '1h' });
    const waiting = await waitForReconciled(kubeConfig, namespace, 'lonely', lonely);
    expect(condition(waiting, 'Ready')).toMatchObject({ status: 'False', reason: 'DependencyInvalid' });
    expect(condition(waiting, 'Ready')?.message).toMatch(new RegExp(`dependsOn names ${namespace}/later, which does not exist`));
    // `later` appears but cannot be Ready (what it names is missing): lonely is re-evaluated for
    // the creation itself, and now waits for it.
    await declare('later', { dependsOn: [{ name: 'last' }] });
    await eventually(async () => {
      const ready = condition(await api.get(namespace, 'lonely'), 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });
      expect(ready?.message).toContain(`Waiting for ${namespace}/later to be Ready`);
    });
    await declare('last', {});
    await eventually(async () => expect(condition(await api.get(namespace, 'lonely'), 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' }));
  });

  it('while A is not Ready, a change to B waits (DependencyNotReady); A fixed, the watch wakes B', async () => {
    const broken = await declare('a', {
      version: undefined,
      chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '4.0.0' },
    } as Partial<HelmReleaseSpec>);
    expect(condition(await waitForReconciled(kubeConfig, namespace, 'a', broken), 'Ready')).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    const upgrades = await ctl.helm.count('upgrade');
    const b = await declare('b', { dependsOn: [{ name: 'a' }], values: { message: 'second' } });
    const held = await eventually(async () => {
      const r = await api.get(namespace, 'b');
      expect(r?.status?.observedGeneration).toBe(b);
      expect(condition(r, 'Ready')).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });
      return r;
    });
    expect(condition(held, 'Reconciling')).toMatchObject({ status: 'True', reason: 'DependencyNotReady' });
    // Proves that nothing happens while A is broken: B's checks by backoff (about 2, 4 s) start no helm.
    await sleep(5000);
    expect(await ctl.helm.count('upgrade')).toBe(upgrades);
    expect((await storage.history(namespace, 'b')).deployed?.revision).toBe(1);

    const fixed = await declare('a', {});
    await waitForReconciled(kubeConfig, namespace, 'a', fixed);
    await eventually(async () => {
      const rb = await api.get(namespace, 'b');
      expect(rb?.status?.observedGeneration).toBe(b);
      expect(condition(rb, 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    });
    expect((await storage.history(namespace, 'b')).deployed?.revision).toBe(2);
    // Woken by A becoming Ready (the watch maps A to B), not only by B's backoff: a pass of B ran
    // for that reason. (Read from the log, not the clock: under load a backoff can come first.)
    // The worker logs a pass after it returns, a moment after the status it wrote: wait for the line.
    await eventually(() => expect(passReasons('b')).toContain(`dependency ${namespace}/a ready`));
  });
});
