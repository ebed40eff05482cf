import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 8: dependsOn orders installs, reports cycles, and holds dependants of a release that is not Ready. */
describe('dependsOn', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('deps');
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
  const deployedAt = async (name: string) => Date.parse((await storage.history(namespace, name)).deployed?.lastDeployed ?? 'NaN');

  it('A ← B ← C applied in reverse order install A, then B, then C', async () => {
    const c = await declare('c', { dependsOn: [{ name: 'b' }] });
    const b = await declare('b', { dependsOn: [{ name: 'a', namespace }] });
    const a = await declare('a', {});
    const [ra, rb, rc] = await Promise.all([
      waitForReconciled(kubeConfig, namespace, 'a', a),
      waitForReconciled(kubeConfig, namespace, 'b', b),
      waitForReconciled(kubeConfig, namespace, 'c', c),
    ]);
    for (const r of [ra, rb, rc]) expect(condition(r, 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
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
    const x = await declare('x', { dependsOn: [{ name: 'y' }] });
    const y = await declare('y', { dependsOn: [{ name: 'z' }] });
    const z = await declare('z', { dependsOn: [{ name: 'x' }] });
    const released = await Promise.all([
      waitForReconciled(kubeConfig, namespace, 'x', x),
      waitForReconciled(kubeConfig, namespace, 'y', y),
      waitForReconciled(kubeConfig, namespace, 'z', z),
    ]);
    for (const r of released) {
      expect(condition(r, 'Stalled')).toMatchObject({ status: 'True', reason: 'DependencyInvalid' });
      expect(condition(r, 'Ready')?.message).toMatch(/dependsOn forms a cycle: .*→/);
      expect(condition(r, 'Ready')?.message).toContain(`${namespace}/${r.metadata.name} → `);
    }
    const before = await api.get(namespace, 'x');
    await sleep(3000);
    expect(await ctl.helm.count('install')).toBe(installs);
    // not looped on: its status was not rewritten over and over
    expect((await api.get(namespace, 'x'))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it('a missing dependency is reported; creating it lets the dependant go on', async () => {
    const lonely = await declare('lonely', { dependsOn: [{ name: 'later' }] });
    const waiting = await waitForReconciled(kubeConfig, namespace, 'lonely', lonely);
    expect(condition(waiting, 'Ready')).toMatchObject({ status: 'False', reason: 'DependencyInvalid' });
    expect(condition(waiting, 'Ready')?.message).toMatch(new RegExp(`dependsOn names ${namespace}/later, which does not exist`));
    await declare('later', {});
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && condition(await api.get(namespace, 'lonely'), 'Ready')?.status !== 'True') await sleep(250);
    expect(condition(await api.get(namespace, 'lonely'), 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
  });

  it('while A is not Ready, a change to B waits (DependencyNotReady); A fixed, B goes on at once', async () => {
    const broken = await declare('a', {
      version: undefined,
      chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '4.0.0' },
    } as Partial<HelmReleaseSpec>);
    expect(condition(await waitForReconciled(kubeConfig, namespace, 'a', broken), 'Ready')).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    const upgrades = await ctl.helm.count('upgrade');
    const b = await declare('b', { dependsOn: [{ name: 'a' }], values: { message: 'second' } });
    // B checks again after about 2, 4, 8, 16 s of waiting: A is fixed (and Ready) at about
    // 10–11 s, so the next check by backoff alone would come only ~5 s after that.
    await sleep(9500);
    const held = await api.get(namespace, 'b');
    expect(condition(held, 'Ready')).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });
    expect(condition(held, 'Reconciling')).toMatchObject({ status: 'True', reason: 'DependencyNotReady' });
    expect(await ctl.helm.count('upgrade')).toBe(upgrades);
    expect((await storage.history(namespace, 'b')).deployed?.revision).toBe(1);

    const fixed = await declare('a', {});
    await waitForReconciled(kubeConfig, namespace, 'a', fixed);
    const readyAt = Date.now();
    const rb = await waitForReconciled(kubeConfig, namespace, 'b', b, 30_000);
    expect(condition(rb, 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect((await storage.history(namespace, 'b')).deployed?.revision).toBe(2);
    // Woken by A becoming Ready (the watch maps A to B), not by B's backoff, which was ~8 s away.
    const upgradeOfB = (await ctl.helm.startTimes('upgrade')).at(-1)!;
    expect(upgradeOfB - readyAt).toBeLessThan(3000);
  });
});
