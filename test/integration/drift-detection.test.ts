import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { DRIFT_CORRECTION_REQUEST_ANNOTATION } from '../../src/api/annotations.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { apiErrorMessage, apiStatusCode } from '../../src/core/kube/errors.js';
import { jsonPatch, mergePatch } from '../../src/core/kube/kube-clients.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { expectQuietAcrossChecks, waitForCheckBegunNow, waitForChecks } from '../support/checks.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

const IMAGE = 'nginxinc/nginx-unprivileged:1.27-alpine';
const IMAGE_POINTER = '/spec/template/spec/containers/0/image';

/** Issue 19: live objects compared with what Helm last applied; warn reports, enabled corrects. */
describe('drift detection', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, ctl } = namespaceWithController('drift');

  // Checks every second: the tests wait for drift to be seen, or for several checks that change nothing.
  const spec = (driftDetection: HelmReleaseSpec['driftDetection'], interval = '1s'): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
    interval,
    values: { replicaCount: 1 },
    driftDetection,
  });
  const install = async (name: string, s: HelmReleaseSpec) =>
    waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, s)));
  const deployment = (name: string) => apps.readNamespacedDeployment({ name, namespace });
  const imageOf = (d: V1Deployment) => d.spec?.template.spec?.containers[0]?.image;
  /** `kubectl edit` of the image: an update under another field manager, which takes the field from helm. */
  const editImage = (name: string, image: string) =>
    apps.patchNamespacedDeployment({ name, namespace, fieldManager: 'kubectl-edit', body: [{ op: 'replace', path: IMAGE_POINTER, value: image }] }, jsonPatch);
  const eventsOf = async (name: string, reason: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.filter((e) => e.reason === reason);
  const waitFor = <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000) =>
    pollUntil(read, { timeoutMs }, () => `timed out waiting for ${what}`);
  const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);

  it('warn: an image edited by hand is reported (Drifted=True, DriftDetected naming the object and field) and left; "Correct now" puts it back', async () => {
    await install('warned', spec({ mode: 'warn' }));
    await editImage('warned', 'nginx:edited-by-hand');
    const drifted = await waitFor('Drifted=True', async () => {
      const release = await api.get(namespace, 'warned');
      return condition(release, 'Drifted')?.status === 'True' ? release : undefined;
    });
    const message = condition(drifted, 'Drifted')!.message;
    expect(message).toContain(`Deployment ${namespace}/warned (${IMAGE_POINTER})`);
    expect(condition(drifted, 'Ready')?.status).toBe('True');
    const detected = await waitFor('a DriftDetected Event', async () =>
      (await eventsOf('warned', 'DriftDetected')).length > 0 ? eventsOf('warned', 'DriftDetected') : undefined,
    );
    expect(detected[0]?.message).toBe(message);
    // Reported, not corrected, and not reported again by the next checks.
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/warned`], 3, 20_000);
    expect(checks.get(`${namespace}/warned`)!.size).toBeGreaterThanOrEqual(3);
    expect(imageOf(await deployment('warned'))).toBe('nginx:edited-by-hand');
    expect((await eventsOf('warned', 'DriftDetected')).map((e) => e.count ?? 1)).toEqual([1]);
    expect((await api.get(namespace, 'warned'))?.metadata.resourceVersion).toBe(drifted.metadata.resourceVersion);

    // The chat button's intent: an annotation the controller honours once.
    await api.patchIntent(namespace, 'warned', { metadata: { annotations: { [DRIFT_CORRECTION_REQUEST_ANNOTATION]: 'req-1' } } }, 'helmcrew-bot');
    const corrected = await waitFor('the correction record', async () => {
      const release = await api.get(namespace, 'warned');
      return release?.status?.lastDriftCorrection?.requestId === 'req-1' ? release : undefined;
    });
    expect(corrected.status?.lastDriftCorrection).toMatchObject({ succeeded: true, revision: 1 });
    expect(condition(corrected, 'Drifted')).toBeUndefined();
    expect(imageOf(await deployment('warned'))).toBe(IMAGE);
    const events = await waitFor('a DriftCorrected Event', async () =>
      (await eventsOf('warned', 'DriftCorrected')).length > 0 ? eventsOf('warned', 'DriftCorrected') : undefined,
    );
    expect(events[0]?.message).toContain(`Deployment ${namespace}/warned (${IMAGE_POINTER})`);
  });

  it('enabled: an image edited by hand is corrected, with a DriftCorrected Event naming the object and field; no helm process', async () => {
    await install('fixed', spec({ mode: 'enabled' }));
    const helmRuns = (await ctl.helm.invocations()).length;
    await editImage('fixed', 'nginx:edited-by-hand');
    await waitFor('the image put back', async () => (imageOf(await deployment('fixed')) === IMAGE ? true : undefined));
    const events = await waitFor('a DriftCorrected Event', async () =>
      (await eventsOf('fixed', 'DriftCorrected')).length > 0 ? eventsOf('fixed', 'DriftCorrected') : undefined,
    );
    expect(events[0]?.message).toBe(`Re-applied revision 1 to Deployment ${namespace}/fixed (${IMAGE_POINTER})`);
    expect((await api.get(namespace, 'fixed'))?.status?.lastDriftCorrection).toMatchObject({ succeeded: true, revision: 1 });
    expect((await ctl.helm.invocations()).slice(helmRuns)).toEqual([]);
    // The corrected fields are helm's again: a later helm upgrade owns them without conflicts.
    const managers = (await deployment('fixed')).metadata?.managedFields?.map((f) => f.manager);
    expect(managers).toContain('helm');
  });

  it('replicas scaled through another field manager, ignored: left alone, also when other drift is corrected', async () => {
    await install('scaled', spec({ mode: 'enabled', ignore: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment' } }] }));
    await apps.patchNamespacedDeployment({ name: 'scaled', namespace, fieldManager: 'autoscaler', body: { spec: { replicas: 3 } } }, mergePatch);
    // The baseline after a whole check that saw the scaled Deployment; then three more checks.
    await waitForCheckBegunNow(env.redisUrl, ctl.prefix, [`${namespace}/scaled`]);
    const before = await api.get(namespace, 'scaled');
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/scaled`], 3, 20_000);
    expect(checks.get(`${namespace}/scaled`)!.size).toBeGreaterThanOrEqual(3);
    expect((await deployment('scaled')).spec?.replicas).toBe(3);
    expect(await eventsOf('scaled', 'DriftCorrected')).toEqual([]);
    expect((await api.get(namespace, 'scaled'))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);

    // Another field drifts: it is put back, the ignored one keeps the autoscaler's value.
    await editImage('scaled', 'nginx:edited-by-hand');
    await waitFor('the image put back', async () => (imageOf(await deployment('scaled')) === IMAGE ? true : undefined));
    expect((await deployment('scaled')).spec?.replicas).toBe(3);
  });

  it('the same scaling without the ignore rule is drift: SSA force-apply would take the field back', async () => {
    await install('scaled-plain', spec({ mode: 'warn' }));
    await apps.patchNamespacedDeployment({ name: 'scaled-plain', namespace, fieldManager: 'autoscaler', body: { spec: { replicas: 3 } } }, mergePatch);
    const drifted = await waitFor('Drifted=True', async () => {
      const release = await api.get(namespace, 'scaled-plain');
      return condition(release, 'Drifted')?.status === 'True' ? release : undefined;
    });
    expect(condition(drifted, 'Drifted')?.message).toBe(`1 object differs from revision 1: Deployment ${namespace}/scaled-plain (/spec/replicas)`);
  });

  it('a deleted managed ConfigMap is recreated', async () => {
    await install('paged', spec({ mode: 'enabled' }));
    const original = await core.readNamespacedConfigMap({ name: 'paged-page', namespace });
    await core.deleteNamespacedConfigMap({ name: 'paged-page', namespace });
    const recreated = await waitFor('the ConfigMap recreated', async () => {
      try {
        return await core.readNamespacedConfigMap({ name: 'paged-page', namespace });
      } catch {
        return undefined;
      }
    });
    expect(recreated.metadata?.uid).not.toBe(original.metadata?.uid);
    expect(recreated.data).toEqual(original.data);
    expect(recreated.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(recreated.metadata?.annotations?.['meta.helm.sh/release-name']).toBe('paged');
    const events = await waitFor('a DriftCorrected Event', async () =>
      (await eventsOf('paged', 'DriftCorrected')).length > 0 ? eventsOf('paged', 'DriftCorrected') : undefined,
    );
    expect(events[0]?.message).toContain(`ConfigMap ${namespace}/paged-page (deleted)`);
  });

  it.each([
    { name: 'bad-mode', driftDetection: { mode: 'sometimes' }, want: /spec.driftDetection.mode: Unsupported value: "sometimes"/ },
    {
      name: 'bad-pointer',
      driftDetection: { mode: 'warn', ignore: [{ paths: ['spec/replicas'] }] },
      want: /spec.driftDetection.ignore\[0\].paths\[0\]: Invalid value/,
    },
    { name: 'no-paths', driftDetection: { mode: 'warn', ignore: [{ paths: [] }] }, want: /spec.driftDetection.ignore\[0\].paths: Invalid value/ },
  ])('malformed drift settings are refused by the API server, naming the field: $name', async ({ name, driftDetection, want }) => {
    const error = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { ...spec(undefined), driftDetection } as unknown as HelmReleaseSpec),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(apiStatusCode(error)).toBe(422);
    expect(apiErrorMessage(error)).toMatch(want);
  });

  it('releases that did not drift: 0 helm processes and 0 HelmRelease writes across three intervals', async () => {
    const names = ['quiet-0', 'quiet-1', 'quiet-2', 'quiet-3'];
    await Promise.all(names.map((n, i) => install(n, spec({ mode: i % 2 === 0 ? 'enabled' : 'warn' }, '1s'))));
    // What other managers add beside the manifest's fields is theirs, not drift: a label and an
    // annotation on a Deployment, a key in a ConfigMap.
    await apps.patchNamespacedDeployment(
      {
        name: 'quiet-0',
        namespace,
        fieldManager: 'other-controller',
        body: { metadata: { labels: { team: 'web' }, annotations: { 'example.com/seen': 'yes' } } },
      },
      mergePatch,
    );
    await core.patchNamespacedConfigMap(
      { name: 'quiet-1-page', namespace, fieldManager: 'other-controller', body: { data: { 'extra.txt': 'added by another tool' } } },
      mergePatch,
    );
    // Quiet from a whole check of each that saw those additions on, across four more.
    await expectQuietAcrossChecks({ redisUrl: env.redisUrl, prefix: ctl.prefix, helm: ctl.helm, api, namespace, names, times: 4, timeoutMs: 30_000 });
    for (const name of names) expect([...(await eventsOf(name, 'DriftDetected')), ...(await eventsOf(name, 'DriftCorrected'))]).toEqual([]);
  });
});
