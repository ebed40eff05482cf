import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeRest } from '../rest-client.js';
import type { Listed } from './list-watch.js';

/** One page of a LIST: its items and, while more remain, the API server's `continue` token. */
export type ListPage<T> = { items?: T[]; metadata?: { resourceVersion?: string; continue?: string } };

/**
 * A LIST in pages of `limit` (the API server's limit/continue: one consistent snapshot, so the last
 * page's resourceVersion is the list's; an expired token (410) fails the list and its watch lists
 * again), each page's items passed through `keep` as it arrives (undefined: left out). A watch
 * cache that keeps less than whole objects lists this way so the objects as parsed die young, a
 * page at a time, instead of one response of every object (1.7 MB of JSON at 1,000 releases; helm's
 * records far more) all parsed at once, growing the old space for good (docs/performance.md).
 */
export async function listInPages<From, To = From>(
  listPage: (page: { limit: number; _continue?: string }) => Promise<ListPage<From>>,
  keep: (obj: From) => To | undefined,
  limit = 100,
): Promise<Listed<To>> {
  const items: To[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await listPage({ limit, ...(token ? { _continue: token } : {}) });
    for (const item of page.items ?? []) {
      const kept = keep(item);
      if (kept !== undefined) items.push(kept);
    }
    resourceVersion = page.metadata?.resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token);
  return { items, ...(resourceVersion ? { metadata: { resourceVersion } } : {}) };
}

/** listInPages of a path over the slim REST client, with label or field selectors: a watch's list. */
export function pagedList<T extends KubernetesObject>(
  rest: KubeRest,
  path: string,
  selectors: { labelSelector?: string; fieldSelector?: string },
  keep: (obj: KubernetesObject) => T | undefined,
  pageSize = 100,
  accept?: string,
): () => Promise<Listed<T>> {
  return () =>
    listInPages<KubernetesObject, T>(
      (page) =>
        rest.request<ListPage<KubernetesObject>>({
          method: 'GET',
          path,
          query: { ...selectors, limit: page.limit, continue: page._continue },
          timeoutMs: 60_000,
          ...(accept ? { accept } : {}),
        }),
      keep,
      pageSize,
    );
}
