// What a registry was asked while charts are verified (verify-rest): the requests a signature
// check makes (cosign's and notation's: the referrers API, the referrers tag schema's
// `sha256-<hex>` tags, cosign's older `sha256-<hex>.sig` tags, blobs) told apart from the chart's
// own resolution (the tag list, the tag's manifest) and pulls (the manifest by digest). Pure.
import type { RegistryRequest } from './registry-counts.js';

export type VerifyRequestKind = 'signature' | 'blob' | 'manifest-by-digest' | 'tag-list' | 'tag-manifest' | 'other';

export function classifyVerifyRequest(method: string, url: string): VerifyRequestKind {
  const path = url.split('?')[0]!;
  if (/^\/v2\/.+\/referrers\/sha256:[0-9a-f]{64}$/.test(path)) return 'signature';
  const manifest = /^\/v2\/.+\/manifests\/([^/]+)$/.exec(path)?.[1];
  if (manifest && (method === 'GET' || method === 'HEAD')) {
    if (/^sha256-[0-9a-f]{64}(\.\w+)?$/.test(manifest)) return 'signature';
    return manifest.startsWith('sha256:') ? 'manifest-by-digest' : 'tag-manifest';
  }
  if (/^\/v2\/.+\/blobs\/sha256:[0-9a-f]{64}$/.test(path) && (method === 'GET' || method === 'HEAD')) return 'blob';
  if (/^\/v2\/.+\/tags\/list$/.test(path) && method === 'GET') return 'tag-list';
  return 'other';
}

/** Pure: the requests of a window by kind. */
export function tallyVerifyRequests(requests: readonly RegistryRequest[]): Record<VerifyRequestKind, number> {
  const tally: Record<VerifyRequestKind, number> = { signature: 0, blob: 0, 'manifest-by-digest': 0, 'tag-list': 0, 'tag-manifest': 0, other: 0 };
  for (const r of requests) tally[classifyVerifyRequest(r.method, r.url)]++;
  return tally;
}
