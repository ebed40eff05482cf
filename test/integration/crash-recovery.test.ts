import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';
import { eventually } from '../support/eventually.js';

/** A helm process killed mid-upgrade leaves the release pending-upgrade; helmcrew recovers it once its holder is surely gone. */
describe('a release left pending by a helm process that died', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const { namespace, ctl } = namespaceWithController('crash');

  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'phoenix', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '3s' }));

  it('waits while the lock is fresh, then marks it failed and upgrades', async () => {
    await waitForReconciled(kubeConfig, namespace, 'phoenix', await declare('1.0.0'));
    await ctl.stop();
    const pendingRevision = await leavePendingUpgrade(kubeConfig, namespace, 'phoenix', 1, new Date());

    // The state is the real blocking one: helm itself refuses to touch the release.
    const refused = await execa(env.helmBin, ['upgrade', 'phoenix', 'unicorn', '--repo', env.chartRepoUrl, '--version', '2.0.0', '-n', namespace], {
      env: { KUBECONFIG: env.kubeconfig },
      reject: false,
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/another operation \(install\/upgrade\/rollback\) is in progress/);

    await ctl.start();
    const generation = await declare('2.0.0');

    // Fresh lock (timeout 3s + 10s grace): the controller waits and starts no helm.
    await eventually(
      async () =>
        expect((await api.get(namespace, 'phoenix'))?.status?.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
          status: 'True',
          reason: 'ReleaseLocked',
          message: expect.stringMatching(/pending-upgrade/),
        }),
      { timeoutMs: 10_000 },
    );
    expect(await ctl.helm.count('upgrade')).toBe(0);

    // Once stale, it is unlocked and the upgrade goes through.
    const release = await waitForReconciled(kubeConfig, namespace, 'phoenix', generation, 90_000);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    const history = await storage.history(namespace, 'phoenix');
    expect(history.releases.find((r) => r.revision === pendingRevision)?.status).toBe('failed');
    expect(history.deployed).toMatchObject({ revision: pendingRevision + 1, chartVersion: '2.0.0' });
    expect(await ctl.helm.count('upgrade')).toBe(1);

    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=phoenix' });
    expect(events.items.map((e) => e.reason)).toContain('ReleaseUnlocked');
  });
});
