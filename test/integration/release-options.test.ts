import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Issue 8: install/upgrade.disableWait, upgrade.force and uninstall.keepHistory/timeout reach helm and do what they say. */
describe('release options', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const storage = new ReleaseStorage(kube);
  const { namespace, ctl } = namespaceWithController('options');
  const spec = (values: Record<string, unknown>): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' },
    timeout: '60s',
    values,
    install: { disableWait: true },
    upgrade: { force: true },
    uninstall: { keepHistory: true, timeout: '45s' },
  });
  const lastArgs = async (subcommand: string) => (await ctl.helm.invocations()).filter((args) => args[0] === subcommand).at(-1) ?? [];

  it('install without waiting for readiness, upgrade by replacement', async () => {
    const installed = await waitForReconciled(
      kubeConfig,
      namespace,
      'unicorn',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec({}))),
    );
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(await lastArgs('install')).toContain('--wait=hookOnly');

    const upgraded = await waitForReconciled(
      kubeConfig,
      namespace,
      'unicorn',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec({ color: 'purple' }))),
    );
    expect(upgraded.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    const upgrade = await lastArgs('upgrade');
    expect(upgrade).toContain('--force-replace');
    expect(upgrade).toContain('--wait=watcher');
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('purple');
  });

  it('deleting the HelmRelease uninstalls but keeps Helm’s history (keepHistory), with the uninstall timeout', async () => {
    await kube.custom.deleteNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace, name: 'unicorn' });
    const api = new HelmReleaseApi(kube);
    await eventually(async () => expect(await api.get(namespace, 'unicorn')).toBeUndefined());
    const uninstall = await lastArgs('uninstall');
    expect(uninstall).toContain('--keep-history');
    expect(uninstall.join(' ')).toContain('--timeout 45s');
    const history = await storage.history(namespace, 'unicorn');
    expect(history.latest).toMatchObject({ revision: 2, status: 'uninstalled' });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBeUndefined();
  });
});
