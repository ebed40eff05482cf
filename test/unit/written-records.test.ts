import { describe, expect, it } from 'vitest';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { storedRelease } from './support/stored-release.js';
import {
  beforeStatusWrite,
  bindWritten,
  namesToRead,
  readRightsKnown,
  recordFingerprint,
  type Watched,
} from '../../src/controller/reconcile/decide/settled-records.js';
import { READ_RIGHTS_MAX_AGE_MS, READ_RIGHTS_MAX_ENTRIES, SettledHistories } from '../../src/controller/watch/settled-histories.js';

// Issue 50: the check due after our own install or upgrade takes that run's history for a read once
// the record watch shows exactly what it wrote (bindWritten), and an install's read skips the absent
// record's GET when the identity's read rights there are known (readRightsKnown).

const v = (revision: number) => `sh.helm.release.v1.app.v${revision}`;
const written = { records: [{ name: v(2), status: 'deployed' }], writtenBefore: '500' };

describe('bindWritten: may the watched records stand as those our own run wrote', () => {
  it('binds to the watch fingerprint when the names and statuses are those written, each older than the status write', () => {
    const held = [{ name: v(2), resourceVersion: '480', status: 'deployed' }];
    expect(bindWritten(written, held)).toBe(recordFingerprint(held));
  });

  it.each([
    { name: 'helm upgrade by hand after the status write (a new record)', held: [{ name: v(3), resourceVersion: '520', status: 'deployed' }] },
    {
      name: 'a new record from helm by hand beside ours',
      held: [
        { name: v(2), resourceVersion: '480', status: 'deployed' },
        { name: v(3), resourceVersion: '490', status: 'pending-upgrade' },
      ],
    },
    { name: 'our record written again after the status write (kubectl edit)', held: [{ name: v(2), resourceVersion: '501', status: 'deployed' }] },
    { name: 'helm uninstall --keep-history by hand (status label changed)', held: [{ name: v(2), resourceVersion: '490', status: 'uninstalled' }] },
    { name: 'the watch has not shown our record yet', held: [] },
    { name: 'not an etcd revision', held: [{ name: v(2), resourceVersion: 'x1', status: 'deployed' }] },
  ])('does not bind: $name', ({ held }) => {
    expect(bindWritten(written, held)).toBeUndefined();
  });

  it('does not bind when the status write version is not a number', () => {
    expect(bindWritten({ ...written, writtenBefore: '' }, [{ name: v(2), resourceVersion: '1', status: 'deployed' }])).toBeUndefined();
  });
});

describe('beforeStatusWrite: may a record event be one of our own run writes', () => {
  it('only a decimal version older than the status write', () => {
    expect(beforeStatusWrite(written, '499')).toBe(true);
    expect(beforeStatusWrite(written, '500')).toBe(false);
    expect(beforeStatusWrite(written, '1000')).toBe(false);
    expect(beforeStatusWrite(written, undefined)).toBe(false);
    expect(beforeStatusWrite(written, '4e2')).toBe(false);
    expect(beforeStatusWrite({ ...written, writtenBefore: '' }, '1')).toBe(false);
  });
});

describe('readRightsKnown and the absent record a read asks for', () => {
  it('known only after a success within the maximum age', () => {
    expect(readRightsKnown(undefined, 1000, 60_000)).toBe(false);
    expect(readRightsKnown(1000, 60_999, 60_000)).toBe(true);
    expect(readRightsKnown(1000, 61_000, 60_000)).toBe(false);
    // A clock that went back says nothing.
    expect(readRightsKnown(2000, 1000, 60_000)).toBe(false);
  });

  const fresh = { seenVersion: '120', heardAgoMs: 1_000, maxSilenceMs: 150_000 };
  it('rights known and the watch covers the version: no record and nothing to probe (an install reads nothing)', () => {
    expect(namesToRead([], 'app', fresh, '120', () => true, true)).toEqual({ names: [], notOlderThan: '120' });
    expect(namesToRead([], 'app', fresh, '120', () => true, false)).toEqual({ names: [], absent: v(1), notOlderThan: '120' });
  });

  it('a watch behind the version still probes the next record, rights known or not (a record may have come since)', () => {
    expect(namesToRead([], 'app', fresh, '180', () => true, true)).toEqual({ names: [], absent: v(1), notOlderThan: '120' });
  });
});

describe('SettledHistories: what our own run wrote, and read rights', () => {
  const record = (over: Partial<StoredRelease> = {}): StoredRelease => storedRelease({ revision: 2, labels: { status: 'deployed' }, ...over });
  const key = { namespace: 'apps', releaseName: 'app', identity: '' };
  const history = summarizeHistory([record(), record({ revision: 1, status: 'superseded', labels: { status: 'superseded' } })]);
  const watchedOf = (records: Array<{ name: string; resourceVersion: string; status?: string }>): Watched => ({
    fingerprint: recordFingerprint(records),
    records,
    heardAgoMs: 0,
  });

  it('recalls what the run wrote once the watch shows it, and an event after that forgets it', () => {
    let watchedNow: Watched = watchedOf([]);
    const settled = new SettledHistories(() => watchedNow);
    settled.rememberWritten(key, history, '500');
    // The watch has not shown helm's record yet: not trusted, but not forgotten by the events of the run's own writes.
    expect(settled.recall(key)).toBeUndefined();
    settled.forget('apps', 'app', '490');
    watchedNow = watchedOf([{ name: v(2), resourceVersion: '490', status: 'deployed' }]);
    const recalled = settled.recall(key);
    expect(recalled?.deployed).toMatchObject({ revision: 2, config: { replicas: 1 } });
    expect(recalled?.deployed?.manifest).toBeUndefined();
    expect(settled.counts.recalled).toBe(1);
    // Bound: an ordinary remembered read, which the watch's next event forgets, whatever its version.
    settled.forget('apps', 'app', '490');
    expect(settled.recall(key)).toBeUndefined();
  });

  it('an event after the status write (helm by hand, a delete) forgets what the run wrote before it is bound', () => {
    const settled = new SettledHistories(() => watchedOf([{ name: v(2), resourceVersion: '490', status: 'deployed' }]));
    for (const version of ['500', '731', undefined, 'x']) {
      settled.rememberWritten(key, history, '500');
      settled.forget('apps', 'app', version);
      expect(settled.size).toBe(0);
    }
  });

  it('helm upgrade by hand after our run: the check reads', () => {
    const settled = new SettledHistories(() =>
      watchedOf(
        [
          { name: v(2), resourceVersion: '490', status: 'superseded' },
          { name: v(3), resourceVersion: '530', status: 'deployed' },
        ].filter((r) => r.status !== 'superseded'),
      ),
    );
    settled.rememberWritten(key, history, '500');
    expect(settled.recall(key)).toBeUndefined();
    expect(settled.counts['none remembered']).toBe(1);
  });

  it('a watch restart forgets what our run wrote; another identity does not recall it', () => {
    const settled = new SettledHistories(() => watchedOf([{ name: v(2), resourceVersion: '490', status: 'deployed' }]));
    settled.rememberWritten(key, history, '500');
    expect(settled.recall({ ...key, identity: 'system:serviceaccount:apps:deployer' })).toBeUndefined();
    settled.forgetScope('apps');
    expect(settled.recall(key)).toBeUndefined();
  });

  it('read rights: passed on to the record names once shown, for a while, for that identity and namespace only', () => {
    let now = 0;
    const asked: boolean[] = [];
    const settled = new SettledHistories(() => undefined, {
      now: () => now,
      names: (_ns, _name, _version, _without, rightsKnown) => {
        asked.push(rightsKnown);
        return undefined;
      },
    });
    settled.recordNames(key, '1', true);
    settled.readRightsShown(key);
    settled.recordNames(key, '1', true);
    settled.recordNames({ ...key, releaseName: 'other' }, '1', true);
    settled.recordNames({ ...key, namespace: 'elsewhere' }, '1', true);
    settled.recordNames({ ...key, identity: 'system:serviceaccount:apps:deployer' }, '1', true);
    now = READ_RIGHTS_MAX_AGE_MS;
    settled.recordNames(key, '1', true);
    expect(asked).toEqual([false, true, true, false, false, false]);
  });

  it('read rights: memory bounded, the oldest forgotten first', () => {
    const asked: boolean[] = [];
    const settled = new SettledHistories(() => undefined, { names: (_a, _b, _c, _d, known) => (asked.push(known), undefined) });
    for (let i = 0; i <= READ_RIGHTS_MAX_ENTRIES; i++) settled.readRightsShown({ ...key, namespace: `ns${i}` });
    settled.recordNames({ ...key, namespace: 'ns0' }, '1', false);
    settled.recordNames({ ...key, namespace: `ns${READ_RIGHTS_MAX_ENTRIES}` }, '1', false);
    expect(asked).toEqual([false, true]);
  });
});
