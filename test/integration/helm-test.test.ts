import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** Issue 8: `helm test` after install and upgrade; a failing test is remediated like a failed upgrade. */
describe('helm test', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('helmtest');
  const condition = (release: HelmRelease, type: string) => release.status?.conditions?.find((c) => c.type === type);
  const reasons = async (name: string) =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.map(
      (e) => `${e.type} ${e.reason}`,
    );
  const declare = (name: string, spec: Partial<HelmReleaseSpec>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' },
        timeout: '60s',
        interval: '1s',
        ...spec,
      }),
    );

  it('test.enable: the install is tested once, TestSuccess=True, Ready', async () => {
    const generation = await declare('unicorn', { test: { enable: true, timeout: '30s' }, upgrade: { remediation: { retries: 0 } } });
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(condition(release, 'TestSuccess')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
    expect(condition(release, 'Ready')).toMatchObject({ status: 'True' });
    expect(release.status?.lastTest).toMatchObject({ revision: 1, succeeded: true });
    expect(await ctl.helm.count('test')).toBe(1);
    expect(await reasons('unicorn')).toEqual(expect.arrayContaining(['Normal InstallSucceeded', 'Normal TestSucceeded']));
    // in sync and tested: the periodic checks do not test again
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ctl.helm.count('test')).toBe(1);
  });

  it('an upgrade whose test fails: TestFailed, rolled back to the tested revision, Stalled', async () => {
    const generation = await declare('unicorn', {
      values: { message: 'untested', test: { kwokExitCode: 1 } },
      test: { enable: true, timeout: '30s' },
      upgrade: { remediation: { retries: 0 } },
    });
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    expect(condition(release, 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
    expect(condition(release, 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    expect(condition(release, 'Ready')).toMatchObject({ status: 'False' });
    expect(condition(release, 'Stalled')).toMatchObject({ status: 'True', reason: 'RetriesExceeded' });
    expect(release.status?.lastTest).toMatchObject({ revision: 2, succeeded: false });
    const history = await storage.history(namespace, 'unicorn');
    // 2 was deployed and failed its test; 3 is the rollback to 1's chart and values
    expect(history.releases.map((r) => [r.revision, r.status])).toEqual([
      [3, 'deployed'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    expect(history.deployed?.config).toEqual({});
    expect(await ctl.helm.count('test')).toBe(2);
    expect(await reasons('unicorn')).toEqual(expect.arrayContaining(['Warning TestFailed', 'Normal RollbackSucceeded', 'Warning Stalled']));
  });

  it('test.ignoreFailures: the test fails, TestSuccess=False, still Ready and nothing undone', async () => {
    const generation = await declare('tolerant', {
      values: { test: { kwokExitCode: 3 } },
      test: { enable: true, ignoreFailures: true, timeout: '30s' },
      upgrade: { remediation: { retries: 0 } },
    });
    const release = await waitForReconciled(kubeConfig, namespace, 'tolerant', generation);
    expect(condition(release, 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
    expect(condition(release, 'Ready')).toMatchObject({ status: 'True', reason: 'TestFailed' });
    expect(condition(release, 'Ready')?.message).toMatch(/ignored: test\.ignoreFailures/);
    expect(condition(release, 'Remediated')).toBeUndefined();
    expect((await storage.history(namespace, 'tolerant')).releases.map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
    expect(await servedColor(kubeConfig, namespace, 'tolerant')).toBe('green');
  });
});
