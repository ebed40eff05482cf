import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { Team } from '../../../src/api/team.js';
import type { ReleaseStorage } from '../../../src/core/helm-storage/release-storage.js';
import type { FreezeApi } from '../../../src/core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../../src/core/kube/helmrelease-api.js';
import type { TeamApi } from '../../../src/core/kube/team-api.js';
import { watchedReads } from '../../../src/web/live/watched-reads.js';

/** The assistants' reads from the web's shared watch: memory once it has listed, the API server before; helm history kept per release version. */

const release = (namespace: string, name: string, resourceVersion = '1') =>
  ({ metadata: { namespace, name, resourceVersion }, spec: { chart: { name: 'app' } } }) as unknown as HelmRelease;

function parts(ready: boolean) {
  const asked: string[] = [];
  const watched = { releases: [release('a', 'one'), release('b', 'two')], teams: [{ metadata: { name: 't' } } as Team] };
  const watch = { ready, releases: () => watched.releases, freezes: () => [], teams: () => watched.teams };
  const direct = {
    api: { get: async () => (asked.push('get'), release('a', 'one')), list: async () => (asked.push('list'), { items: [] }) } as unknown as HelmReleaseApi,
    freezes: { list: async () => (asked.push('freezes'), { items: [] }) } as unknown as FreezeApi,
    teams: { list: async () => (asked.push('teams'), { items: [] }) } as unknown as TeamApi,
    storage: { history: async () => (asked.push('history'), { releases: [] }) } as unknown as ReleaseStorage,
  };
  return { asked, watched, reads: watchedReads(watch, direct) };
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
});
