// HelmRelease objects: build one, and apply it the way a person would (create, or replace the spec).
import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease, HelmReleaseSpec } from '../../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, HELMRELEASE_PLURAL } from '../../api/vocabulary.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { isConflict, isNotFound } from '../../core/kube/errors.js';

export function helmReleaseObject(namespace: string, name: string, spec: HelmReleaseSpec): HelmRelease {
  return { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: HELMRELEASE_KIND, metadata: { name, namespace }, spec };
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
