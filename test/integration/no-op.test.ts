import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { describe, it } from 'vitest';
import type { HistoryEntry } from '../../src/api/helmrelease-status.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { historyFromStorage } from '../../src/controller/status/release-status.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { expectQuietAcrossChecks, waitForCheckBegunNow, waitForChecks } from '../support/checks.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Issue 2, shown 2, and issue 9: when nothing changed, no helm process starts and nothing is written. */
describe('a release in sync', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);

  // Two controllers, each with its own namespace, helm shim and ledger: the groups run side by side
  // (describe.concurrent), the tests of a group in order (it.sequential), so each helm count and
  // each quiet stretch below is still about its own group only.
  describe.concurrent('one release: re-applied, changed, upgraded by hand', () => {
    const { namespace, ctl } = namespaceWithController('noop');

    it.sequential('re-applying the same spec and periodic checks start no helm process and write nothing', async ({ expect }) => {
      const spec = {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' },
        interval: '1s',
        values: { replicaCount: 2, message: 'steady' },
      };
      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
      const installed = await waitForReconciled(kubeConfig, namespace, 'steady', generation);
      expect(installed.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(await ctl.helm.count('install')).toBe(1);

      // The same spec again: the server keeps the generation, and the controller starts no helm.
      const again = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
      expect(again).toBe(generation);
      // The baseline is taken after a whole check begun now: past the install's own follow-up passes.
      await waitForCheckBegunNow(env.redisUrl, ctl.prefix, [`${namespace}/steady`]);
      const helmRunsBefore = (await ctl.helm.invocations()).length;
      const before = await api.get(namespace, 'steady');

      // Several periodic checks (interval 1s) happen — each recorded in the check ledger in Redis —
      // and none starts helm or writes the HelmRelease.
      const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/steady`], 4, 20_000);
      expect(checks.get(`${namespace}/steady`)!.size).toBeGreaterThanOrEqual(4);
      expect((await ctl.helm.invocations()).length).toBe(helmRunsBefore);
      const after = await api.get(namespace, 'steady');
      expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
      expect(after?.status).toEqual(before?.status);
    });

    it.sequential('a values change is an upgrade, decided without helm and done with exactly one', async ({ expect }) => {
      const before = (await ctl.helm.invocations()).length;
      const spec = {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' },
        interval: '1s',
        values: { replicaCount: 2, message: 'changed' },
      };
      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'steady', spec));
      const release = await waitForReconciled(kubeConfig, namespace, 'steady', generation);
      expect(release.status?.history?.[0]).toMatchObject({ revision: 2, status: 'deployed' });
      const invocations = (await ctl.helm.invocations()).slice(before);
      // the chart archive is cached from the install, so the upgrade is the only helm process
      expect(invocations.map((args) => args[0])).toEqual(['upgrade']);
      // The API server validates what helm applies; helm's own OpenAPI check is left out (issue 9).
      expect(invocations[0]).toContain('--disable-openapi-validation');
    });

    it.sequential('a release upgraded by hand with helm is put back by the next periodic check', async ({ expect }) => {
      const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1s', values: { replicaCount: 0 } };
      await waitForReconciled(kubeConfig, namespace, 'handled', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'handled', spec)));
      await waitForCheckBegunNow(env.redisUrl, ctl.prefix, [`${namespace}/handled`]);
      const upgradesBefore = await ctl.helm.count('upgrade');
      await execa(env.helmBin, ['upgrade', 'handled', 'unicorn', '--repo', env.chartRepoUrl, '--version', '2.0.0', '--reuse-values', '-n', namespace], {
        env: { KUBECONFIG: env.kubeconfig },
      });
      const storage = new ReleaseStorage(kube);
      const history = await eventually(
        async () => {
          const found = await storage.history(namespace, 'handled');
          expect(found.deployed?.revision).toBe(3);
          return found;
        },
        { timeoutMs: 20_000 },
      );
      expect(history.releases.map((r) => [r.revision, r.status, r.chartVersion])).toEqual([
        [3, 'deployed', '1.0.0'],
        [2, 'superseded', '2.0.0'],
        [1, 'superseded', '1.0.0'],
      ]);
      expect(await ctl.helm.count('upgrade')).toBe(upgradesBefore + 1);
    });
  });

  describe.concurrent('many at rest, a problem found again, the history derived', () => {
    const { namespace, ctl } = namespaceWithController('noop');

    it.sequential('many in-sync releases at rest: checked every interval, 0 HelmRelease writes, 0 helm processes', async () => {
      const names = Array.from({ length: 6 }, (_, i) => `rest-${i}`);
      const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1s', values: { replicaCount: 0 } };
      const generations = await Promise.all(names.map((n) => applyHelmRelease(kubeConfig, helmReleaseObject(namespace, n, spec))));
      for (const [i, n] of names.entries()) await waitForReconciled(kubeConfig, namespace, n, generations[i]!);
      await expectQuietAcrossChecks({ redisUrl: env.redisUrl, prefix: ctl.prefix, helm: ctl.helm, api, namespace, names, times: 4, timeoutMs: 30_000 });
    });

    it.sequential('a problem found again by each periodic check is reported once: no further writes, no second Event', async ({ expect }) => {
      const spec = {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
        interval: '1s',
        valuesFrom: [{ kind: 'ConfigMap' as const, name: 'not-there' }],
      };
      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'broken', spec));
      const reported = await waitForReconciled(kubeConfig, namespace, 'broken', generation);
      expect(reported.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ValuesInvalid' });
      await waitForCheckBegunNow(env.redisUrl, ctl.prefix, [`${namespace}/broken`]);
      const before = await api.get(namespace, 'broken');
      const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/broken`], 4, 20_000);
      expect(checks.get(`${namespace}/broken`)!.size).toBeGreaterThanOrEqual(4);
      expect((await api.get(namespace, 'broken'))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
      const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=broken' });
      expect(events.items.filter((e) => e.reason === 'ValuesInvalid').map((e) => e.count ?? 1)).toEqual([1]);
    });

    it.sequential(
      'the history written after an upgrade, worked out without reading storage, is what storage holds: the next checks write nothing',
      async ({ expect }) => {
        const spec = (version: string) => ({
          chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
          interval: '1s',
          values: { replicaCount: 0, message: version },
        });
        for (const version of ['1.0.0', '2.0.0'])
          await waitForReconciled(kubeConfig, namespace, 'derived', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'derived', spec(version))));
        const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'derived', spec('3.0.0')));
        const release = await waitForReconciled(kubeConfig, namespace, 'derived', generation);
        // This reader's digest key is not the controller's: compare everything but the digests.
        const withoutDigests = (entries: HistoryEntry[]) => entries.map(({ valuesDigest: _digest, ...entry }) => entry);
        const stored = historyFromStorage(await new ReleaseStorage(kube).history(namespace, 'derived'));
        expect(stored.map((e) => [e.revision, e.status])).toEqual([
          [3, 'deployed'],
          [2, 'superseded'],
          [1, 'superseded'],
        ]);
        expect(withoutDigests(release.status!.history!)).toEqual(withoutDigests(stored));
        // A check that read anything else (a digest, a date) would write the status again.
        const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/derived`], 3, 20_000);
        expect(checks.get(`${namespace}/derived`)!.size).toBeGreaterThanOrEqual(3);
        expect((await api.get(namespace, 'derived'))?.metadata.resourceVersion).toBe(release.metadata.resourceVersion);
      },
    );
  });
});
