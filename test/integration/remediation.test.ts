import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, deploymentAvailable, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { brokenContainerPort } from '../../src/dev/unicorn-versions.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForEvents } from '../support/events.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 8: failures handled without a person, on the real API server, Redis and helm. */
describe('remediation: a broken upgrade is rolled back by itself', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('remedy');
  const condition = (release: { status?: { conditions?: Array<{ type: string }> } }, type: string) => release.status?.conditions?.find((c) => c.type === type);

  const declare = (version: string, extra: Partial<HelmReleaseSpec> = {}) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
        timeout: '90s',
        interval: '1s',
        upgrade: { remediation: { retries: 0, strategy: 'rollback' } },
        ...extra,
      }),
    );

  it('green, then broken 4.0.0: rolled back to green, Remediated=True, Stalled with what to do', async () => {
    const green = await declare('3.0.0');
    expect(condition(await waitForReconciled(kubeConfig, namespace, 'unicorn', green), 'Ready')).toMatchObject({ status: 'True' });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');

    const broken = await declare('4.0.0');
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', broken);
    expect(condition(release, 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    expect(condition(release, 'Ready')).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    const stalled = condition(release, 'Stalled') as { status: string; reason: string; message: string } | undefined;
    expect(stalled).toMatchObject({ status: 'True', reason: 'RetriesExceeded' });
    expect(stalled?.message).toMatch(
      /Upgrade of unicorn@4\.0\.0 failed once \(retries: 0\); revision 3 \(unicorn@3\.0\.0\) is deployed\. No retries left: fix the chart or values and apply a changed spec/,
    );
    expect(release.status?.lastRemediation).toMatchObject({ action: 'rollback', succeeded: true, failure: 1, failedAction: 'upgrade', revision: 3 });

    // Helm: 1 installed green, 2 the failed 4.0.0, 3 the rollback to 1
    const history = await storage.history(namespace, 'unicorn');
    expect(history.releases.map((r) => [r.revision, r.chartVersion, r.status])).toEqual([
      [3, '3.0.0', 'deployed'],
      [2, '4.0.0', 'failed'],
      [1, '3.0.0', 'superseded'],
    ]);
    // The half-applied 4.0.0 is gone: the page is green, not gold, and the Deployment is 3.0.0's.
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    const deployment = await kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name: 'unicorn' });
    const ports = deployment.spec?.template.spec?.containers.flatMap((c) => c.ports?.map((p) => p.containerPort) ?? []);
    expect(ports).not.toContain(brokenContainerPort);
    expect(deployment.metadata?.labels?.['app.kubernetes.io/version'] ?? deployment.metadata?.labels?.['helm.sh/chart']).toMatch(/3\.0\.0/);
    expect(await deploymentAvailable(kubeConfig, namespace, 'unicorn')).toBe(true);

    const wanted = ['Warning UpgradeFailed', 'Normal RollbackSucceeded', 'Warning Stalled'];
    expect(await waitForEvents(kubeConfig, namespace, 'unicorn', wanted)).toEqual(expect.arrayContaining(wanted));
    expect(await ctl.helm.count('rollback')).toBe(1);
  });

  it('retries used up: the periodic checks (interval 1s) start no helm and record no second Stalled', async () => {
    const helmBefore = (await ctl.helm.invocations()).length;
    await sleep(4000);
    expect((await ctl.helm.invocations()).length).toBe(helmBefore);
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(events.items.filter((e) => e.reason === 'Stalled')).toHaveLength(1);
  });

  it('a spec fix un-stalls it: one upgrade, Ready, Stalled and the old Remediated gone', async () => {
    const upgrades = await ctl.helm.count('upgrade');
    const fixed = await declare('3.0.0', { values: { message: 'fixed' } });
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', fixed);
    expect(condition(release, 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(condition(release, 'Stalled')).toBeUndefined();
    expect(condition(release, 'Remediated')).toBeUndefined();
    expect(release.status?.upgradeFailures).toBe(0);
    expect(await ctl.helm.count('upgrade')).toBe(upgrades + 1);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
  });
});

describe('remediation: a failing install is retried with backoff, then uninstalled', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('remedy-install');

  it('install.remediation.retries: 2 → three installs, growing waits, uninstalled, Stalled', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'broken', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '4.0.0' },
        timeout: '60s',
        interval: '1s',
        install: { remediation: { retries: 2 } },
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'broken', generation, 120_000);
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'RetriesExceeded' });
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')?.message).toMatch(
      /Install of unicorn@4\.0\.0 failed 3 times \(retries: 2\); nothing is deployed/,
    );
    expect(release.status?.conditions?.find((c) => c.type === 'Remediated')).toMatchObject({ status: 'True', reason: 'UninstallSucceeded' });
    expect(release.status?.installFailures).toBe(3);

    expect(await ctl.helm.count('install')).toBe(3);
    expect(await ctl.helm.count('uninstall')).toBe(3);
    expect((await storage.history(namespace, 'broken')).releases).toEqual([]);
    // Backoff, not a hot loop: each retry waits longer (2 s, then 4 s, after the uninstall).
    const installs = await ctl.helm.startTimes('install');
    const uninstalls = await ctl.helm.startTimes('uninstall');
    expect(installs[1]! - uninstalls[0]!).toBeGreaterThanOrEqual(1500);
    expect(installs[2]! - uninstalls[1]!).toBeGreaterThanOrEqual(3500);
    expect(installs[2]! - installs[1]!).toBeGreaterThan(installs[1]! - installs[0]!);

    // Given up: the periodic checks start no more helm.
    const helmBefore = (await ctl.helm.invocations()).length;
    await sleep(3000);
    expect((await ctl.helm.invocations()).length).toBe(helmBefore);
  });
});

describe('why the rollback matters: without remediation the broken upgrade stays half-applied', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace } = namespaceWithController('remedy-none');

  it('green, then 4.0.0 with no remediation: Helm says revision 1 is deployed, yet the page is gold', async () => {
    const declare = (version: string) =>
      applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s' }),
      );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('3.0.0'));
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('4.0.0'));
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'UpgradeFailed' });
    expect(release.status?.conditions?.find((c) => c.type === 'Remediated')).toBeUndefined();
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('gold');
  });
});
