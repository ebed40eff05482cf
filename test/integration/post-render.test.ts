import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { waitForReadyReason } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { Redis } from 'ioredis';
import { QueuedPreviews } from '../../src/session/execute/preview-client.js';
import { jsonPatch } from '../../src/core/kube/kube-clients.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { waitForChecks } from '../support/checks.js';
import { startGizmoRepo, type GizmoRepo } from '../support/gizmo-chart.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';

const tolerations = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: gizmo
spec:
  template:
    spec:
      tolerations:
        - { key: dedicated, operator: Equal, value: gizmos, effect: NoSchedule }
`;
const addSetting = `- op: add
  path: /data/mirrored
  value: "yes"
`;
const missingPath = `- op: replace
  path: /spec/strategy/rollingUpdate/maxSurge
  value: 2
`;

/** Issue 24: spec.postRenderers (kustomize patches and images) and spec.commonMetadata reach the live objects. */
describe('post-renderers and common metadata', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, ctl } = namespaceWithController('postrender');
  let repo: GizmoRepo;

  beforeAll(async () => {
    repo = await startGizmoRepo(env.helmBin, `${uniqueName('pr')}.helmcrew.test`);
  });
  afterAll(async () => repo?.close());

  const spec = (over: Partial<HelmReleaseSpec>): HelmReleaseSpec => ({
    chart: { repository: repo.url, name: 'gizmo', version: '1.0.0' },
    releaseName: 'gizmo',
    timeout: '60s',
    install: { crds: 'Skip' },
    ...over,
  });
  const renderers = (extra: HelmReleaseSpec['postRenderers'] = []): HelmReleaseSpec['postRenderers'] => [
    {
      kustomize: {
        patches: [{ patch: tolerations }, { patch: addSetting, target: { kind: 'ConfigMap', name: 'gizmo-settings' } }],
        images: [{ name: 'registry.local/gizmo', newName: 'mirror.local/team/gizmo', newTag: '1.0.0-patched' }],
      },
    },
    ...extra,
  ];
  const declare = (over: Partial<HelmReleaseSpec>) => applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'gizmo', spec(over)));

  it('a patch, an image override and common labels and annotations are on the live objects; changing them upgrades the release', async () => {
    const installed = await waitForReconciled(
      kubeConfig,
      namespace,
      'gizmo',
      await declare({ postRenderers: renderers(), commonMetadata: { labels: { 'cost-center': 'cc-1' }, annotations: { 'team.example/owner': 'gizmos' } } }),
    );
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });

    const deployment = await apps.readNamespacedDeployment({ namespace, name: 'gizmo' });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('mirror.local/team/gizmo:1.0.0-patched');
    expect(deployment.spec?.template.spec?.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'gizmos', effect: 'NoSchedule' }]);
    expect(deployment.metadata?.labels).toMatchObject({ 'cost-center': 'cc-1', app: 'gizmo' });
    expect(deployment.metadata?.annotations).toMatchObject({ 'team.example/owner': 'gizmos' });
    // Flux's common metadata is the objects' own: selectors and pod templates keep the chart's labels.
    expect(deployment.spec?.selector.matchLabels).toEqual({ app: 'gizmo' });
    expect(deployment.spec?.template.metadata?.labels).toEqual({ app: 'gizmo' });
    const settings = await core.readNamespacedConfigMap({ namespace, name: 'gizmo-settings' });
    expect(settings.data).toEqual({ mode: 'plain', mirrored: 'yes' });
    expect(settings.metadata?.labels).toMatchObject({ 'cost-center': 'cc-1' });

    // A change preview renders through the same post-renderers: 2.0.0 differs only in the image
    // tag, which the override pins, so nothing would change.
    const connection = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    const previews = new QueuedPreviews(connection, ctl.prefix, 60_000);
    try {
      expect(await previews.preview({ namespace, name: 'gizmo', version: '2.0.0' })).toMatchObject({ ok: true, lines: ['objects: no change'] });
    } finally {
      await previews.close();
      connection.disconnect();
    }

    // Same chart, same values: only the common metadata changes, and that is an upgrade.
    const relabelled = await waitForReconciled(
      kubeConfig,
      namespace,
      'gizmo',
      await declare({ postRenderers: renderers(), commonMetadata: { labels: { 'cost-center': 'cc-2' } } }),
    );
    expect(relabelled.status?.history?.map((h) => [h.revision, h.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    const after = await apps.readNamespacedDeployment({ namespace, name: 'gizmo' });
    expect(after.metadata?.labels).toMatchObject({ 'cost-center': 'cc-2' });
    expect(after.metadata?.annotations ?? {}).not.toHaveProperty('team.example/owner');

    // An image override changed: upgraded again.
    const retagged = await waitForReconciled(
      kubeConfig,
      namespace,
      'gizmo',
      await declare({
        postRenderers: [{ kustomize: { images: [{ name: 'registry.local/gizmo', newTag: '1.0.1' }] } }],
        commonMetadata: { labels: { 'cost-center': 'cc-2' } },
      }),
    );
    expect(retagged.status?.history?.[0]).toMatchObject({ revision: 3, status: 'deployed' });
    const third = await apps.readNamespacedDeployment({ namespace, name: 'gizmo' });
    expect(third.spec?.template.spec?.containers[0]?.image).toBe('registry.local/gizmo:1.0.1');
    expect(third.spec?.template.spec?.tolerations ?? []).toEqual([]);
  });

  it('a patch that does not apply: Ready=False naming the patch, and nothing else changes', async () => {
    const before = await api.get(namespace, 'gizmo');
    const revision = before?.status?.history?.[0]?.revision;
    await declare({
      postRenderers: renderers([{ kustomize: { patches: [{ patch: missingPath, target: { kind: 'Deployment', name: 'gizmo' } }] } }]),
    });
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'gizmo', 'UpgradeFailed', { timeoutMs: 90_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('spec.postRenderers[1].kustomize.patches[0] (target kind=Deployment, name=gizmo) does not apply');
    expect(ready.message).toContain('/spec/strategy/rollingUpdate/maxSurge');
    const after = await api.get(namespace, 'gizmo');
    // helm failed while rendering: it wrote no revision.
    expect(after?.status?.history?.[0]?.revision).toBe(revision);
  });

  it('drift detection compares with the post-rendered manifest: nothing drifts, and a hand edit goes back to the override', async () => {
    const name = 'watched';
    const s: HelmReleaseSpec = {
      ...spec({
        postRenderers: [{ kustomize: { images: [{ name: 'registry.local/gizmo', newName: 'mirror.local/team/gizmo', newTag: '1.0.0-patched' }] } }],
        commonMetadata: { labels: { 'cost-center': 'cc-1' } },
      }),
      releaseName: name,
      interval: '2s',
      driftDetection: { mode: 'enabled' },
    };
    const installed = await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, s)));
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/${name}`], 3, 30_000);
    expect(checks.get(`${namespace}/${name}`)!.size).toBeGreaterThanOrEqual(3);
    const settled = await api.get(namespace, name);
    expect(settled?.status?.conditions?.find((c) => c.type === 'Drifted')).toBeUndefined();
    expect(settled?.status?.lastDriftCorrection).toBeUndefined();

    await apps.patchNamespacedDeployment(
      { name, namespace, fieldManager: 'kubectl-edit', body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:by-hand' }] },
      jsonPatch,
    );
    const image = await pollUntil(
      async () => {
        const live = (await apps.readNamespacedDeployment({ namespace, name })).spec?.template.spec?.containers[0]?.image;
        return live === 'nginx:by-hand' ? undefined : live;
      },
      { timeoutMs: 30_000 },
      () => 'the hand edit was not corrected',
    );
    expect(image).toBe('mirror.local/team/gizmo:1.0.0-patched');
  });
});
