import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { isMutating, type MutatingCommand } from '../../src/session/grammar/command.js';
import { parseReleaseCommand } from '../../src/session/grammar/parse.js';
import { jsonPatch } from '../../src/core/kube/kube-clients.js';
import { createLogger } from '../../src/core/log.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForChecks } from '../support/checks.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

const IMAGE = 'nginxinc/nginx-unprivileged:1.27-alpine';
const IMAGE_POINTER = '/spec/template/spec/containers/0/image';

/**
 * Issues 19 and 22 together: a drift correction writes to the cluster like a helm action, so a
 * freeze over the release holds it. The drift is reported instead, naming the freeze; when the
 * freeze is lifted the correction goes on.
 */
describe('drift correction under a freeze', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace, ctl } = namespaceWithController('driftfreeze');
  const { api, freezes, ops } = releaseOperations(makeKubeClients(kubeConfig), createLogger('test', 'warn'), 'helmcrew-test');
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const alice = { id: 'slack:UALICE', channel: 'C0INCIDENT' };
  let freezeName = '';
  afterAll(async () => {
    if (freezeName) await freezes.delete(freezeName);
  });

  const command = (text: string): MutatingCommand => {
    const parsed = parseReleaseCommand(text);
    if (!parsed.ok || !isMutating(parsed.command)) throw new Error(`not a mutating command: ${text}`);
    return parsed.command;
  };
  const imageOf = (d: V1Deployment) => d.spec?.template.spec?.containers[0]?.image;
  const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);

  it('a freeze holds the correction (reported, naming the freeze); lifting it puts the image back', async () => {
    const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '2s', driftDetection: { mode: 'enabled' as const } };
    await waitForReconciled(kubeConfig, namespace, 'guarded', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'guarded', spec)));

    const prepared = await ops.prepare(command(`freeze ${namespace} --reason "incident in ${namespace}"`), alice);
    if (!prepared.ok) throw new Error(prepared.message);
    await ops.apply(prepared.action, alice);
    freezeName = prepared.action.freeze!.metadata.name;

    await apps.patchNamespacedDeployment(
      { name: 'guarded', namespace, fieldManager: 'kubectl-edit', body: [{ op: 'replace', path: IMAGE_POINTER, value: 'nginx:edited-during-incident' }] },
      jsonPatch,
    );
    const drifted = await pollUntil(
      async () => {
        const c = condition(await api.get(namespace, 'guarded'), 'Drifted');
        return c?.status === 'True' ? c : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'Drifted=True never appeared',
    );
    expect(drifted.message).toContain(`Deployment ${namespace}/guarded (${IMAGE_POINTER})`);
    expect(drifted.message).toContain(`correction held by`);
    expect(drifted.message).toContain(freezeName);
    // Held across three more checks (interval 2 s): the edit stays.
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/guarded`], 4, 30_000);
    expect(checks.get(`${namespace}/guarded`)!.size).toBeGreaterThanOrEqual(4);
    expect(imageOf(await apps.readNamespacedDeployment({ name: 'guarded', namespace }))).toBe('nginx:edited-during-incident');

    await freezes.delete(freezeName);
    freezeName = '';
    await pollUntil(
      async () => (imageOf(await apps.readNamespacedDeployment({ name: 'guarded', namespace })) === IMAGE ? true : undefined),
      { timeoutMs: 30_000 },
      () => 'the image was not put back after the freeze was lifted',
    );
    // The correction patches the Deployment before it writes its status: the status is waited for, not read once.
    const correction = await pollUntil(
      async () => (await api.get(namespace, 'guarded'))?.status?.lastDriftCorrection ?? undefined,
      { timeoutMs: 10_000 },
      () => 'status.lastDriftCorrection was not written after the image was put back',
    );
    expect(correction).toMatchObject({ succeeded: true });
  });
});
