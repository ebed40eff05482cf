import type { Listed } from './list-watch.js';

/** One page of a LIST: its items and, while more remain, the API server's `continue` token. */
export type ListPage<T> = { items: T[]; metadata?: { resourceVersion?: string; continue?: string } };

/**
 * A LIST in pages of `limit` (the API server's limit/continue: one consistent snapshot), each
 * page's items passed through `keep` as it arrives. A watch cache that keeps less than whole
 * objects lists this way so the objects as parsed die young, a page at a time, instead of one
 * response of every object (1.7 MB of JSON at 1,000 releases) and all of them parsed at once
 * growing the old space for good (docs/performance.md).
 */
export async function listInPages<T>(
  listPage: (page: { limit: number; _continue?: string }) => Promise<ListPage<T>>,
  keep: (obj: T) => T,
  limit = 100,
): Promise<Listed<T>> {
  const items: T[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await listPage({ limit, ...(token ? { _continue: token } : {}) });
    for (const item of page.items) items.push(keep(item));
    resourceVersion = page.metadata?.resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token);
  return { items, ...(resourceVersion ? { metadata: { resourceVersion } } : {}) };
}
