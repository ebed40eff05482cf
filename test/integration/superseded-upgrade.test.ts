import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Issue 8: a new spec never waits behind a doomed `--wait` upgrade. */
describe('a doomed --wait upgrade, then a fixed spec', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const storage = new ReleaseStorage(kube);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('supersede');
  const declare = (values: Record<string, unknown>, extra: Partial<HelmReleaseSpec> = {}) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' }, timeout: '3m', values, ...extra }),
    );

  it('the fix is applied within seconds, with exactly one new revision, and no rollback', async () => {
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare({}));
    // No node has this label: the new Pod stays Pending and helm --wait would wait the whole 3 minutes.
    await declare({ nodeSelector: { pool: 'nowhere' } }, { upgrade: { remediation: { retries: 0 } } });
    await eventually(async () => expect((await storage.history(namespace, 'unicorn')).latest).toMatchObject({ revision: 2, status: 'pending-upgrade' }), {
      timeoutMs: 30_000,
    });
    // helm has applied the new Deployment and waits for its Pod, which stays Pending (was a fixed 1.5 s sleep).
    await eventually(async () => {
      const { items } = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
      expect(items.filter((p) => p.spec?.nodeSelector?.pool === 'nowhere').map((p) => p.status?.phase)).toContain('Pending');
    });

    const changedAt = Date.now();
    const fixed = await declare({ message: 'fixed' }, { upgrade: { remediation: { retries: 0 } } });
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', fixed, 60_000);
    const tookMs = Date.now() - changedAt;
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(tookMs).toBeLessThan(20_000);

    const history = await storage.history(namespace, 'unicorn');
    // 2: the doomed upgrade, stopped; 3: the fix, the only new revision; nothing pending, no rollback.
    expect(history.releases.map((r) => [r.revision, r.status])).toEqual([
      [3, 'deployed'],
      [2, 'failed'],
      [1, 'superseded'],
    ]);
    expect(history.deployed?.config).toEqual({ message: 'fixed' });
    expect(await ctl.helm.count('upgrade')).toBe(2);
    expect(await ctl.helm.count('rollback')).toBe(0);
    expect(release.status?.conditions?.find((c) => c.type === 'Remediated')).toBeUndefined();
    expect(release.status?.upgradeFailures ?? 0).toBe(0);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    expect((await api.get(namespace, 'unicorn'))?.status?.conditions?.find((c) => c.type === 'Stalled')).toBeUndefined();
  });
});
