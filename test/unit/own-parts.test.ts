import { describe, expect, it } from 'vitest';
import { withOwnParts } from '../../src/session/fleet/own-parts.js';
import type { ClusterDeps, FleetRouting } from '../../src/session/flow/fleet-routing.js';

const parts = (label: string) => ({ label }) as unknown as ClusterDeps;

describe('withOwnParts: a surface’s own parts in the fleet’s routing', () => {
  const web = parts('web');
  const edge = parts('edge');
  const router: FleetRouting = {
    own: 'home',
    members: async () => [
      { name: 'home', own: true },
      { name: 'edge', own: false },
    ],
    route: async (cluster) =>
      cluster === 'home' ? { ok: true, deps: web } : cluster === 'edge' ? { ok: true, deps: edge } : { ok: false, message: `no cluster "${cluster}"` },
    clusters: async () => ['edge', 'home'],
  };
  const assistants = parts('assistants');
  const fleet = withOwnParts(router, assistants);

  it('routes the own cluster to the surface’s parts, every other through the router', async () => {
    expect(await fleet.route('home')).toEqual({ ok: true, deps: assistants });
    expect(await fleet.route('edge')).toEqual({ ok: true, deps: edge });
    expect(await fleet.route('gone')).toEqual({ ok: false, message: 'no cluster "gone"' });
  });

  it('keeps the router’s members, clusters and own name; no fleet freezes where the router has none', async () => {
    expect(fleet.own).toBe('home');
    expect((await fleet.members()).map((m) => m.name)).toEqual(['home', 'edge']);
    expect(await fleet.clusters?.()).toEqual(['edge', 'home']);
    expect(fleet.freezes).toBeUndefined();
  });
});
