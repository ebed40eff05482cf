import { CoreV1Api, AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isReconciledAt } from '../core/release/reconciled.js';
import type { HelmRelease, HelmReleaseSpec } from '../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, HELMRELEASE_PLURAL } from '../api/vocabulary.js';
import { makeKubeClients } from '../core/kube/client.js';
import { isConflict, isNotFound } from '../core/kube/errors.js';
import { HelmReleaseApi } from '../core/kube/helmrelease-api.js';

/**
 * Small cluster helpers shared by the demo and the tests: apply a HelmRelease, wait for the
 * controller to finish with a generation, and read what the unicorn page serves.
 */

export function helmReleaseObject(namespace: string, name: string, spec: HelmReleaseSpec): HelmRelease {
  return { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: HELMRELEASE_KIND, metadata: { name, namespace }, spec };
}

export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.createNamespace({ body: { metadata: { name } } });
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
}

/** Creates the HelmRelease, or replaces its spec; returns the generation the server gave it. */
export async function applyHelmRelease(kc: KubeConfig, release: HelmRelease): Promise<number> {
  const { custom } = makeKubeClients(kc);
  const coords = { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace: release.metadata.namespace };
  for (let attempt = 0; ; attempt++) {
    try {
      const current = (await custom.getNamespacedCustomObject({ ...coords, name: release.metadata.name })) as HelmRelease;
      const body = { ...current, spec: release.spec };
      const updated = (await custom.replaceNamespacedCustomObject({ ...coords, name: release.metadata.name, body })) as HelmRelease;
      return updated.metadata.generation ?? 0;
    } catch (error) {
      if (isNotFound(error)) {
        const created = (await custom.createNamespacedCustomObject({ ...coords, body: release })) as HelmRelease;
        return created.metadata.generation ?? 0;
      }
      // The controller writes status and finalizers concurrently; a conflict just means re-read.
      if (isConflict(error) && attempt < 5) continue;
      throw error;
    }
  }
}

/** Waits until the controller has finished with `generation`: Ready is True or False (not Unknown) for it. */
export async function waitForReconciled(kc: KubeConfig, namespace: string, name: string, generation: number, timeoutMs = 120_000): Promise<HelmRelease> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const deadline = Date.now() + timeoutMs;
  let last: HelmRelease | undefined;
  while (Date.now() < deadline) {
    last = await api.get(namespace, name);
    if (last && isReconciledAt(last, generation)) {
      return last;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${namespace}/${name} generation ${generation} was not reconciled within ${timeoutMs / 1000}s; last status: ${JSON.stringify(last?.status)}`);
}

/** The colour the unicorn page declares (`data-color="…"` in the ConfigMap the Deployment serves). */
export async function servedColor(kc: KubeConfig, namespace: string, releaseName: string): Promise<string | undefined> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    const page = await core.readNamespacedConfigMap({ namespace, name: `${releaseName}-page` });
    return /data-color="([^"]+)"/.exec(page.data?.['index.html'] ?? '')?.[1];
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function deploymentAvailable(kc: KubeConfig, namespace: string, name: string): Promise<boolean> {
  const apps = kc.makeApiClient(AppsV1Api);
  try {
    const deployment = await apps.readNamespacedDeployment({ namespace, name });
    return deployment.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
