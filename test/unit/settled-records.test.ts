import { describe, expect, it } from 'vitest';
import { ADOPT_RELEASE_ANNOTATION } from '../../src/api/annotations.js';
import { summarizeHistory } from '../../src/core/helm-storage/release-storage.js';
import { storedRelease } from './support/stored-release.js';
import { decideRecall, needsManifest, recordFingerprint, watchCovers } from '../../src/controller/reconcile/decide/settled-records.js';
import { buildReconcileContext } from '../../src/controller/reconcile/ports/build-context.js';
import { reconcileRelease } from '../../src/controller/reconcile/reconciler.js';
import { SettledHistories } from '../../src/controller/watch/settled-histories.js';
import { fakeController, helmRelease, type Fakes } from './support/reconcile-fakes.js';

// Issue 36: the periodic check of a settled release reuses the history it read last time while the
// watch of the record Secrets' metadata shows the same records (decide/settled-records.ts).

const remembered = { fingerprint: 'a@1', identity: '', atMs: 1000 };
const watched = { fingerprint: 'a@1', heardAgoMs: 30_000 };
const pass = { identity: '', nowMs: 2000, maxAgeMs: 60_000, maxSilenceMs: 150_000 };

describe('watchCovers: may the record watch name every record a LIST "not older than" a version would return', () => {
  it.each([
    { seen: '120', wanted: '120', covers: true },
    { seen: '121', wanted: '120', covers: true },
    { seen: '99', wanted: '120', covers: false },
    // Compared as numbers, not text ("99" > "120" as text).
    { seen: '1000000000000000000001', wanted: '999999999999999999999', covers: true },
    { seen: undefined, wanted: '120', covers: false },
    { seen: '120', wanted: undefined, covers: false },
    // Not an etcd revision: the caller LISTs as before.
    { seen: 'abc', wanted: '120', covers: false },
    { seen: '120', wanted: '12e1', covers: false },
    { seen: '', wanted: '', covers: false },
  ])('seen $seen, wanted $wanted: $covers', ({ seen, wanted, covers }) => {
    expect(watchCovers(seen, wanted)).toBe(covers);
  });
});

describe('decideRecall', () => {
  it('recalls when the same records are watched, the watch heard from the server lately, the same identity read them, not long ago', () => {
    expect(decideRecall(remembered, watched, pass)).toEqual({ recall: true });
    expect(decideRecall(remembered, { ...watched, heardAgoMs: 150_000 }, pass)).toEqual({ recall: true });
  });

  it.each([
    { name: 'nothing remembered', r: undefined, w: watched, p: pass, why: 'none remembered' },
    { name: 'the watch cannot say (not listed, failed, namespace not watched)', r: remembered, w: undefined, p: pass, why: 'watch cannot say' },
    {
      name: 'the watch has heard nothing (no event, no bookmark) for too long',
      r: remembered,
      w: { ...watched, heardAgoMs: 150_001 },
      p: pass,
      why: 'watch silent',
    },
    { name: 'a record written since (a new version)', r: remembered, w: { ...watched, fingerprint: 'a@2' }, p: pass, why: 'records changed' },
    { name: 'a record added (helm by hand)', r: remembered, w: { ...watched, fingerprint: 'a@1,b@3' }, p: pass, why: 'records changed' },
    { name: 'the record deleted', r: remembered, w: { ...watched, fingerprint: '' }, p: pass, why: 'records changed' },
    { name: 'read as another identity', r: remembered, w: watched, p: { ...pass, identity: 'system:serviceaccount:a:b' }, why: 'other identity' },
    { name: 'read longer ago than the maximum age', r: remembered, w: watched, p: { ...pass, nowMs: 61_000 }, why: 'too old' },
  ])('reads again: $name', ({ r, w, p, why }) => {
    expect(decideRecall(r, w, p)).toEqual({ recall: false, why });
  });
});

describe('recordFingerprint', () => {
  it('a fingerprint does not depend on the order the records came in, and names every version', () => {
    const a = { name: 'sh.helm.release.v1.app.v1', resourceVersion: '10' };
    const b = { name: 'sh.helm.release.v1.app.v2', resourceVersion: '12' };
    expect(recordFingerprint([a, b])).toBe(recordFingerprint([b, a]));
    expect(recordFingerprint([a, b])).not.toBe(recordFingerprint([a, { ...b, resourceVersion: '13' }]));
    expect(recordFingerprint([])).toBe('');
  });

  it('leaves out nothing: superseded records are left out by the caller (SettledHistories), as the watch leaves them out', () => {
    expect(recordFingerprint([{ name: 'a', resourceVersion: '1', status: 'superseded' }])).toBe('a@1');
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
  const record = storedRelease;
  const key = { namespace: 'apps', releaseName: 'app', identity: '' };
  const refs = [{ name: 'sh.helm.release.v1.app.v1', resourceVersion: '7' }];

  it('recalls what it remembered, without the manifests, while the watch shows the same records; forgets on a change', () => {
    let watchedNow: { fingerprint: string; heardAgoMs: number } | undefined = { fingerprint: recordFingerprint(refs), heardAgoMs: 0 };
    let now = 0;
    const settled = new SettledHistories(() => watchedNow, { maxAgeMs: 1000, now: () => now });
    expect(settled.recall(key)).toBeUndefined();
    settled.remember(key, summarizeHistory([record()]), refs);
    const recalled = settled.recall(key);
    expect(recalled?.deployed).toMatchObject({ revision: 1, status: 'deployed', config: { replicas: 1 } });
    expect(recalled?.deployed?.manifest).toBeUndefined();
    expect(recalled?.latest).toBe(recalled?.deployed);
    watchedNow = { fingerprint: recordFingerprint(refs), heardAgoMs: 200_000 };
    expect(settled.recall(key)).toBeUndefined();
    watchedNow = undefined;
    expect(settled.recall(key)).toBeUndefined();
    watchedNow = { fingerprint: recordFingerprint(refs), heardAgoMs: 0 };
    now = 1000;
    expect(settled.recall(key)).toBeUndefined();
    now = 0;
    settled.forget('apps', 'app');
    expect(settled.recall(key)).toBeUndefined();
    expect(settled.counts).toMatchObject({ recalled: 1, 'none remembered': 2, 'watch silent': 1, 'watch cannot say': 1, 'too old': 1 });
  });

  it('remembers the settled part of a whole history: the superseded records and every manifest left out', () => {
    const settled = new SettledHistories(() => ({ fingerprint: recordFingerprint([{ name: 'v2', resourceVersion: '9' }]), heardAgoMs: 0 }));
    const old = record({ revision: 1, status: 'superseded', labels: { status: 'superseded' } });
    const current = record({ revision: 2, labels: { status: 'deployed' } });
    settled.remember(key, summarizeHistory([old, current]), [
      { name: 'v1', resourceVersion: '8', status: 'superseded' },
      { name: 'v2', resourceVersion: '9', status: 'deployed' },
    ]);
    const recalled = settled.recall(key);
    expect(recalled?.releases.map((r) => r.revision)).toEqual([2]);
    expect(recalled?.deployed?.manifest).toBeUndefined();
  });

  it('a watch scope that starts again forgets what it covered', () => {
    const settled = new SettledHistories(() => ({ fingerprint: recordFingerprint(refs), heardAgoMs: 0 }));
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

  /** Settled checks of the release on `f` with these remembered histories, and the LISTs and reads by name made since. */
  function checksWith(f: Fakes, settled: SettledHistories) {
    const ctx = buildReconcileContext({ ...f.ctx, settled });
    const [lists, byName] = [f.storage.reads, f.storage.byNameReads];
    return {
      check: async () => {
        f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
        return (await reconcileRelease(ctx, NS, NAME)).action;
      },
      reads: () => [f.storage.reads - lists, f.storage.byNameReads - byName],
    };
  }

  /** A settled release, and a context whose record watch is the fake storage itself (always current). */
  async function settledRelease(): Promise<{ f: Fakes; settled: SettledHistories; check: () => Promise<string> }> {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, NS, NAME)).action).toBe('install');
    const settled = new SettledHistories((namespace, releaseName) => ({
      fingerprint: recordFingerprint(f.storage.identities(namespace, releaseName)),
      heardAgoMs: 0,
    }));
    const ctx = buildReconcileContext({ ...f.ctx, settled });
    const check = async () => {
      f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
      return (await reconcileRelease(ctx, NS, NAME)).action;
    };
    return { f, settled, check };
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
  });

  it("a pass's whole read (after an install, a fresh pass) is remembered too: the next settled check reads nothing", async () => {
    const { f, settled } = await settledRelease();
    const ctx = buildReconcileContext({ ...f.ctx, settled });
    f.cache.copies.delete(`${NS}/${NAME}`);
    expect((await reconcileRelease(ctx, NS, NAME)).action).toBe('unchanged');
    const reads = f.storage.reads;
    f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
    expect((await reconcileRelease(ctx, NS, NAME)).action).toBe('unchanged');
    expect(f.storage.reads - reads).toBe(0);
    expect(settled.counts.recalled).toBe(1);
    expect(f.helm.verbs()).toEqual(['install']);
  });

  it('the record watch names the records: they are read by name, not LISTed; a name gone makes it LIST', async () => {
    const { f } = await settledRelease();
    let gone = false;
    const names = (namespace: string, releaseName: string, notOlderThan: string | undefined) => ({
      notOlderThan: notOlderThan ?? '',
      names: [...f.storage.identities(namespace, releaseName).map((r) => r.name), ...(gone ? ['sh.helm.release.v1.app.v9'] : [])],
    });
    const settled = new SettledHistories(
      (namespace, releaseName) => ({ fingerprint: recordFingerprint(f.storage.identities(namespace, releaseName)), heardAgoMs: 0 }),
      {
        names,
      },
    );
    const { check, reads } = checksWith(f, settled);
    expect(await check()).toBe('unchanged');
    expect(reads()).toEqual([0, 1]);
    // Remembered as a LIST's read is: the next check reads nothing.
    expect(await check()).toBe('unchanged');
    expect(reads()).toEqual([0, 1]);
    settled.forget(NS, NAME);
    gone = true;
    expect(await check()).toBe('unchanged');
    expect(reads()).toEqual([1, 2]);
  });

  it("the watch behind the object's version: read by name unless the next revision's record exists", async () => {
    const { f } = await settledRelease();
    const names = (namespace: string, releaseName: string) => {
      const held = f.storage.identities(namespace, releaseName).map((r) => r.name);
      return { names: held, absent: `sh.helm.release.v1.${releaseName}.v${held.length + 1}`, notOlderThan: '1' };
    };
    const { check, reads } = checksWith(f, new SettledHistories(() => undefined, { names }));
    expect(await check()).toBe('unchanged');
    expect(reads()).toEqual([0, 1]);
    // helm run by hand wrote revision 2 after the names were taken: the probe finds it, the LIST reads it, the pass acts.
    const deployed = f.storage.records.find((r) => r.status === 'deployed')!;
    f.storage.add({ ...deployed, revision: 2, status: 'deployed', config: { replicas: 9 } });
    const stale = { names: [`sh.helm.release.v1.${NAME}.v1`], absent: `sh.helm.release.v1.${NAME}.v2`, notOlderThan: '1' };
    const behind = checksWith(f, new SettledHistories(() => undefined, { names: () => stale }));
    expect(await behind.check()).toBe('upgrade');
    expect(behind.reads()[0]).toBeGreaterThanOrEqual(1);
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
