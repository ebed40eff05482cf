import type { KubeObject } from '../../core/kube/cluster-objects.js';
import { parseHelmYaml } from '../helm/helm-yaml.js';

/**
 * Pure: the objects of a Helm release's manifest, as helm applied them. The manifest is the
 * rendered templates (hooks and the chart's crds/ are stored apart and are not in it), one YAML
 * document per object, read as the API server and helm read YAML (YAML 1.1 through
 * sigs.k8s.io/yaml: `0644` is octal). helm adds its ownership label and annotations to every object
 * it applies; they are added here too, so the apply compared against is helm's own.
 */

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** A `---` line starts a document, as helm's own splitter reads its manifests. */
const DOCUMENT_SEPARATOR = /^---[^\n]*$/m;

/** One document of a manifest as helm reads it: its value (null for an empty one), or why it could not be read. */
export type ManifestDocument = { index: number; value: unknown } | { index: number; error: string };

/**
 * Pure: each document of a manifest read once, by helm's splitter. An unreadable document is kept
 * as its error. `read` is the full parse unless a caller needs less: what helm just wrote feeds
 * only `status.inventory` and the Event's images, which read it through an outline
 * (manifest-outline.ts: the full parse there was ~10 % of the controller's CPU in a burst).
 */
export function manifestDocuments(manifest: string, read: (text: string) => unknown = parseHelmYaml): ManifestDocument[] {
  const documents: ManifestDocument[] = [];
  for (const [index, text] of manifest.split(DOCUMENT_SEPARATOR).entries()) {
    if (!text.trim()) continue;
    try {
      documents.push({ index, value: read(text) });
    } catch (error) {
      documents.push({ index, error: (error as Error).message });
    }
  }
  return documents;
}

/** Pure: the values of the documents that could be read and are not empty (for what only informs, like the Event's images). */
export function readableValues(documents: readonly ManifestDocument[]): unknown[] {
  return documents.flatMap((document) => ('value' in document && document.value !== null && document.value !== undefined ? [document.value] : []));
}

export function manifestObjects(manifest: string | readonly ManifestDocument[], release: { name: string; namespace: string }): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of typeof manifest === 'string' ? manifestDocuments(manifest) : manifest) {
    if ('error' in document) throw new ManifestError(`document ${document.index + 1} of the manifest is not valid YAML: ${document.error}`);
    const { value } = document;
    // A template that renders only comments is an empty document.
    if (value === null || value === undefined) continue;
    if (!isObjectShaped(value)) throw new ManifestError(`document ${document.index + 1} of the manifest is not a Kubernetes object`);
    objects.push(withHelmMetadata(value, release));
  }
  return objects;
}

function isObjectShaped(value: unknown): value is KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { apiVersion, kind, metadata } = value as Partial<KubeObject>;
  return typeof apiVersion === 'string' && typeof kind === 'string' && typeof metadata?.name === 'string';
}

/** helm's setMetadataVisitor: app.kubernetes.io/managed-by=Helm and the meta.helm.sh release annotations. */
function withHelmMetadata(object: KubeObject, release: { name: string; namespace: string }): KubeObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { ...object.metadata.annotations, 'meta.helm.sh/release-name': release.name, 'meta.helm.sh/release-namespace': release.namespace },
    },
  };
}

/** "Deployment web/unicorn" or "ClusterRole reader": how an object is named to people. */
export function describeObject(object: Pick<KubeObject, 'kind' | 'metadata'>): string {
  const { namespace, name } = object.metadata;
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}
