import { describe, expect, it } from 'vitest';
import { expiredReplicas, fleetFromHeartbeats, parseHeartbeat, renderFleet, shortAge, type AgentHeartbeat } from '../../src/core/fleet/heartbeat.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const beat = (cluster: string, replica: string, agoMs: number, releases = 5, version = '0.1.0'): AgentHeartbeat => ({
  cluster,
  replica,
  version,
  releases,
  at: new Date(NOW - agoMs).toISOString(),
  intervalMs: 10_000,
});

describe('the fleet from heartbeats', () => {
  it('a cluster with a fresh replica is up; one silent for three intervals is unreachable since its last beat', () => {
    const fleet = fleetFromHeartbeats(
      new Map([
        ['home', [beat('home', 'a', 5_000, 12), beat('home', 'b', 2_000, 0)]],
        ['edge', [beat('edge', 'a', 31_000, 7), beat('edge', 'b', 45_000, 7)]],
      ]),
      NOW,
    );
    expect(fleet).toEqual([
      { name: 'edge', state: 'unreachable', version: '0.1.0', releases: 7, replicas: 0, lastHeartbeat: new Date(NOW - 31_000).toISOString(), ageMs: 31_000 },
      { name: 'home', state: 'up', version: '0.1.0', releases: 12, replicas: 2, lastHeartbeat: new Date(NOW - 2_000).toISOString(), ageMs: 2_000 },
    ]);
  });

  it('exactly three intervals is still up (one lost beat is not an outage)', () => {
    expect(fleetFromHeartbeats(new Map([['x', [beat('x', 'a', 30_000)]]]), NOW)[0]!.state).toBe('up');
  });

  it('a cluster with no record left, or a record claiming another cluster, is not listed', () => {
    expect(
      fleetFromHeartbeats(
        new Map([
          ['gone', []],
          ['home', [beat('edge', 'a', 0)]],
        ]),
        NOW,
      ),
    ).toEqual([]);
  });

  it.each(['not json', '{}', '{"cluster":"a","version":"1","replica":"r","at":"yesterday","releases":1,"intervalMs":10}', 'null'])(
    '%s is not a heartbeat',
    (raw) => expect(parseHeartbeat(raw)).toBeUndefined(),
  );

  it('replicas older than the time to live, or unreadable, are removed by the writer', () => {
    const beats = new Map([
      ['old', JSON.stringify(beat('home', 'old', 3600_001))],
      ['new', JSON.stringify(beat('home', 'new', 1))],
      ['junk', 'x'],
    ]);
    expect(expiredReplicas(beats, NOW, 3600_000).sort()).toEqual(['junk', 'old']);
  });

  it('renders a table a person reads', () => {
    const text = renderFleet(
      fleetFromHeartbeats(
        new Map([
          ['edge', [beat('edge', 'a', 90_000)]],
          ['home', [beat('home', 'a', 1000)]],
        ]),
        NOW,
      ),
    );
    expect(text.split('\n')).toEqual([
      'CLUSTER  STATE                                       VERSION  RELEASES  LAST HEARTBEAT',
      'edge     unreachable since 2026-11-26T11:58:30.000Z  0.1.0    5         90s ago',
      'home     up (1 replica)                              0.1.0    5         1s ago',
    ]);
    expect(renderFleet([])).toMatch(/no agent/);
  });

  it.each([
    [5_000, '5s'],
    [600_000, '10m'],
    [3 * 3600_000, '3h'],
    [3 * 86_400_000, '3d'],
  ])('%i ms reads %s', (ms, want) => expect(shortAge(ms)).toBe(want));
});
