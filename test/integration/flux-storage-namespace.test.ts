import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { rollbackPatch } from '../../src/session/plan/intents.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { fluxOriginLabelsPlugin } from '../support/flux.js';
import { deleteNamespace, freshNamespace, namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';

/**
 * Issue 34: a Flux release whose records live in another namespace (spec.storageNamespace, by
 * default the Flux HelmRelease's) is handed over by moving its records to the namespace helm uses;
 * helmcrew then upgrades it with its history (revisions continue) and rolls it back. Flux objects
 * are read from a file (no Flux CRDs needed); the records are the cluster's.
 */
describe('Flux storageNamespace hand-over', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(kube);
  // The Flux HelmRelease's namespace, where Flux kept the records, and where the helmcrew HelmRelease goes.
  const { namespace: fluxNs } = namespaceWithController('fluxstore');
  let target = '';
  const file = join(tmpdir(), `${uniqueName('flux-storage')}.yaml`);
  const unsuspendedFile = join(tmpdir(), `${uniqueName('flux-storage-active')}.yaml`);

  const helm = (args: string[], extraEnv: Record<string, string> = {}) => execa(env.helmBin, args, { env: { KUBECONFIG: env.kubeconfig, ...extraEnv } });
  const importFlux = (args: string[]) =>
    runHelmcrewCli(['import', 'flux', ...args], {
      env: { KUBECONFIG: env.kubeconfig, LOG_LEVEL: 'warn' },
      timeout: 120_000,
    });
  const recordsIn = async (namespace: string) =>
    (await core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm,name=moved' })).items.map((s) => s.metadata!.name!).sort();

  beforeAll(async () => {
    target = await freshNamespace(kubeConfig, 'fluxtarget');
    const flux = (suspend: boolean) => [
      { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: 'charts', namespace: fluxNs }, spec: { url: env.chartRepoUrl } },
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'moved', namespace: fluxNs },
        spec: {
          interval: '1m',
          suspend,
          releaseName: 'moved',
          targetNamespace: target,
          chart: { spec: { chart: 'unicorn', version: '1.0.0', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
          values: { message: 'from flux' },
        },
      },
    ];
    await writeFile(
      file,
      flux(true)
        .map((o) => stringify(o))
        .join('---\n'),
    );
    await writeFile(
      unsuspendedFile,
      flux(false)
        .map((o) => stringify(o))
        .join('---\n'),
    );
    // As Flux leaves it: objects in the target namespace carrying its origin labels, two revisions,
    // their records in the Flux HelmRelease's namespace (helm's CLI cannot split the two: installed
    // in the target, the records are then moved where Flux keeps them).
    const plugin = await fluxOriginLabelsPlugin();
    for (const [verb, version] of [
      ['install', '1.0.0'],
      ['upgrade', '2.0.0'],
    ] as const) {
      await helm(
        [
          verb,
          'moved',
          'unicorn',
          '--repo',
          env.chartRepoUrl,
          '--version',
          version,
          '-n',
          target,
          '--set',
          'message=from flux',
          '--wait=watcher',
          '--timeout',
          '2m',
        ].concat(['--post-renderer', plugin.name, '--post-renderer-args', 'moved', '--post-renderer-args', fluxNs]),
        { HELM_PLUGINS: plugin.pluginsDir },
      );
    }
    for (const name of await recordsIn(target)) {
      const secret = await core.readNamespacedSecret({ namespace: target, name });
      await core.createNamespacedSecret({
        namespace: fluxNs,
        body: { metadata: { name, labels: secret.metadata!.labels! }, type: secret.type!, data: secret.data! },
      });
      await core.deleteNamespacedSecret({ namespace: target, name });
    }
  }, 240_000);
  afterAll(async () => {
    if (target) await deleteNamespace(kubeConfig, target);
  });

  it('spec.storageNamespace is accepted only equal to targetNamespace, refused by the API server otherwise', async () => {
    const spec = (storageNamespace: string, targetNamespace?: string) => ({
      chart: { name: 'unicorn', repository: env.chartRepoUrl, version: '1.0.0' },
      storageNamespace,
      ...(targetNamespace ? { targetNamespace } : {}),
      suspend: true,
    });
    await expect(applyHelmRelease(kubeConfig, helmReleaseObject(fluxNs, 'other-store', spec(fluxNs, target)))).rejects.toThrow(
      /storageNamespace must equal targetNamespace \(give both\)/,
    );
    await expect(applyHelmRelease(kubeConfig, helmReleaseObject(fluxNs, 'no-target', spec(fluxNs)))).rejects.toThrow(
      /storageNamespace must equal targetNamespace/,
    );
    expect(await applyHelmRelease(kubeConfig, helmReleaseObject(fluxNs, 'same-store', spec(target, target)))).toBeGreaterThan(0);
  });

  it('--move-records refuses a Flux HelmRelease that is not suspended, and nothing moves', async () => {
    const active = await importFlux(['-f', unsuspendedFile, '--move-records']);
    expect(active.exitCode).toBe(1);
    expect(active.stderr).toContain(`HelmRelease ${fluxNs}/moved → NOT imported`);
    expect(active.stderr).toContain('records not moved: the Flux HelmRelease is not suspended');
    expect(await recordsIn(fluxNs)).toEqual(['sh.helm.release.v1.moved.v1', 'sh.helm.release.v1.moved.v2']);
    expect(await recordsIn(target)).toEqual([]);
  });

  it('--move-records --apply moves the records to the target namespace and hands the release over: the upgrade is revision 3', async () => {
    const applied = await importFlux(['-f', file, '--move-records', '--apply']);
    expect(applied.stderr).toContain(`moved the records of Helm release moved (revisions 1, 2) from ${fluxNs} to ${target}`);
    expect(applied.stderr).toContain(`(takes over Helm release ${target}/moved)`);
    expect(applied.exitCode).toBe(0);
    expect(await recordsIn(fluxNs)).toEqual([]);
    expect(await recordsIn(target)).toEqual(['sh.helm.release.v1.moved.v1', 'sh.helm.release.v1.moved.v2']);

    const release = await new HelmReleaseApi(kube).get(fluxNs, 'moved');
    const reconciled = await waitForReconciled(kubeConfig, fluxNs, 'moved', release!.metadata.generation!, 180_000);
    expect(reconciled.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(reconciled.status?.handover).toMatchObject({ release: `${target}/moved`, revision: 2 });
    expect((await storage.history(target, 'moved')).releases.map((r) => [r.revision, r.status, r.chartVersion])).toEqual([
      [3, 'deployed', '1.0.0'],
      [2, 'superseded', '2.0.0'],
      [1, 'superseded', '1.0.0'],
    ]);
    expect(await servedColor(kubeConfig, target, 'moved')).toBe('pink');
  });

  it('and rolls back through the history Flux wrote: to revision 2 (unicorn 2.0.0) as revision 4', async () => {
    const api = new HelmReleaseApi(kube);
    await api.patchIntent(
      fluxNs,
      'moved',
      rollbackPatch({ id: 'kube:test', name: 'test' }, 'back to Flux 2', 2, uniqueName('rb'), new Date()),
      'helmcrew-test',
    );
    await expect.poll(async () => (await storage.history(target, 'moved')).deployed?.revision, { timeout: 120_000, interval: 500 }).toBe(4);
    const history = await storage.history(target, 'moved');
    expect(history.deployed).toMatchObject({ revision: 4, chartVersion: '2.0.0' });
    expect(await servedColor(kubeConfig, target, 'moved')).toBe('blue');
  });
});
