import type { HelmReleaseStatus, Inventory } from '../../../api/helmrelease-status.js';
import { ManifestError, manifestObjects, type ManifestDocument } from '../../drift/manifest-objects.js';

/**
 * Pure: status.inventory in Flux's shape, from the manifest of the revision helm just wrote (hooks
 * and the chart's crds/ are not in it). An object the chart renders without a namespace is put in
 * the release's, except kinds known to be cluster-scoped (no discovery here), which get none.
 */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'APIService',
  'CSIDriver',
]);

export function inventoryOf(manifest: string | readonly ManifestDocument[], release: { name: string; namespace: string }): Inventory {
  const entries = manifestObjects(manifest, release).map((object) => {
    const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/', 2) : ['', object.apiVersion];
    const namespace = CLUSTER_SCOPED.has(object.kind) ? '' : (object.metadata.namespace ?? release.namespace);
    return { id: `${namespace}_${object.metadata.name}_${group}_${object.kind}`, v: version! };
  });
  entries.sort((a, b) => a.id.localeCompare(b.id));
  return { entries };
}

/**
 * The status with the inventory of the deployed revision, after whatever wrote it (an install, an
 * upgrade, a rollback), as text or already read (manifestDocuments, or outlineDocuments after helm). A manifest that cannot be
 * read leaves the inventory as it was.
 */
export function withInventory(
  status: HelmReleaseStatus,
  manifest: string | readonly ManifestDocument[] | undefined,
  release: { name: string; namespace: string },
): HelmReleaseStatus {
  if (manifest === undefined) return status;
  try {
    return { ...status, inventory: inventoryOf(manifest, release) };
  } catch (error) {
    if (error instanceof ManifestError) return status;
    throw error;
  }
}
