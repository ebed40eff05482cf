import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { isConflict } from '../../src/core/kube/errors.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { FreshReadNeeded, verifyingReleaseWrites } from '../../src/controller/reconcile/ports/cached-read.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';

/**
 * Issue 9: a pass that acts starts from the informer's copy instead of a GET, and its first write
 * carries that copy's resourceVersion. Here the real API server decides: a stale copy's write is
 * refused (409) and changes nothing; a current copy's goes through.
 */
describe('acting from a cached copy', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(slimKubeClients(connectKube(env.kubeconfig)));
  let namespace: string;
  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'cached-pass');
  });
  afterAll(async () => {
    // No controller watches this namespace: the finalizer is taken off by hand.
    const { items } = await api.list(namespace);
    for (const r of items) await api.removeFinalizer(r);
    await deleteNamespace(kubeConfig, namespace);
  });

  const created = async (): Promise<HelmRelease> => {
    const name = uniqueName('copy');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }));
    return (await api.get(namespace, name))!;
  };
  const checked = () => ({ lastReconciledAt: new Date().toISOString() });
  const guardedApi = (copy: HelmRelease) => verifyingReleaseWrites(api, copy.metadata.resourceVersion!).writes;

  it('a status write conditional on an old version is refused with 409; on the current one it is written', async () => {
    const copy = await created();
    const written = await api.patchStatus(copy, checked(), { resourceVersion: copy.metadata.resourceVersion! });
    expect(written.metadata.resourceVersion).not.toBe(copy.metadata.resourceVersion);
    const refused = await api.patchStatus(copy, checked(), { resourceVersion: copy.metadata.resourceVersion! }).catch((error: unknown) => error);
    expect(isConflict(refused)).toBe(true);
    expect((await api.get(namespace, copy.metadata.name))!.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
  });

  it('the finalizer, added conditionally, is refused on an old version and added on the current one', async () => {
    const copy = await created();
    const moved = await api.patchStatus(copy, checked());
    expect(isConflict(await api.addFinalizer(copy, { resourceVersion: copy.metadata.resourceVersion! }).catch((error: unknown) => error))).toBe(true);
    expect((await api.get(namespace, copy.metadata.name))!.metadata.finalizers ?? []).not.toContain(FINALIZER);
    const added = await api.addFinalizer(moved, { resourceVersion: moved.metadata.resourceVersion! });
    expect(added.metadata.finalizers).toEqual([FINALIZER]);
  });

  it('a pass from a stale copy is stopped at its first write, which changes nothing', async () => {
    const copy = await created();
    const moved = await api.patchStatus(copy, checked());
    await expect(guardedApi(copy).patchStatus(copy, { observedGeneration: 99 })).rejects.toBeInstanceOf(FreshReadNeeded);
    const now = (await api.get(namespace, copy.metadata.name))!;
    expect(now.metadata.resourceVersion).toBe(moved.metadata.resourceVersion);
    expect(now.status?.observedGeneration).toBeUndefined();
  });

  it('a pass from a current copy writes, and its later writes need no precondition', async () => {
    const copy = await created();
    const pass = guardedApi(copy);
    const first = await pass.patchStatus(copy, { observedGeneration: 1 });
    // The pass goes on with the object it read; the version moved with its own first write.
    const second = await pass.patchStatus(copy, checked());
    expect(first.status?.observedGeneration).toBe(1);
    expect(second.status?.lastReconciledAt).toBeDefined();
    expect(Number(second.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
  });
});
