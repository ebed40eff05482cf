import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { JOBS_CHART, startTestChartRepo, type TestChartRepo } from '../support/job-chart.js';

/** Issue 24: chart hooks can be skipped, and Jobs are waited for until they complete unless disableWaitForJobs. */
describe('action options on a real release', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('actopts');
  let repo: TestChartRepo;
  beforeAll(async () => {
    repo = await startTestChartRepo(env.helmBin, [JOBS_CHART]);
  });
  afterAll(async () => repo?.close());

  const ready = (release: HelmRelease) => release.status?.conditions?.find((c) => c.type === 'Ready');
  const lastArgs = async (verb: string) => (await ctl.helm.invocations()).filter((args) => args[0] === verb).at(-1) ?? [];
  const declare = async (name: string, spec: Partial<HelmReleaseSpec>) => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { repository: repo.url, name: JOBS_CHART.name, version: JOBS_CHART.version }, timeout: '60s', ...spec }),
    );
    return waitForReconciled(kubeConfig, namespace, name, generation, 180_000);
  };

  it('a failing pre-upgrade hook fails the upgrade; upgrade.disableHooks gets past it', async () => {
    expect(ready(await declare('hooks', { values: { job: { run: 1 } } }))).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const failed = await declare('hooks', { values: { job: { run: 1 }, hook: { fails: true }, message: 'changed' } });
    expect(ready(failed)).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    expect(ready(failed)?.message).toMatch(/hook/i);

    const skipped = await declare('hooks', { values: { job: { run: 1 }, hook: { fails: true }, message: 'changed' }, upgrade: { disableHooks: true } });
    expect(ready(skipped)).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(await lastArgs('upgrade')).toContain('--no-hooks');
    expect((await storage.history(namespace, 'hooks')).deployed?.config).toMatchObject({ message: 'changed' });
  });

  it('Jobs are waited for (Flux’s default): a failing Job fails the upgrade', async () => {
    const installed = await declare('jobs', { values: { job: { run: 1 } } });
    expect(ready(installed)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(await lastArgs('install')).toEqual(expect.arrayContaining(['--wait=watcher', '--wait-for-jobs']));

    const failed = await declare('jobs', { values: { job: { run: 2, fails: true } } });
    expect(ready(failed)).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    expect(ready(failed)?.message).toMatch(/Job/);
  });

  it('a Job that never completes: the upgrade waits for it and fails; with disableWaitForJobs it succeeds', async () => {
    // The Job never completes, so the first install fails at its timeout, whatever its length: a short one.
    const waited = await declare('stuck', { values: { job: { run: 1, stuck: true } }, install: { timeout: '6s' } });
    expect(ready(waited)).toMatchObject({ status: 'False', reason: 'InstallFailed' });

    const notWaited = await declare('stuck', { values: { job: { run: 1, stuck: true } }, install: { timeout: '6s', disableWaitForJobs: true } });
    expect(ready(notWaited)).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const install = await lastArgs('install');
    expect(install).toContain('--wait=watcher');
    expect(install).not.toContain('--wait-for-jobs');
  });
});
