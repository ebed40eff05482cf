import type { ClusterDeps, FleetRouting } from '../flow/fleet-routing.js';

/**
 * The fleet as another surface of the same server drives it: its own cluster through that
 * surface's parts (the assistants' session writes as `helmcrew-mcp`, reads from the web's shared
 * watch), every other cluster through the one router and its agents, as the web and the bot.
 */
export function withOwnParts(fleet: FleetRouting, own: ClusterDeps): FleetRouting {
  return {
    own: fleet.own,
    members: () => fleet.members(),
    route: (cluster) => (cluster === fleet.own ? Promise.resolve({ ok: true, deps: own }) : fleet.route(cluster)),
    ...(fleet.freezes ? { freezes: fleet.freezes } : {}),
    ...(fleet.clusters ? { clusters: () => fleet.clusters!() } : {}),
  };
}
