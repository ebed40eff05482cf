import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { loadKubeConfig, makeKubeClients } from '../../src/core/kube/client.js';
import { isNotFound } from '../../src/core/kube/errors.js';
import { jsonPatch } from '../../src/core/kube/kube-clients.js';
import { createLogger } from '../../src/core/log.js';
import { startExtraCluster, type ExtraCluster } from '../../src/dev/extra-cluster.js';
import { freePort } from '../../src/dev/free-port.js';
import { eventReasons, pollUntil, waitForGone, waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

const IMAGE_POINTER = '/spec/template/spec/containers/0/image';

/**
 * Issue 32 (A): a HelmRelease with spec.kubeConfig acts on a second API server on loopback, its
 * status, Events and notifications at home. The second control plane is started once for the file.
 */
describe('a remote target cluster (spec.kubeConfig)', () => {
  const { env, kubeConfig } = testEnv();
  const home = { core: kubeConfig.makeApiClient(CoreV1Api), apps: kubeConfig.makeApiClient(AppsV1Api) };
  // An unreachable target must not hold a worker or be retried in a storm: short settings, as an operator could set them.
  const { namespace } = namespaceWithController('remote', { HELMCREW_TARGET_CONNECT_TIMEOUT_MS: '1000', HELMCREW_TARGET_RETRY_MS: '2000' });
  let edge: ExtraCluster;
  let edgeKc: KubeConfig;
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'helmcrew-edge-'));
    edge = await startExtraCluster({ name: 'edge', stateDir, log: createLogger('dev', process.env.LOG_LEVEL ?? 'warn') });
    edgeKc = loadKubeConfig(edge.kubeconfig);
  }, 180_000);
  afterAll(async () => {
    await edge?.stop();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  const there = () => ({ core: edgeKc.makeApiClient(CoreV1Api), apps: edgeKc.makeApiClient(AppsV1Api) });
  const putSecret = async (name: string, kubeconfig: string) => {
    const body = { metadata: { name }, stringData: { value: kubeconfig } };
    try {
      await home.core.replaceNamespacedSecret({ namespace, name, body });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await home.core.createNamespacedSecret({ namespace, body });
    }
  };
  const spec = (secret: string, version = '1.0.0', extra: Partial<HelmReleaseSpec> = {}): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
    interval: '2s',
    kubeConfig: { secretRef: { name: secret } },
    // The namespace of the same name is made in the target; no kwok there, so nothing waits for Pods.
    install: { createNamespace: true, disableWait: true },
    upgrade: { disableWait: true },
    ...extra,
  });
  /** Helm's release records of `name` in a cluster (none while the namespace does not exist there). */
  const helmRecords = async (core: CoreV1Api, name: string) => {
    try {
      return (await core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${name}` })).items;
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  };
  const edgeDeployment = (name: string) => there().apps.readNamespacedDeployment({ name, namespace });
  const waitFor = <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000) =>
    pollUntil(read, { timeoutMs }, () => `timed out waiting for ${what}`);

  it('installs, upgrades, corrects drift and uninstalls in the other cluster; status and Events stay home', async () => {
    await putSecret('edge-kubeconfig', edge.kubeconfigText);
    const installed = await waitForReconciled(
      kubeConfig,
      namespace,
      'web',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'web', spec('edge-kubeconfig', '1.0.0', { driftDetection: { mode: 'enabled' } }))),
    );
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect(installed.status?.history?.[0]).toMatchObject({ revision: 1, chartVersion: '1.0.0' });
    // Helm's records and the objects are in the target; nothing of the release at home.
    expect((await helmRecords(there().core, 'web')).length).toBe(1);
    expect((await edgeDeployment('web')).spec?.template.spec?.containers[0]?.image).toBeTruthy();
    expect(await helmRecords(home.core, 'web')).toEqual([]);
    expect((await home.apps.listNamespacedDeployment({ namespace })).items.map((d) => d.metadata?.name)).not.toContain('web');
    expect(await eventReasons(kubeConfig, namespace, 'web')).toContain('Normal InstallSucceeded');

    // Upgrade: a new chart version, written there as revision 2.
    const upgraded = await waitForReconciled(
      kubeConfig,
      namespace,
      'web',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'web', spec('edge-kubeconfig', '2.0.0', { driftDetection: { mode: 'enabled' } }))),
    );
    expect(upgraded.status?.history?.[0]).toMatchObject({ revision: 2, chartVersion: '2.0.0' });
    expect((await helmRecords(there().core, 'web')).length).toBe(2);

    // Drift in the target: a hand edit of the image is put back by the periodic check.
    const image = (await edgeDeployment('web')).spec?.template.spec?.containers[0]?.image;
    await there().apps.patchNamespacedDeployment(
      { name: 'web', namespace, fieldManager: 'kubectl-edit', body: [{ op: 'replace', path: IMAGE_POINTER, value: 'nginx:edited-by-hand' }] },
      jsonPatch,
    );
    await waitFor('the image put back in the target', async () =>
      (await edgeDeployment('web')).spec?.template.spec?.containers[0]?.image === image ? true : undefined,
    );
    await waitFor('a DriftCorrected Event at home', async () =>
      (await eventReasons(kubeConfig, namespace, 'web')).includes('Normal DriftCorrected') ? true : undefined,
    );

    // Uninstall: deleting the HelmRelease at home removes the release there.
    await makeKubeClients(kubeConfig).custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELMRELEASE_PLURAL,
      namespace,
      name: 'web',
    });
    await waitForGone(kubeConfig, namespace, 'web');
    expect(await helmRecords(there().core, 'web')).toEqual([]);
    await expect(edgeDeployment('web')).rejects.toSatisfy(isNotFound);
  });

  it('an unreachable target: Ready=False TargetUnreachable naming the server, a local release still reconciles at once; the rotated Secret is used without a restart', async () => {
    const closedPort = await freePort();
    const broken = parse(edge.kubeconfigText) as { clusters: Array<{ cluster: { server: string } }> };
    broken.clusters[0]!.cluster.server = `https://127.0.0.1:${closedPort}`;
    await putSecret('moving-kubeconfig', stringify(broken));
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'moving', spec('moving-kubeconfig')));
    const started = Date.now();
    const local = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'local', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, install: { disableWait: true } }),
    );
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'moving', 'TargetUnreachable', { timeoutMs: 30_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(`cluster moving-kubeconfig (https://127.0.0.1:${closedPort})`);
    await waitForReconciled(kubeConfig, namespace, 'local', local, 30_000);
    // The local release was not held behind the unreachable one (a helm install takes a few seconds here).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await eventReasons(kubeConfig, namespace, 'moving')).filter((r) => r.endsWith(' TargetUnreachable'))).toEqual(['Warning TargetUnreachable']);

    // The Secret is rotated to a server that answers: the next pass installs there, no restart.
    await putSecret('moving-kubeconfig', edge.kubeconfigText);
    await waitForReadyReason(kubeConfig, namespace, 'moving', 'InstallSucceeded', { timeoutMs: 60_000 });
    expect((await helmRecords(there().core, 'moving')).length).toBe(1);
  });

  it('a kubeconfig that runs an exec plugin is refused (KubeConfigRefused), nothing is run', async () => {
    const withExec = parse(edge.kubeconfigText) as { users: Array<{ user: Record<string, unknown> }> };
    withExec.users[0]!.user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: ['-c', 'touch /tmp/helmcrew-exec-ran'] } };
    await putSecret('exec-kubeconfig', stringify(withExec));
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'exec', spec('exec-kubeconfig')));
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'exec', 'KubeConfigRefused', { timeoutMs: 30_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('runs an exec plugin, which would run a program in the controller');
    expect(ready.message).toContain('HELMCREW_ALLOW_KUBECONFIG_EXEC=true');
    expect(await helmRecords(there().core, 'exec')).toEqual([]);
  });
});
