/** kubectl's client-side apply keeps the whole applied object in this annotation: a second copy of the spec. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Pure: what a watch's cache keeps of an object — all but metadata.managedFields and kubectl's
 * last-applied copy (as controller-runtime's default transform drops managedFields). No reader of
 * a cache looks at either, and they are most of a small object's bytes: a HelmRelease applied with
 * `kubectl apply` carries its spec twice.
 */
export function withoutBookkeeping<T extends { metadata?: object }>(obj: T): T {
  const metadata = obj.metadata as { managedFields?: unknown; annotations?: Record<string, string> } | undefined;
  if (!metadata || (!metadata.managedFields && metadata.annotations?.[LAST_APPLIED] === undefined)) return obj;
  const { managedFields: _managed, annotations, ...kept } = metadata;
  const { [LAST_APPLIED]: _applied, ...keptAnnotations } = annotations ?? {};
  return { ...obj, metadata: { ...kept, ...(annotations ? { annotations: keptAnnotations } : {}) } };
}
