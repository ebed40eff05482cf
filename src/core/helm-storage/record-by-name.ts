import type { KubeClients } from '../kube/client.js';
import { isForbidden, isNotFound } from '../kube/errors.js';

export type RecordSecret = Awaited<ReturnType<KubeClients['core']['readNamespacedSecret']>>;

/** A record Secret read by name: what was there, or why nothing can be said of it by name. */
export type ByName = { secret: RecordSecret } | 'gone' | 'forbidden';

/**
 * One Secret by name, not older than a version (a GET the API server answers from its watch
 * cache by key). client-node's type has no resourceVersion for a GET; the controller's slim
 * client passes it on as the query parameter (a client that dropped it would read etcd: newer still).
 */
export async function secretByName(core: KubeClients['core'], namespace: string, name: string, notOlderThan: string): Promise<ByName> {
  const request = { namespace, name, resourceVersion: notOlderThan };
  try {
    return { secret: await core.readNamespacedSecret(request) };
  } catch (error) {
    if (isNotFound(error)) return 'gone';
    // An identity allowed to LIST its records but not to GET one: the LIST decides, and says why.
    if (isForbidden(error)) return 'forbidden';
    throw error;
  }
}

/**
 * Pure: are these reads exactly what the label-selected LIST would return — each there, helm's, this
 * release's, and not superseded when those are left out?
 */
export function allAsListed(reads: readonly ByName[], releaseName: string, withoutSuperseded = false): reads is Array<{ secret: RecordSecret }> {
  return reads.every((read) => {
    const labels = typeof read === 'object' ? read.secret.metadata?.labels : undefined;
    return labels?.owner === 'helm' && labels.name === releaseName && !(withoutSuperseded && labels.status === 'superseded');
  });
}
