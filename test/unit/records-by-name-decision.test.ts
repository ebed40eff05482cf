import { describe, expect, it } from 'vitest';
import { namesToRead, nextRecordName } from '../../src/controller/reconcile/decide/settled-records.js';

// Issue 50: a pass reads helm's records by name, at the version the record watch has seen, whenever
// the watch has listed; the next revision's record must then be absent (decide/settled-records.ts).

describe('namesToRead: the records a read may GET by name, and the one that must be absent', () => {
  const v = (revision: number) => `sh.helm.release.v1.app.v${revision}`;
  const fresh = { seenVersion: '120', heardAgoMs: 1_000, maxSilenceMs: 150_000 };

  it('a watch that has seen the version: its names, nothing to probe', () => {
    expect(namesToRead([v(1), v(2)], 'app', fresh, '120')).toEqual({ names: [v(1), v(2)], notOlderThan: '120' });
  });

  it('a watch behind the version (no Secret event since the status write): its names, read as new as the watch, and the next revision must be absent', () => {
    expect(namesToRead([v(2), v(1)], 'app', fresh, '180')).toEqual({ names: [v(2), v(1)], absent: v(3), notOlderThan: '120' });
    // A release the watch knows no record of: its first revision must be absent.
    expect(namesToRead([], 'app', fresh, '180')).toEqual({ names: [], absent: v(1), notOlderThan: '120' });
  });

  it('nothing to GET by name: the absent record is asked for even when the watch has seen the version (its GET is what finds a 403)', () => {
    expect(namesToRead([], 'app', fresh, '120')).toEqual({ names: [], absent: v(1), notOlderThan: '120' });
    expect(namesToRead([v(1)], 'app', fresh, '120', () => false)).toEqual({ names: [], absent: v(2), notOlderThan: '120' });
  });

  it('keeps only what `keep` keeps, but probes after the newest of all', () => {
    expect(namesToRead([v(1), v(2)], 'app', fresh, '180', (name) => name === v(1))).toEqual({ names: [v(1)], absent: v(3), notOlderThan: '120' });
  });

  it("LISTs when the watch has not listed, has been silent too long behind the version, or holds a name not helm's", () => {
    expect(namesToRead([v(1)], 'app', { ...fresh, seenVersion: undefined }, '120')).toBeUndefined();
    expect(namesToRead([v(1)], 'app', fresh, undefined)).toBeUndefined();
    expect(namesToRead([v(1)], 'app', { ...fresh, heardAgoMs: 150_001 }, '180')).toBeUndefined();
    // Silence does not matter when the watch has seen the version itself.
    expect(namesToRead([v(1)], 'app', { ...fresh, heardAgoMs: 150_001 }, '120')).toEqual({ names: [v(1)], notOlderThan: '120' });
    expect(namesToRead(['sh.helm.release.v1.app.vX'], 'app', fresh, '180')).toBeUndefined();
  });
});

describe('nextRecordName', () => {
  it.each([
    { held: [] as string[], next: 'sh.helm.release.v1.app.v1' },
    { held: ['sh.helm.release.v1.app.v9', 'sh.helm.release.v1.app.v10'], next: 'sh.helm.release.v1.app.v11' },
    // Another release's record, or a name helm would not write: cannot say.
    { held: ['sh.helm.release.v1.app-2.v1'], next: undefined },
    { held: ['sh.helm.release.v1.app.v01'], next: undefined },
  ])('$held → $next', ({ held, next }) => {
    expect(nextRecordName(held, 'app')).toBe(next);
  });
});
