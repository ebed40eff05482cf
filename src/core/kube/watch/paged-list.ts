import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeRest } from '../rest-client.js';
import type { Listed } from './list-watch.js';

interface Page {
  items?: KubernetesObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/**
 * A LIST read a page at a time (limit/continue), each item reduced by `keep` before the next page
 * is asked for: a list of large objects (helm's records) never sits whole in memory. The pages of
 * one list are one snapshot (the API server's continue token), so the last page's resourceVersion
 * is the list's; an expired token (410) fails the list and its watch lists again from the start.
 */
export function pagedList<T extends KubernetesObject>(
  rest: KubeRest,
  path: string,
  selectors: { labelSelector?: string; fieldSelector?: string },
  keep: (obj: KubernetesObject) => T | undefined,
  pageSize = 100,
): () => Promise<Listed<T>> {
  return async () => {
    const items: T[] = [];
    let next: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await rest.request<Page>({ method: 'GET', path, query: { ...selectors, limit: pageSize, continue: next }, timeoutMs: 60_000 });
      for (const item of page.items ?? []) {
        const kept = keep(item);
        if (kept) items.push(kept);
      }
      resourceVersion = page.metadata?.resourceVersion;
      next = page.metadata?.continue || undefined;
    } while (next);
    return { items, metadata: { resourceVersion } };
  };
}
