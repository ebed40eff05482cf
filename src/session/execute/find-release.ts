import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { resolveRelease, type Resolution } from '../plan/resolve.js';

/** What finding a release reads: the cluster's HelmReleases (through its kubeconfig or its fleet agent). */
export type ReleaseLookup = Pick<HelmReleaseApi, 'get' | 'list'>;

/**
 * The release a command names. `namespace/name` is read by name: one GET, where listing the
 * namespace cost every command its whole namespace (in a fleet, the list through an agent's answer
 * on Redis: 200 releases a namespace made the bot's acks take seconds at 20 commands/s,
 * docs/performance.md). A bare name, or one not there, is resolved from the list as before, which
 * also gives the candidates and the "did you mean".
 */
export async function findRelease(api: ReleaseLookup, ref: { namespace?: string; name: string }): Promise<Resolution> {
  if (ref.namespace) {
    const release = await api.get(ref.namespace, ref.name);
    if (release) return { ok: true, release };
  }
  return resolveRelease(ref, (await api.list(ref.namespace)).items);
}

/**
 * One command's view of the cluster's HelmReleases: each read is made once, so the gate that
 * authorizes a query and the query that answers it see the same release, read one time.
 */
export function readOnce(api: ReleaseLookup): ReleaseLookup {
  const gets = new Map<string, ReturnType<ReleaseLookup['get']>>();
  const lists = new Map<string | undefined, ReturnType<ReleaseLookup['list']>>();
  return {
    get: (namespace, name) => remembered(gets, `${namespace}/${name}`, () => api.get(namespace, name)),
    list: (namespace) => remembered(lists, namespace, () => api.list(namespace)),
  };
}

function remembered<K, V>(seen: Map<K, V>, key: K, read: () => V): V {
  if (!seen.has(key)) seen.set(key, read());
  return seen.get(key)!;
}
