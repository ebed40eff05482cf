import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetFreezeObject, freezesOfCluster, parseFleetFreeze, type FleetFreeze } from '../../src/core/fleet/fleet-freezes.js';
import { FleetFreezeWatch } from '../../src/controller/watch/fleet-freeze-watch.js';
import { WithFleetFreezes } from '../../src/controller/watch/fleet-freeze-view.js';
import { fleetWakeKeys } from '../../src/controller/watch/frozen-wake.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';

const record = (name: string, clusters: string[], until?: string): FleetFreeze => ({
  clusters,
  freeze: fleetFreezeObject(name, { reason: 'INC-1', setBy: 'slack:UOPS', ...(until ? { until } : {}) }),
});
const facts = { namespace: 'web', name: 'web', chart: 'web', targetNamespace: 'web', labels: {}, releaseName: 'web' };

describe('fleet freeze records', () => {
  it('hold the clusters their names and globs take in', () => {
    const records = [record('prod-1', ['prod-*']), record('edge-1', ['edge']), record('all-1', ['*'])];
    expect(freezesOfCluster(records, 'prod-eu').map((f) => f.metadata.name)).toEqual(['prod-1', 'all-1']);
    expect(freezesOfCluster(records, 'staging').map((f) => f.metadata.name)).toEqual(['all-1']);
  });

  it('a record read back is the one written, its scope always all', () => {
    const written = record('prod-1', ['prod-*'], '2026-11-26T18:00:00Z');
    expect(parseFleetFreeze('prod-1', JSON.stringify(written))).toEqual(written);
    const widened = { ...written, freeze: { ...written.freeze, spec: { ...written.freeze.spec, scope: { namespaces: ['x'] } } } };
    expect(parseFleetFreeze('prod-1', JSON.stringify(widened)).freeze.spec.scope).toEqual({ all: true });
  });

  it('a record that cannot be read holds every cluster, and says so (fail closed)', () => {
    for (const raw of ['{not json', JSON.stringify({ clusters: [], freeze: {} }), JSON.stringify(record('other-name', ['x']))]) {
      const parsed = parseFleetFreeze('bad-1', raw);
      expect(parsed.clusters).toEqual(['*']);
      expect(parsed.freeze.spec.reason).toContain('the fleet freeze record bad-1 cannot be read');
    }
  });
});

describe('FleetFreezeWatch and the combined view', () => {
  let watch: FleetFreezeWatch | undefined;
  afterEach(() => watch?.stop());
  const log = pino({ level: 'silent' });

  function setUp(list: () => Promise<FleetFreeze[]>) {
    let now = Date.parse('2026-11-26T16:00:00Z');
    const changes: string[] = [];
    watch = new FleetFreezeWatch({ list, cluster: 'prod-eu', pollMs: 60_000, staleAfterMs: 3000, onChange: (r) => changes.push(r), log, now: () => now });
    const local = { holding: () => [] };
    return { watch, changes, view: new WithFleetFreezes(local, watch), advance: (ms: number) => (now += ms), at: () => new Date(now) };
  }

  it('holds a release of a cluster a fleet freeze takes in, and not one it does not', async () => {
    const { watch: w, view, changes, at } = setUp(async () => [record('prod-1', ['prod-*']), record('stg-1', ['staging'])]);
    await w.start();
    expect(w.unknown()).toBeUndefined();
    expect(view.holding(facts, at())?.map((h) => h.name)).toEqual(['prod-1']);
    expect(changes).toEqual(['fleet freezes read']);
  });

  it('unknown until a first read, and once the last good read is stale; says why (fail closed)', async () => {
    let fail: Error | undefined = new Error("NOPERM User agent-blind has no permissions to access the '{hc}:fleet:freezes' key");
    const {
      watch: w,
      view,
      advance,
      at,
    } = setUp(async () => {
      if (fail) throw fail;
      return [];
    });
    await w.start();
    expect(view.holding(facts, at())).toBeUndefined();
    expect(view.unknown()).toMatch(/^the fleet freezes have not been read from Redis yet since .*: NOPERM .*; no helm action until they are$/);
    fail = undefined;
    await (w as unknown as { poll: () => Promise<void> }).poll();
    expect(view.holding(facts, at())).toEqual([]);
    fail = new Error('Connection is closed.');
    await (w as unknown as { poll: () => Promise<void> }).poll();
    // A failed read within the stale bound keeps the last good state.
    expect(view.holding(facts, at())).toEqual([]);
    advance(3001);
    expect(view.holding(facts, at())).toBeUndefined();
    expect(view.unknown()).toMatch(/could not be read from Redis since .*: Connection is closed\./);
  });

  it('wakes held and waiting releases when the fleet freezes change', () => {
    const hr = (name: string, reason?: string, frozen = false) =>
      ({
        metadata: { namespace: 'web', name },
        status: {
          conditions: [
            ...(reason ? [{ type: 'Ready', status: 'False', reason, message: '' }] : []),
            ...(frozen ? [{ type: 'Frozen', status: 'True', reason: 'Frozen', message: '' }] : []),
          ],
        },
      }) as unknown as HelmRelease;
    expect(fleetWakeKeys([hr('a', 'FleetFreezesUnknown'), hr('b', 'Frozen', true), hr('c', 'InSync')])).toEqual(['web/a', 'web/b']);
  });
});
