// For the drift benchmark at large N without N helm installs: one release is installed for real,
// its record is copied to N-1 more names (seed-records.ts), and each copy's objects are created the
// way helm 4 creates them: a server-side apply of the manifest, as field manager "helm", with
// helm's ownership label and annotations. The drift check then finds exactly what it would find
// after N real installs: records, and objects applied by helm's field manager.
import { decodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';
import { ClusterObjects } from '../../src/core/kube/cluster-objects.js';
import type { KubeRest } from '../../src/core/kube/rest-client.js';
import { manifestObjects } from '../../src/controller/drift/manifest-objects.js';
import { mapLimit } from '../../src/dev/harness/index.js';

export async function applyReleaseObjects(rest: KubeRest, namespace: string, releaseNames: string[], fieldManager = 'helm'): Promise<number> {
  const objects = new ClusterObjects(rest);
  let applied = 0;
  await mapLimit(releaseNames, 8, async (name) => {
    const secret = await rest.request<{ data?: { release?: string } }>({
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/secrets/${releaseSecretName(name, 1)}`,
    });
    const payload = decodeReleasePayload(secret.data!.release!);
    for (const object of manifestObjects(typeof payload.manifest === 'string' ? payload.manifest : '', { name, namespace })) {
      const info = await objects.resolve(object.apiVersion, object.kind);
      if (!info) throw new Error(`the API server serves no ${object.kind} in ${object.apiVersion}`);
      const placed = { ...object, metadata: { ...object.metadata, ...(info.namespaced ? { namespace: object.metadata.namespace ?? namespace } : {}) } };
      await objects.apply(info, placed, { fieldManager, force: true, dryRun: false });
      applied++;
    }
  });
  return applied;
}
