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

export function manifestObjects(manifest: string, release: { name: string; namespace: string }): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const [index, text] of manifest.split(DOCUMENT_SEPARATOR).entries()) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = parseHelmYaml(text);
    } catch (error) {
      throw new ManifestError(`document ${index + 1} of the manifest is not valid YAML: ${(error as Error).message}`);
    }
    // A template that renders only comments is an empty document.
    if (value === null || value === undefined) continue;
    if (!isObjectShaped(value)) throw new ManifestError(`document ${index + 1} of the manifest is not a Kubernetes object`);
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
