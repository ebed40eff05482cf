import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { eachCluster } from '../../../src/session/fleet/each-cluster.js';
import type { ClusterDeps, FleetRouting } from '../../../src/session/flow/fleet-routing.js';
import { readClusters } from '../../../src/web/pages/reads.js';
import type { SharedReleaseWatch } from '../../../src/web/live/release-watch.js';
import { release } from './builders.js';

/** One cluster's read parts over fixed lists (a failing one throws), as a fleet agent answers them. */
function clusterOf(releases: HelmRelease[], fails?: string): ClusterDeps {
  const list = () => (fails ? Promise.reject(new Error(fails)) : Promise.resolve({ items: releases }));
  return {
    api: { list, get: async () => undefined },
    freezes: { list: async () => ({ items: [] }) },
    storage: { history: async () => ({ releases: [] }) },
  } as unknown as ClusterDeps;
}

const own = clusterOf([], 'the own cluster is read from the watch, not listed');

const fleet: FleetRouting = {
  own: 'east',
  members: async () => [
    { name: 'east', own: true },
    { name: 'west', own: false },
    { name: 'north', own: false, unavailable: 'unreachable since 10:00' },
    { name: 'south', own: false },
    { name: 'broken', own: false },
  ],
  // As session/fleet/fleet-router.ts: the own cluster routes to the local parts.
  route: async (cluster) => {
    if (cluster === 'east') return { ok: true, deps: own };
    if (cluster === 'west') return { ok: true, deps: clusterOf([release('api', 'pay')]) };
    if (cluster === 'broken') return { ok: true, deps: clusterOf([], 'agent timed out') };
    return { ok: false, message: `no key for cluster ${cluster}` };
  },
};

describe('eachCluster: one way to gather a fleet (chat and web)', () => {
  it('reads each member; names why one could not be asked', async () => {
    const answers = await eachCluster(fleet, async (deps) => (await deps.api.list()).items.map((r) => r.metadata.name));
    expect(answers.map((a) => [a.member.name, a.ok ? a.value : a.why])).toEqual([
      ['east', 'could not be read: the own cluster is read from the watch, not listed'],
      ['west', ['api']],
      ['north', 'unreachable since 10:00'],
      ['south', 'no key for cluster south'],
      ['broken', 'could not be read: agent timed out'],
    ]);
  });
});

describe('readClusters', () => {
  const watched = [release('web', 'shop')];
  const watch = { releases: () => watched, freezes: () => [] } as unknown as SharedReleaseWatch;

  it('without a fleet: the own cluster from the watch, unnamed', async () => {
    const readings = await readClusters({ own, watch }, new Date());
    expect(readings).toEqual([{ releases: watched, freezes: [], proposals: [] }]);
  });

  it('with a fleet: the own cluster from the watch under its name, the others through their parts, the unreadable named', async () => {
    const readings = await readClusters({ own, watch, fleet }, new Date());
    expect(readings.map((r) => [r.name, r.releases.map((x) => x.metadata.name), r.unavailable])).toEqual([
      ['east', ['web'], undefined],
      ['west', ['api'], undefined],
      ['north', [], 'unreachable since 10:00'],
      ['south', [], 'no key for cluster south'],
      ['broken', [], 'could not be read: agent timed out'],
    ]);
  });
});
