import { describe, expect, it } from 'vitest';
import { ADOPT_RELEASE_ANNOTATION } from '../../src/api/annotations.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { decideRecall, needsManifest, recordFingerprint, versionCovers } from '../../src/controller/reconcile/decide/settled-records.js';
import { buildReconcileContext } from '../../src/controller/reconcile/ports/build-context.js';
import { reconcileRelease } from '../../src/controller/reconcile/reconciler.js';
import { SettledHistories } from '../../src/controller/watch/settled-histories.js';
import { fakeController, helmRelease, type Fakes } from './support/reconcile-fakes.js';

// Issue 36: the periodic check of a settled release reuses the history it read last time while the
// watch of the record Secrets' metadata shows the same records (decide/settled-records.ts).

const remembered = { fingerprint: 'a@1', identity: '', atMs: 1000 };
const watched = { fingerprint: 'a@1', seenVersion: '50' };
const pass = { releaseVersion: '40', identity: '', nowMs: 2000, maxAgeMs: 60_000 };

describe('decideRecall', () => {
  it('recalls when the same records are watched, the watch is as new as the copy, the same identity read them, not long ago', () => {
    expect(decideRecall(remembered, watched, pass)).toEqual({ recall: true });
    expect(decideRecall(remembered, { ...watched, seenVersion: '40' }, pass)).toEqual({ recall: true });
  });

  it.each([
    { name: 'nothing remembered', r: undefined, w: watched, p: pass, why: 'none remembered' },
    { name: 'the watch cannot say (not listed, failed, namespace not watched)', r: remembered, w: undefined, p: pass, why: 'watch cannot say' },
    { name: 'the watch is older than the HelmRelease copy', r: remembered, w: { ...watched, seenVersion: '39' }, p: pass, why: 'watch behind' },
    { name: 'the watch has seen no version yet', r: remembered, w: { fingerprint: 'a@1' }, p: pass, why: 'watch behind' },
    { name: 'a version that is no integer', r: remembered, w: { ...watched, seenVersion: 'abc' }, p: pass, why: 'watch behind' },
    { name: 'a record written since (a new version)', r: remembered, w: { ...watched, fingerprint: 'a@2' }, p: pass, why: 'records changed' },
    { name: 'a record added (helm by hand)', r: remembered, w: { ...watched, fingerprint: 'a@1,b@3' }, p: pass, why: 'records changed' },
    { name: 'the record deleted', r: remembered, w: { ...watched, fingerprint: '' }, p: pass, why: 'records changed' },
    { name: 'read as another identity', r: remembered, w: watched, p: { ...pass, identity: 'system:serviceaccount:a:b' }, why: 'other identity' },
    { name: 'read longer ago than the maximum age', r: remembered, w: watched, p: { ...pass, nowMs: 61_000 }, why: 'too old' },
  ])('reads again: $name', ({ r, w, p, why }) => {
    expect(decideRecall(r, w, p)).toEqual({ recall: false, why });
  });
});

describe('recordFingerprint and versionCovers', () => {
  it('a fingerprint does not depend on the order the records came in, and names every version', () => {
    const a = { name: 'sh.helm.release.v1.app.v1', resourceVersion: '10' };
    const b = { name: 'sh.helm.release.v1.app.v2', resourceVersion: '12' };
    expect(recordFingerprint([a, b])).toBe(recordFingerprint([b, a]));
    expect(recordFingerprint([a, b])).not.toBe(recordFingerprint([a, { ...b, resourceVersion: '13' }]));
    expect(recordFingerprint([])).toBe('');
  });

  it('compares versions as integers, not as strings', () => {
    expect(versionCovers('100', '99')).toBe(true);
    expect(versionCovers('99', '100')).toBe(false);
    expect(versionCovers('18446744073709551617', '18446744073709551616')).toBe(true);
    expect(versionCovers(undefined, '1')).toBe(false);
    expect(versionCovers('1', undefined)).toBe(false);
  });
});

describe('needsManifest', () => {
  it('drift wanted or a handover asked for: the release is read as before; otherwise not', () => {
    const release = helmRelease();
    expect(needsManifest(release, false)).toBe(false);
    expect(needsManifest(release, true)).toBe(true);
    release.metadata.annotations = { [ADOPT_RELEASE_ANNOTATION]: 'apps/app' };
    expect(needsManifest(release, false)).toBe(true);
  });
});

describe('SettledHistories', () => {
  const record = (over: Partial<StoredRelease> = {}): StoredRelease => ({
    name: 'app',
    namespace: 'apps',
    revision: 1,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    config: { replicas: 1 },
    manifest: 'kind: ConfigMap\n',
    ...over,
  });
  const key = { namespace: 'apps', releaseName: 'app', identity: '' };
  const refs = [{ name: 'sh.helm.release.v1.app.v1', resourceVersion: '7' }];

  it('recalls what it remembered, without the manifests, while the watch shows the same records; forgets on a change', () => {
    let watchedNow: { fingerprint: string; seenVersion: string } | undefined = { fingerprint: recordFingerprint(refs), seenVersion: '20' };
    let now = 0;
    const settled = new SettledHistories(() => watchedNow, { maxAgeMs: 1000, now: () => now });
    expect(settled.recall(key, '10')).toBeUndefined();
    settled.remember(key, summarizeHistory([record()]), refs);
    const recalled = settled.recall(key, '10');
    expect(recalled?.deployed).toMatchObject({ revision: 1, status: 'deployed', config: { replicas: 1 } });
    expect(recalled?.deployed?.manifest).toBeUndefined();
    expect(recalled?.latest).toBe(recalled?.deployed);
    expect(settled.recall(key, '21')).toBeUndefined();
    watchedNow = undefined;
    expect(settled.recall(key, '10')).toBeUndefined();
    watchedNow = { fingerprint: recordFingerprint(refs), seenVersion: '20' };
    now = 1000;
    expect(settled.recall(key, '10')).toBeUndefined();
    now = 0;
    settled.forget('apps', 'app');
    expect(settled.recall(key, '10')).toBeUndefined();
    expect(settled.counts).toMatchObject({ recalled: 1, 'none remembered': 2, 'watch behind': 1, 'watch cannot say': 1, 'too old': 1 });
  });

  it('a watch scope that starts again forgets what it covered', () => {
    const settled = new SettledHistories(() => ({ fingerprint: recordFingerprint(refs), seenVersion: '20' }));
    settled.remember(key, summarizeHistory([record()]), refs);
    settled.remember({ ...key, namespace: 'other' }, summarizeHistory([record({ namespace: 'other' })]), refs);
    settled.forgetScope('apps');
    expect(settled.size).toBe(1);
    settled.forgetScope('');
    expect(settled.size).toBe(0);
  });
});

describe('a settled check with remembered histories (the reconcile pass on fakes)', () => {
  const NS = 'apps';
  const NAME = 'app';

  /** A settled release, and a context whose record watch is the fake storage itself (as new as `seen`). */
  async function settledRelease(): Promise<{ f: Fakes; settled: SettledHistories; check: () => Promise<string>; watch: { lagging: boolean } }> {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, NS, NAME)).action).toBe('install');
    const watch = { lagging: false };
    let lastSeen: { fingerprint: string; seenVersion: string } | undefined;
    const settled = new SettledHistories((namespace, releaseName) => {
      if (!watch.lagging) lastSeen = { fingerprint: recordFingerprint(f.storage.identities(namespace, releaseName)), seenVersion: '1000000' };
      return lastSeen;
    });
    const ctx = buildReconcileContext({ ...f.ctx, settled });
    const check = async () => {
      f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
      return (await reconcileRelease(ctx, NS, NAME)).action;
    };
    return { f, settled, check, watch };
  }

  it('the first check reads the records, the next ones read nothing while they are unchanged', async () => {
    const { f, settled, check } = await settledRelease();
    const reads = f.storage.reads;
    expect(await check()).toBe('unchanged');
    expect(f.storage.reads - reads).toBe(1);
    expect(await check()).toBe('unchanged');
    expect(await check()).toBe('unchanged');
    expect(f.storage.reads - reads).toBe(1);
    expect(settled.counts.recalled).toBe(2);
    expect(f.helm.verbs()).toEqual(['install']);
  });

  it('helm run by hand behind its back: the changed records are read and acted on', async () => {
    const { f, check } = await settledRelease();
    await check();
    const deployed = f.storage.records.find((r) => r.status === 'deployed')!;
    deployed.status = 'superseded';
    f.storage.add({ ...deployed, revision: 2, status: 'deployed', config: { replicas: 9 } });
    const reads = f.storage.reads;
    expect(await check()).toBe('upgrade');
    expect(f.storage.reads - reads).toBeGreaterThanOrEqual(1);
    expect(f.helm.verbs()).toEqual(['install', 'upgrade']);
  });

  it('its record deleted: read, and installed again', async () => {
    const { f, check } = await settledRelease();
    await check();
    f.storage.records.splice(0, f.storage.records.length);
    expect(await check()).toBe('install');
    expect(f.helm.verbs()).toEqual(['install', 'install']);
  });

  it('drift detection on: every check reads the records (drift needs the manifest)', async () => {
    const { f, check } = await settledRelease();
    f.api.editSpec(NS, NAME, (spec) => (spec.driftDetection = { mode: 'warn' }));
    await reconcileRelease(f.ctx, NS, NAME);
    const reads = f.storage.reads;
    await check();
    await check();
    expect(f.storage.reads - reads).toBe(2);
  });
});
