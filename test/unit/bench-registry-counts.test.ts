import { describe, expect, it } from 'vitest';
import { classifyRegistryRequest, perRepository, tallyRegistryRequests, type RegistryRequest } from '../../bench/lib/registry-counts.js';

const req = (method: string, url: string, status = 200, at = 0): RegistryRequest => ({ method, url, status, at });

describe('image-rest bench: what the registry was asked', () => {
  it('names tag lists and digests with their repository (nested paths too), tokens, and the rest', () => {
    expect(classifyRegistryRequest('GET', '/v2/bench-img-x/app-01/tags/list?n=1000')).toEqual({ kind: 'list', repository: 'bench-img-x/app-01' });
    expect(classifyRegistryRequest('HEAD', '/v2/shop/web/manifests/1.0.0')).toEqual({ kind: 'digest', repository: 'shop/web' });
    expect(classifyRegistryRequest('GET', '/v2/shop/web/manifests/sha256:abc')).toEqual({ kind: 'digest', repository: 'shop/web' });
    expect(classifyRegistryRequest('GET', '/token?service=bench&scope=repository:shop/web:pull')).toEqual({ kind: 'token' });
    expect(classifyRegistryRequest('GET', '/v2/')).toEqual({ kind: 'other' });
    // A push is not a watch.
    expect(classifyRegistryRequest('PUT', '/v2/shop/web/manifests/1.1.0')).toEqual({ kind: 'other' });
    expect(classifyRegistryRequest('POST', '/v2/shop/web/tags/list')).toEqual({ kind: 'other' });
  });

  it('counts answered requests by kind and repository, and a 401 apart from the request it refused', () => {
    const tally = tallyRegistryRequests([
      req('GET', '/v2/a/web/tags/list?n=1000', 401),
      req('GET', '/token?scope=repository:a/web:pull'),
      req('GET', '/v2/a/web/tags/list?n=1000'),
      req('HEAD', '/v2/a/web/manifests/1.0.0'),
      req('GET', '/v2/b/web/tags/list?n=1000'),
      req('GET', '/v2/b/web/tags/list?n=1000', 404),
      req('GET', '/v2/'),
    ]);
    expect(tally).toEqual({
      answered: { list: 3, digest: 1, token: 1, other: 1 },
      challenged: 1,
      listsByRepository: { 'a/web': 1, 'b/web': 2 },
      digestsByRepository: { 'a/web': 1 },
    });
  });

  it('per repository per interval: a repository never asked is the fewest; the allowance is one more than the whole intervals', () => {
    expect(perRepository({ a: 6, b: 5 }, ['a', 'b', 'c'], 60, 10)).toEqual({
      total: 11,
      min: 0,
      max: 6,
      intervals: 6,
      perRepositoryPerInterval: 11 / 18,
      allowedMax: 7,
    });
    // Ten releases each listing their own repository would show as ten per interval.
    const perRelease = perRepository({ a: 60 }, ['a'], 60, 10);
    expect(perRelease.perRepositoryPerInterval).toBe(10);
    expect(perRelease.max).toBeGreaterThan(perRelease.allowedMax);
    expect(perRepository({}, [], 60, 10)).toMatchObject({ total: 0, min: 0, max: 0, perRepositoryPerInterval: 0 });
  });
});
