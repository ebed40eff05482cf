/** Flux objects as read from YAML or the API server: only what the import looks at is typed. */

export const FLUX_HELM_GROUP = 'helm.toolkit.fluxcd.io';
export const FLUX_SOURCE_GROUP = 'source.toolkit.fluxcd.io';

export interface FluxObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export type SourceKind = 'HelmRepository' | 'OCIRepository' | 'GitRepository' | 'HelmChart' | 'Bucket' | 'ExternalArtifact';

/** The sources the HelmReleases may name, by `Kind/namespace/name`. */
export type FluxSources = ReadonlyMap<string, FluxObject>;

export function sourceKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export function isFluxHelmRelease(object: FluxObject): boolean {
  return object.kind === 'HelmRelease' && object.apiVersion.startsWith(`${FLUX_HELM_GROUP}/`);
}

export function isFluxSource(object: FluxObject): boolean {
  return object.apiVersion.startsWith(`${FLUX_SOURCE_GROUP}/`);
}

/** Pure: the sources among the objects, indexed (a missing namespace is the given default). */
export function indexSources(objects: readonly FluxObject[], defaultNamespace: string): FluxSources {
  const sources = new Map<string, FluxObject>();
  for (const object of objects) {
    if (isFluxSource(object)) sources.set(sourceKey(object.kind, object.metadata.namespace ?? defaultNamespace, object.metadata.name), object);
  }
  return sources;
}

export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
