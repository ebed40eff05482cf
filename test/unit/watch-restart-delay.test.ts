import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import { serves } from '../../src/core/kube/readiness-probe.js';
import { isRepeatedOutageFailure, OUTAGE_RESTART_MS, watchRestartDelayMs } from '../../src/core/kube/watch/restart-delay.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
const starting = new KubeApiError(
  503,
  { message: 'the request has been made before all known HTTP paths have been installed, please try again' },
  'GET',
  '/apis/helmcrew.dev/v1alpha1/helmreleases',
);
const cacheInitializing = (retryAfterSeconds?: number) =>
  new KubeApiError(
    429,
    { message: 'storage is (re)initializing', details: retryAfterSeconds === undefined ? {} : { retryAfterSeconds } },
    'GET',
    '/apis/helmcrew.dev/v1alpha1/freezes',
  );
const crdMissing = new KubeApiError(404, undefined, 'GET', '/apis/helmcrew.dev/v1alpha1/helmreleases');

describe('how long a failed watch waits before it starts again', () => {
  it('tries every two seconds at most while the API server is down or starting, however long the outage', () => {
    for (const error of [refused, starting]) {
      expect(watchRestartDelayMs(1, error)).toBe(250);
      expect(watchRestartDelayMs(3, error)).toBe(1000);
      expect(watchRestartDelayMs(50, error)).toBe(OUTAGE_RESTART_MS);
    }
  });

  it("honours a 429's Retry-After, and waits a second when it names none", () => {
    expect(watchRestartDelayMs(7, cacheInitializing(1))).toBe(1000);
    expect(watchRestartDelayMs(7, cacheInitializing())).toBe(1000);
    expect(watchRestartDelayMs(1, cacheInitializing(600))).toBe(10_000);
  });

  it("backs off to 30 s for what waiting does not heal soon (the cluster's set-up)", () => {
    expect(watchRestartDelayMs(1, crdMissing)).toBe(1000);
    expect(watchRestartDelayMs(4, crdMissing)).toBe(8000);
    expect(watchRestartDelayMs(20, crdMissing)).toBe(30_000);
    expect(watchRestartDelayMs(20, new Error('watch /apis/x: connection closed'))).toBe(30_000);
  });

  it('says an outage once: its repeats are not news, a first failure or another kind of failure is', () => {
    expect(isRepeatedOutageFailure(1, refused)).toBe(false);
    expect(isRepeatedOutageFailure(2, refused)).toBe(true);
    expect(isRepeatedOutageFailure(9, starting)).toBe(true);
    expect(isRepeatedOutageFailure(9, cacheInitializing(1))).toBe(true);
    expect(isRepeatedOutageFailure(9, crdMissing)).toBe(false);
  });
});

describe("the outage probe's reading of /readyz", () => {
  it('counts the server back only once it serves: 200, or a cluster that hides /readyz from this identity', () => {
    expect(serves(undefined)).toBe(true);
    expect(serves(new KubeApiError(403, undefined, 'GET', '/readyz'))).toBe(true);
    expect(serves(new KubeApiError(401, undefined, 'GET', '/readyz'))).toBe(true);
    expect(serves(new KubeApiError(500, undefined, 'GET', '/readyz'))).toBe(false);
    expect(serves(starting)).toBe(false);
    expect(serves(refused)).toBe(false);
  });
});
