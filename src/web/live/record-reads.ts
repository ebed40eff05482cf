import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { listInPages, type ListPage } from '../../core/kube/watch/paged-list.js';
import { keptRecord, type KeptRecord } from './kept-record.js';

/**
 * The reads that turn a record the web's watch listed as metadata only (kept-record.ts `pending`)
 * into its summary: by name for one release, or every record a page at a time for the assistants.
 */

/** A pending record takes its whole Secret's summary and NOTES, in place (the watch's cache and index hold that object); false when it was not pending. */
export function fillPending(held: KeptRecord, secret: KubernetesObject): boolean {
  if (!held.pending) return false;
  const whole = keptRecord(secret);
  held.summary = whole.summary;
  if (whole.notes) held.notes = whole.notes;
  delete held.pending;
  return true;
}

/** One record Secret by name, not older than `notOlderThan` (the API server answers from its watch cache); undefined when it is gone. */
export async function recordByName(rest: KubeRest, namespace: string, name: string, notOlderThan: string | undefined): Promise<KubernetesObject | undefined> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
  try {
    return await rest.request<KubernetesObject>({ method: 'GET', path, query: notOlderThan ? { resourceVersion: notOlderThan } : {} });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Every Secret with `labelSelector`, whole, `pageSize` at a time, each handed to `each` as its page arrives (a page's bodies die before the next is asked for). */
export async function eachSecretWhole(rest: KubeRest, labelSelector: string, each: (secret: KubernetesObject) => void, pageSize: number): Promise<void> {
  await listInPages<KubernetesObject, never>(
    (page) =>
      rest.request<ListPage<KubernetesObject>>({
        method: 'GET',
        path: '/api/v1/secrets',
        query: { labelSelector, limit: page.limit, continue: page._continue },
        timeoutMs: 60_000,
      }),
    (secret) => void each(secret),
    pageSize,
  );
}
