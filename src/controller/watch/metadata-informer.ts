import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { ListWatch, restWatch, type Listed } from '../../core/kube/watch/list-watch.js';

/**
 * Informers that see only object metadata (PartialObjectMetadata): the API server sends names,
 * labels and resourceVersions, never a Secret's data, so nothing secret is held in memory and
 * a namespace full of large Secrets costs little.
 */
const META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const META_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export type MetadataInformer = ListWatch<KubernetesObject>;

/** `labelSelector` narrows list and watch alike (the server filters; nothing else is sent). */
export function makeMetadataInformer(
  rest: KubeRest,
  path: string,
  labelSelector?: string,
  keep: (obj: KubernetesObject) => KubernetesObject = identityOnly,
): MetadataInformer {
  const list = async () => {
    const listed = await rest.request<Listed<KubernetesObject>>({ method: 'GET', path, query: { labelSelector }, accept: META_LIST, timeoutMs: 30_000 });
    return { metadata: listed.metadata ?? {}, items: listed.items ?? [] };
  };
  return new ListWatch<KubernetesObject>(list, restWatch(rest, path, META_OBJECT, labelSelector), keep);
}

/**
 * What a metadata informer keeps of each object: who it is and its version. Labels and
 * managedFields are most of an object's metadata and nothing here reads them.
 */
export function identityOnly(obj: KubernetesObject): KubernetesObject {
  const { name, namespace, resourceVersion, uid } = obj.metadata ?? {};
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, namespace, resourceVersion, uid } };
}
