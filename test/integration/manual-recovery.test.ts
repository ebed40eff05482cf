import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FORCE_AT_ANNOTATION, RESET_AT_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { JOBS_CHART, startTestChartRepo, type TestChartRepo } from '../support/job-chart.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 24: RetryOnFailure retries a failing upgrade with no rollback; forceAt reruns a failed
 * upgrade with no spec change; resetAt restarts the retries. The failure comes from outside the
 * spec — a ResourceQuota that refuses the upgrade's new Job — so it can be fixed without one.
 */
describe('retries without rollback and manual recovery', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const storage = new ReleaseStorage(kube);
  const api = new HelmReleaseApi(kube);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const { namespace, ctl } = namespaceWithController('recovery');
  let repo: TestChartRepo;
  beforeAll(async () => {
    repo = await startTestChartRepo(env.helmBin, [JOBS_CHART]);
  });
  afterAll(async () => repo?.close());
  // A test that fails half-way must not leave the next one unable to create Jobs.
  afterEach(async () => allowJobs().catch(() => undefined));

  const ready = (release: HelmRelease | undefined) => release?.status?.conditions?.find((c) => c.type === 'Ready');
  const upgrades = async (name: string) => (await ctl.helm.invocations()).filter((args) => args[0] === 'upgrade' && args[1] === name).length;
  const declare = async (name: string, run: number, spec: Partial<HelmReleaseSpec>) => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { repository: repo.url, name: JOBS_CHART.name, version: JOBS_CHART.version },
        timeout: '60s',
        interval: '1h',
        values: { job: { run } },
        ...spec,
      }),
    );
    return generation;
  };
  /** No new Job may be created in the namespace: the upgrade's job-<run+1> is refused by the API server. */
  const blockNewJobs = async () => {
    const jobs = (await batch.listNamespacedJob({ namespace })).items.length;
    await core.createNamespacedResourceQuota({ namespace, body: { metadata: { name: 'no-new-jobs' }, spec: { hard: { 'count/jobs.batch': String(jobs) } } } });
    // Admission counts usage from the quota's status, which the quota controller fills in.
    await pollUntil(
      async () => ((await core.readNamespacedResourceQuota({ namespace, name: 'no-new-jobs' })).status?.used ? true : undefined),
      { timeoutMs: 30_000 },
      () => 'the quota controller never computed the quota usage',
    );
  };
  const allowJobs = () => core.deleteNamespacedResourceQuota({ namespace, name: 'no-new-jobs' });
  const waitFor = <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 90_000) => pollUntil(read, { timeoutMs }, () => what);
  const release = (name: string) => api.get(namespace, name);

  it('RetryOnFailure: the failing upgrade is tried again every retryInterval, never rolled back, and succeeds once the cause is gone', async () => {
    const spec: Partial<HelmReleaseSpec> = { upgrade: { strategy: { name: 'RetryOnFailure', retryInterval: '2s' } } };
    expect(ready(await waitForReconciled(kubeConfig, namespace, 'retry', await declare('retry', 1, spec)))).toMatchObject({ status: 'True' });
    await blockNewJobs();
    await declare('retry', 2, spec);
    const started = Date.now();
    await waitFor('three failed upgrades', async () => ((await upgrades('retry')) >= 3 ? true : undefined));
    // two retries came about retryInterval apart (not immediately, not after a long backoff)
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    const failing = await release('retry');
    expect(ready(failing)?.status).not.toBe('True'); // False, or Unknown while the next attempt runs
    expect(failing?.status?.upgradeFailures).toBeGreaterThanOrEqual(2);
    expect(failing?.status?.lastRemediation).toBeUndefined();

    await allowJobs();
    await waitFor('the upgrade to succeed', async () => (ready(await release('retry'))?.reason === 'UpgradeSucceeded' ? true : undefined));
    const history = await storage.history(namespace, 'retry');
    // revision 1 installed, the failed attempts, then the one that went through: no rollback anywhere
    expect(history.deployed?.config).toMatchObject({ job: { run: 2 } });
    expect(history.releases.filter((r) => r.status === 'failed').length).toBeGreaterThanOrEqual(2);
    expect(history.releases.some((r) => /rollback/i.test(r.description ?? ''))).toBe(false);
    expect(await ctl.helm.count('rollback')).toBe(0);
  });

  it('forceAt reruns a failed upgrade with no spec change, once', async () => {
    expect(ready(await waitForReconciled(kubeConfig, namespace, 'force', await declare('force', 1, {})))).toMatchObject({ status: 'True' });
    await blockNewJobs();
    const failed = await waitForReconciled(kubeConfig, namespace, 'force', await declare('force', 2, {}));
    expect(ready(failed)).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    await allowJobs();
    const before = await upgrades('force');
    // Proves that nothing happens: a failed spec is not retried by itself.
    await sleep(3000);
    expect(await upgrades('force')).toBe(before);

    await api.patchIntent(namespace, 'force', { metadata: { annotations: { [FORCE_AT_ANNOTATION]: '2026-11-25T12:00:00Z' } } }, 'test');
    const forced = await waitFor('the forced upgrade', async () => {
      const r = await release('force');
      return ready(r)?.reason === 'UpgradeSucceeded' ? r : undefined;
    });
    expect(forced.status?.lastHandledForceAt).toBe('2026-11-25T12:00:00Z');
    expect(await upgrades('force')).toBe(before + 1);
    expect((await storage.history(namespace, 'force')).deployed?.config).toMatchObject({ job: { run: 2 } });
  });

  it('resetAt restarts the retries of a release that ran out of them', async () => {
    const spec: Partial<HelmReleaseSpec> = { upgrade: { remediation: { retries: 1, strategy: 'rollback' } } };
    expect(ready(await waitForReconciled(kubeConfig, namespace, 'reset', await declare('reset', 1, spec)))).toMatchObject({ status: 'True' });
    await blockNewJobs();
    await declare('reset', 2, spec);
    const stalled = await waitFor('retries exhausted', async () => {
      const r = await release('reset');
      return r?.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True' && c.reason === 'RetriesExceeded') ? r : undefined;
    });
    expect(stalled.status?.upgradeFailures).toBe(2);
    const exhausted = await upgrades('reset');
    expect(exhausted).toBe(2);

    await api.patchIntent(namespace, 'reset', { metadata: { annotations: { [RESET_AT_ANNOTATION]: 'first' } } }, 'test');
    await waitFor('the retries to start again', async () => ((await upgrades('reset')) >= exhausted + 2 ? true : undefined));
    const again = await waitFor('retries exhausted again', async () => {
      const r = await release('reset');
      return r?.status?.lastHandledResetAt === 'first' && r.status.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True') ? r : undefined;
    });
    expect(again.status?.upgradeFailures).toBe(2);
  });
});
