import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { apiErrorMessage, apiStatusCode } from '../../src/core/kube/errors.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { ListWatch, restWatch } from '../../src/core/kube/watch/list-watch.js';
import { applyHelmRelease, deploymentAvailable, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';
import { eventually, waitForGone, waitForReadyReason } from '../support/eventually.js';

/** Issue 5: a Helm release belongs to the HelmRelease that installed it, and to no other. */
describe('release ownership', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rest = connectKube(env.kubeconfig);
  const { namespace, ctl } = namespaceWithController('owner');

  const chart = (version = '1.0.0') => ({ repository: env.chartRepoUrl, name: 'unicorn', version });
  const remove = (name: string) =>
    kube.custom.deleteNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace, name });
  const eventReasons = async (name: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.map((e) => e.reason);

  it('the release record carries its owner and the timeout its helm ran with (helm 4 --labels)', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'first',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'first', { chart: chart(), releaseName: 'shared', timeout: '4m' })),
    );
    const record = await core.readNamespacedSecret({ namespace, name: 'sh.helm.release.v1.shared.v1' });
    expect(record.metadata?.labels).toMatchObject({
      owner: 'helm',
      'helmcrew.dev/owner-namespace': namespace,
      'helmcrew.dev/owner-name': 'first',
      'helmcrew.dev/timeout-seconds': '240',
    });
  });

  // The holder-recorded timeout itself is table-tested in test/unit/release-state.test.ts; here the
  // pending window is short, so what this shows is ownership: second never touches first's release.
  it('a second HelmRelease naming the same release is refused and never runs helm on it, also while the first one upgrades', async () => {
    const before = (await ctl.helm.invocations()).length;
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'second', { chart: chart('3.0.0'), releaseName: 'shared', timeout: '1s' }));
    const refused = await waitForReadyReason(kubeConfig, namespace, 'second', 'ReleaseOwnedByOther');
    expect(refused.ready).toMatchObject({ status: 'False' });
    expect(refused.ready.message).toMatch(new RegExp(`${namespace}/shared is owned by HelmRelease ${namespace}/first`));
    expect((await ctl.helm.invocations()).slice(before).filter((args) => args[0] !== 'pull')).toEqual([]);

    // first upgrades (helm held 15s before it starts, so the test can watch); second, with
    // timeout 1s, is checked again meanwhile and must neither unlock nor upgrade it.
    await ctl.helm.setUpgradeDelay(15);
    // helm's pending record lives only while it runs (well under a second here): watched, not polled.
    const records = new ListWatch<KubernetesObject>(
      () => rest.request({ method: 'GET', path: `/api/v1/namespaces/${namespace}/secrets`, query: { labelSelector: 'owner=helm,name=shared' } }),
      restWatch(rest, `/api/v1/namespaces/${namespace}/secrets`, undefined, 'owner=helm,name=shared'),
    );
    const pending = new Promise<KubernetesObject>((resolve) => {
      const seen = (obj: KubernetesObject) => obj.metadata?.labels?.status === 'pending-upgrade' && resolve(obj);
      records.on('add', seen);
      records.on('update', seen);
    });
    await records.start();
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'first', { chart: chart('2.0.0'), releaseName: 'shared', timeout: '4m' }),
    );
    const pendingRecord = await Promise.race([pending, new Promise<undefined>((resolve) => setTimeout(resolve, 30_000))]).finally(() => records.stop());
    // A spec change makes the controller look at second again while the upgrade runs.
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'second', { chart: chart('3.0.0'), releaseName: 'shared', timeout: '1s', values: { message: 'mine now' } }),
    );
    // The pending record itself says who holds it and for how long (helm writes the labels before it starts).
    expect(pendingRecord?.metadata?.labels).toMatchObject({
      status: 'pending-upgrade',
      'helmcrew.dev/owner-name': 'first',
      'helmcrew.dev/timeout-seconds': '240',
    });
    const released = await waitForReconciled(kubeConfig, namespace, 'first', generation, 90_000);
    await ctl.helm.setUpgradeDelay(0);
    expect(released.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    const history = await storage.history(namespace, 'shared');
    expect(history.releases.map((r) => [r.revision, r.status, r.chartVersion])).toEqual([
      [2, 'deployed', '2.0.0'],
      [1, 'superseded', '1.0.0'],
    ]);
    expect(await eventReasons('second')).not.toContain('ReleaseUnlocked');
    expect(await ctl.helm.count('upgrade')).toBe(1);
  });

  it('deleting the second HelmRelease leaves the first one’s release installed', async () => {
    await remove('second');
    await waitForGone(kubeConfig, namespace, 'second');
    expect(await ctl.helm.count('uninstall')).toBe(0);
    expect((await storage.history(namespace, 'shared')).deployed).toMatchObject({ revision: 2, chartVersion: '2.0.0' });
    expect(await deploymentAvailable(kubeConfig, namespace, 'shared')).toBe(true);
    expect((await api.get(namespace, 'first'))?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('a release installed by hand (no owner label) is not adopted, upgraded or uninstalled', async () => {
    const byHand = await execa(env.helmBin, ['install', 'handmade', 'unicorn', '--repo', env.chartRepoUrl, '--version', '1.0.0', '-n', namespace], {
      env: { KUBECONFIG: env.kubeconfig },
    });
    expect(byHand.exitCode).toBe(0);
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'handmade', { chart: chart('2.0.0') }));
    const refused = await waitForReadyReason(kubeConfig, namespace, 'handmade', 'ReleaseOwnedByOther');
    expect(refused.ready.message).toMatch(/was not installed by this HelmRelease/);
    await remove('handmade');
    await waitForGone(kubeConfig, namespace, 'handmade');
    expect((await storage.history(namespace, 'handmade')).deployed).toMatchObject({ revision: 1, chartVersion: '1.0.0' });
    expect(await ctl.helm.count('uninstall')).toBe(0);
  });

  it('a pending record is judged by the timeout its holder recorded, not by the observer’s timeout: 1s', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'patient',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'patient', { chart: chart(), timeout: '1s' })),
    );
    // As a helm still running with --timeout 10m would leave it: started 20 s ago, holder's timeout 600 s.
    const pending = await leavePendingUpgrade(kubeConfig, namespace, 'patient', 1, new Date(Date.now() - 20_000), { 'helmcrew.dev/timeout-seconds': '600' });
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'patient', { chart: chart('2.0.0'), timeout: '1s' }));
    // The observer's 1s + 10s grace has long passed; the holder's 600s has not.
    await eventually(
      async () =>
        expect((await api.get(namespace, 'patient'))?.status?.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
          status: 'True',
          reason: 'ReleaseLocked',
        }),
      { timeoutMs: 20_000 },
    );
    // Proves that nothing happens over more checks (resync every 0.5 s, retries with backoff).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await storage.history(namespace, 'patient')).latest).toMatchObject({ revision: pending, status: 'pending-upgrade' });
    expect(await eventReasons('patient')).not.toContain('ReleaseUnlocked');
  });

  it.each([
    { field: 'releaseName', value: 'elsewhere' },
    { field: 'targetNamespace', value: 'elsewhere' },
  ])('$field cannot be added after creation (the rule sits on spec, so it runs when the field was absent)', async ({ field, value }) => {
    const name = `late-${field.toLowerCase()}`;
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: chart(), suspend: true }));
    const error = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: chart(), suspend: true, [field]: value })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, `adding ${field} was accepted`).toBeDefined();
    expect(apiStatusCode(error)).toBe(422);
    expect(apiErrorMessage(error)).toMatch(new RegExp(`spec.${field}: Invalid value.*${field} is immutable`));
  });

  it('removing releaseName after creation is refused too', async () => {
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'named', { chart: chart(), suspend: true, releaseName: 'named-release' }));
    const error = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'named', { chart: chart(), suspend: true })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(apiErrorMessage(error)).toMatch(/releaseName is immutable/);
  });
});
