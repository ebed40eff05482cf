import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { Team } from '../../../src/api/team.js';
import { summarizeHistory, type ReleaseStorage, type StoredRelease, type StoredReleaseStatus } from '../../../src/core/helm-storage/release-storage.js';
import type { FreezeApi } from '../../../src/core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../../src/core/kube/helmrelease-api.js';
import type { TeamApi } from '../../../src/core/kube/team-api.js';
import { watchedReads } from '../../../src/web/live/watched-reads.js';

/** The assistants' reads from the web's shared watches: memory once they have listed, the API server before. */

const release = (namespace: string, name: string, resourceVersion = '1') =>
  ({ metadata: { namespace, name, resourceVersion }, spec: { chart: { name: 'app' } } }) as unknown as HelmRelease;

const summary = (revision: number, status: StoredReleaseStatus): StoredRelease => ({
  name: 'one',
  namespace: 'a',
  revision,
  status,
  chartName: 'app',
  chartVersion: '1.0.0',
  config: {},
});

/** The record watch as the reads see it: listed (summaries and record names) or not yet. */
const recordWatch = (listed: boolean) => ({
  filled: async () => undefined,
  readEveryRecord: () => undefined,
  history: (namespace: string, release: string) =>
    listed ? (namespace === 'a' && release === 'one' ? summarizeHistory([summary(1, 'superseded'), summary(2, 'deployed')]) : { releases: [] }) : undefined,
  records: (namespace: string, release: string) =>
    listed ? { names: namespace === 'a' && release === 'one' ? ['sh.helm.release.v1.one.v1', 'sh.helm.release.v1.one.v2'] : [], seenVersion: '42' } : undefined,
});

function parts(ready: boolean, records?: ReturnType<typeof recordWatch>) {
  const asked: string[] = [];
  const watched = { releases: [release('a', 'one'), release('b', 'two')], teams: [{ metadata: { name: 't' } } as Team] };
  const watch = { ready, releases: () => watched.releases, freezes: () => [], teams: () => watched.teams };
  const direct = {
    api: { get: async () => (asked.push('get'), release('a', 'one')), list: async () => (asked.push('list'), { items: [] }) } as unknown as HelmReleaseApi,
    freezes: { list: async () => (asked.push('freezes'), { items: [] }) } as unknown as FreezeApi,
    teams: { list: async () => (asked.push('teams'), { items: [] }) } as unknown as TeamApi,
    storage: {
      history: async () => (asked.push('history'), { releases: [] }),
      historyOfRecords: async (_ns: string, _rel: string, names: string[], opts: { notOlderThan: string }) => (
        asked.push(`get ${names.join(',')} not older than ${opts.notOlderThan}`),
        { history: { releases: [] }, records: [] }
      ),
    } as unknown as ReleaseStorage,
  };
  return { asked, watched, reads: watchedReads(watch, direct, records) };
}

describe('watchedReads', () => {
  it('once the watch has listed: releases, freezes and Teams from memory, no API request', async () => {
    const { asked, reads } = parts(true);
    expect((await reads.api.get('b', 'two'))?.metadata.name).toBe('two');
    expect(await reads.api.get('b', 'gone')).toBeUndefined();
    expect((await reads.api.list('a')).items.map((r) => r.metadata.name)).toEqual(['one']);
    expect((await reads.api.list()).items).toHaveLength(2);
    expect((await reads.teams.list()).items).toHaveLength(1);
    await reads.freezes.list();
    expect(asked).toEqual([]);
  });

  it('before it has listed: the API server', async () => {
    const { asked, reads } = parts(false);
    await reads.api.get('a', 'one');
    await reads.api.list();
    await reads.teams.list();
    await reads.freezes.list();
    await reads.storage.history('a', 'one');
    expect(asked).toEqual(['get', 'list', 'teams', 'freezes', 'history']);
  });

  it('helm history: summaries from the record watch; values (a rollback, a diff) by name, not older than the watch; a LIST only before it listed', async () => {
    const { asked, reads: withRecords } = parts(true, recordWatch(true));
    const history = await withRecords.storage.history('a', 'one', { summary: true });
    expect(history.releases.map((r) => r.revision)).toEqual([2, 1]);
    expect(history.deployed?.revision).toBe(2);
    expect((await withRecords.storage.history('a', 'one', { summary: true, withoutSuperseded: true })).releases.map((r) => r.revision)).toEqual([2]);
    expect(asked).toEqual([]);
    await withRecords.storage.history('a', 'one');
    await withRecords.storage.history('a', 'none');
    expect(asked).toEqual(['get sh.helm.release.v1.one.v1,sh.helm.release.v1.one.v2 not older than 42', 'get  not older than 42']);
    const notListed = parts(true, recordWatch(false));
    await notListed.reads.storage.history('a', 'one', { summary: true });
    expect(notListed.asked).toEqual(['history']);
  });
});
