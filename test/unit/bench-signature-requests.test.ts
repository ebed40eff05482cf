import { describe, expect, it } from 'vitest';
import { classifyVerifyRequest, tallyVerifyRequests } from '../../bench/lib/signature-requests.js';

const HEX = 'a'.repeat(64);

describe('verify-rest bench: signature fetches told apart from the chart’s own requests', () => {
  it.each([
    ['GET', `/v2/bench/unicorn/referrers/sha256:${HEX}`, 'signature'],
    ['GET', `/v2/bench/unicorn/referrers/sha256:${HEX}?artifactType=application%2Fvnd.dev.sigstore.bundle.v0.3%2Bjson`, 'signature'],
    ['GET', `/v2/bench/unicorn/manifests/sha256-${HEX}`, 'signature'],
    ['HEAD', `/v2/bench/unicorn/manifests/sha256-${HEX}.sig`, 'signature'],
    ['GET', `/v2/bench/unicorn/blobs/sha256:${HEX}`, 'blob'],
    ['GET', `/v2/bench/unicorn/manifests/sha256:${HEX}`, 'manifest-by-digest'],
    ['HEAD', '/v2/bench/unicorn/manifests/1.0.0', 'tag-manifest'],
    ['GET', '/v2/bench/unicorn/tags/list', 'tag-list'],
    ['GET', '/v2/', 'other'],
    ['PUT', `/v2/bench/unicorn/manifests/sha256-${HEX}`, 'other'],
  ])('%s %s: %s', (method, url, kind) => {
    expect(classifyVerifyRequest(method, url)).toBe(kind);
  });

  it('tallies a window by kind', () => {
    const at = (method: string, url: string) => ({ method, url, status: 200, at: 0 });
    expect(
      tallyVerifyRequests([at('GET', '/v2/x/tags/list'), at('GET', `/v2/x/manifests/sha256-${HEX}`), at('GET', `/v2/x/manifests/sha256-${HEX}.sig`)]),
    ).toEqual({
      signature: 2,
      blob: 0,
      'manifest-by-digest': 0,
      'tag-list': 1,
      'tag-manifest': 0,
      other: 0,
    });
  });
});
