import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { mergePatch } from '../../src/core/kube/kube-clients.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { startWidgetRepo, type WidgetRepo } from '../support/widget-chart.js';
import { memoryLogger } from '../support/notify-fixtures.js';

/** Issue 34: spec.healthCheckExprs judge a chart's custom resource while the install waits. */
describe('healthCheckExprs', () => {
  const { env, kubeConfig } = testEnv();
  const logs = memoryLogger('health');
  const { namespace, ctl } = namespaceWithController('health', {}, logs.log);
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  let repo: WidgetRepo;
  beforeAll(async () => {
    repo = await startWidgetRepo(env.helmBin, `${uniqueName('w')}.helmcrew.test`);
  });
  afterAll(async () => {
    await kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: repo.crdName })
      .catch(() => undefined);
    await repo.close();
  });

  const rules = (over: Record<string, string> = {}) => [
    {
      apiVersion: `${repo.group}/v1`,
      kind: 'Widget',
      current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
      failed: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason == 'Broken')",
      ...over,
    },
  ];
  const declare = (name: string, spec: Partial<HelmReleaseSpec>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { repository: repo.url, name: 'widget', version: '1.0.0' }, timeout: '60s', interval: '1h', ...spec }),
    );
  const widgetExists = (name: string) =>
    eventually(() => custom.getNamespacedCustomObject({ group: repo.group, version: 'v1', namespace, plural: 'widgets', name }), { timeoutMs: 60_000 });
  const setWidgetReady = (name: string, status: 'True' | 'False', reason: string) =>
    custom.patchNamespacedCustomObjectStatus(
      {
        group: repo.group,
        version: 'v1',
        namespace,
        plural: 'widgets',
        name,
        body: { status: { conditions: [{ type: 'Ready', status, reason, message: `set by the test: ${reason}` }] } },
      },
      mergePatch,
    );
  const condition = (r: HelmRelease | undefined, type: string) => r?.status?.conditions?.find((c) => c.type === type);

  it('the install stays in progress after helm is done until the Widget is current, then succeeds', async () => {
    await declare('ok', { healthCheckExprs: rules() });
    await widgetExists('ok');
    // helm has written the release (deployed: its own wait has nothing to wait for on a Widget) …
    await eventually(async () => expect((await storage.history(namespace, 'ok')).latest?.status).toBe('deployed'), { timeoutMs: 60_000 });
    // … yet the attempt is not over: the Widget has no status, so `current` is not true.
    const waiting = await api.get(namespace, 'ok');
    expect(condition(waiting, 'Reconciling')).toMatchObject({ status: 'True', reason: 'Installing' });
    expect(condition(waiting, 'Ready')?.status).not.toBe('True');
    await setWidgetReady('ok', 'True', 'Running');
    const { release } = await waitForReadyReason(kubeConfig, namespace, 'ok', 'InstallSucceeded', { timeoutMs: 60_000 });
    expect(condition(release, 'Ready')?.status).toBe('True');
  });

  it('fails the install when `failed` holds, naming the object and the expression', async () => {
    await declare('broken', { healthCheckExprs: rules() });
    await widgetExists('broken');
    // Broken once helm is done: helm's own wait (kstatus) knows nothing of the expressions, and a
    // Widget that turns Ready=False while it still waits holds it to spec.timeout (docs/release.md).
    await eventually(async () => expect((await storage.history(namespace, 'broken')).latest?.status).toBe('deployed'), { timeoutMs: 60_000 });
    await setWidgetReady('broken', 'False', 'Broken');
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'broken', 'InstallFailed', { timeoutMs: 60_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(
      `healthCheckExprs: failed: Widget ${namespace}/broken: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason == 'Broken')" is true`,
    );
  });

  it('an object that fails while helm still waits stops helm: the install fails with the expression, not at helm’s timeout', async () => {
    // The claim is never bound here: helm waits on it for the whole 60 s.
    await declare('held', { healthCheckExprs: rules(), values: { holdWait: true } });
    await widgetExists('held');
    await eventually(async () => expect((await storage.history(namespace, 'held')).latest?.status).toBe('pending-install'), { timeoutMs: 60_000 });
    await setWidgetReady('held', 'False', 'Broken');
    // Well inside helm's 60 s: judged while it waited, and helm stopped.
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'held', 'InstallFailed', { timeoutMs: 40_000 });
    expect(ready.message).toContain(
      `healthCheckExprs: failed: Widget ${namespace}/held: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason == 'Broken')" is true`,
    );
    expect(logs.lines.some((l) => l.includes('an object failed while helm waited; stopping helm'))).toBe(true);
    // The stopped helm is a failure in helm's own log line (and metrics), not a cancel for a newer spec.
    expect(logs.lines.some((l) => l.includes('"msg":"helm stopped"') && l.includes('"action":"install"'))).toBe(true);
  });

  it('an expression that does not compile is named before helm runs, and nothing is installed', async () => {
    const installs = await ctl.helm.count('install');
    await declare('bad', { healthCheckExprs: rules({ current: "status.conditions.exists(c, c.type == 'Ready'" }) });
    const { release, ready } = await waitForReadyReason(kubeConfig, namespace, 'bad', 'InvalidCELExpression', { timeoutMs: 30_000 });
    expect(ready.message).toMatch(/^spec\.healthCheckExprs\[0\]\.current "status\.conditions\.exists\(c, c\.type == 'Ready'": /);
    expect(condition(release, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidCELExpression' });
    expect(await ctl.helm.count('install')).toBe(installs);
    expect((await storage.history(namespace, 'bad')).latest).toBeUndefined();
  });
});
