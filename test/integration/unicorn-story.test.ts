import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, deploymentAvailable, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForEvents } from '../support/events.js';

/** Issue 2, shown 1: pink → blue → green → broken, on the real API server, Redis and helm. */
describe('the unicorn story', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('story');

  const declare = (version: string) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' }),
    );

  it.each([
    { version: '1.0.0', color: 'pink', revision: 1, reason: 'InstallSucceeded' },
    { version: '2.0.0', color: 'blue', revision: 2, reason: 'UpgradeSucceeded' },
    { version: '3.0.0', color: 'green', revision: 3, reason: 'UpgradeSucceeded' },
  ])('$version: Ready, revision $revision, the page serves $color', async ({ version, color, revision, reason }) => {
    const generation = await declare(version);
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason });
    expect(release.status?.history?.[0]).toMatchObject({ revision, chartVersion: version, status: 'deployed' });
    const history = await storage.history(namespace, 'unicorn');
    expect(history.deployed).toMatchObject({ revision, chartVersion: version });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe(color);
    expect(await deploymentAvailable(kubeConfig, namespace, 'unicorn')).toBe(true);
  });

  it('the broken version: Ready=False with helm’s error, revision 3 still deployed', async () => {
    const generation = await declare('4.0.0');
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    // helm's own words, as the API server gave them to it
    expect(ready?.message).toMatch(/80800/);
    expect(ready?.message).toMatch(/revision 3 \(3\.0\.0\) is still deployed/);
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')?.status).toBe('True');
    const history = await storage.history(namespace, 'unicorn');
    expect(history.deployed).toMatchObject({ revision: 3, chartVersion: '3.0.0' });
    expect(history.latest).toMatchObject({ revision: 4, status: 'failed' });
  });

  it('reads as a person reads it: kubectl wait, kubectl get columns, Events', async () => {
    const kubectl = (...args: string[]) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, '-n', namespace, ...args], { reject: false });
    const waited = await kubectl('wait', '--for=condition=Stalled', 'hcr/unicorn', '--timeout=10s');
    expect(waited.exitCode, waited.stderr).toBe(0);
    const table = await kubectl('get', 'hcr');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+READY\s+SUSPENDED\s+STATUS\s+CHART\s+VERSION\s+REVISION\s+IMAGE\s+AGE$/);
    expect(table.stdout).toMatch(/unicorn\s+False\s+Helm upgrade to unicorn@4\.0\.0 failed/);
    const wanted = ['Normal InstallSucceeded', 'Normal UpgradeSucceeded', 'Warning UpgradeFailed'];
    expect(await waitForEvents(kubeConfig, namespace, 'unicorn', wanted)).toEqual(expect.arrayContaining(wanted));
  });

  it('a failed upgrade is not repeated by itself; declaring green again re-applies it once', async () => {
    const upgradesAfterFailure = await ctl.helm.count('upgrade');
    // periodic checks (interval 1s) come and go: the failed spec is not retried
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await ctl.helm.count('upgrade')).toBe(upgradesAfterFailure);

    const generation = await declare('3.0.0');
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(await ctl.helm.count('upgrade')).toBe(upgradesAfterFailure + 1);
    const history = await storage.history(namespace, 'unicorn');
    expect(history.deployed).toMatchObject({ revision: 5, chartVersion: '3.0.0' });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    const waited = await execa(
      env.kubectlBin,
      ['--kubeconfig', env.kubeconfig, '-n', namespace, 'wait', '--for=condition=Ready', 'hcr/unicorn', '--timeout=10s'],
      { reject: false },
    );
    expect(waited.exitCode, waited.stderr).toBe(0);
  });
});
