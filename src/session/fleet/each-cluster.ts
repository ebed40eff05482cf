import type { ClusterDeps, FleetMember, FleetRouting } from '../flow/fleet-routing.js';

/** One cluster's answer: what `read` made of it, or why it could not be asked (unreachable since …, no key, an error). */
export type ClusterAnswer<T> = { member: FleetMember; ok: true; value: T } | { member: FleetMember; ok: false; why: string };

/**
 * Reads every cluster of the fleet side by side, each through its own parts (its API server, or
 * its agent through Redis): the one way `list --cluster all` in chat and the web's fleet page
 * gather clusters. A cluster that cannot be asked is named with why, never left out.
 */
export async function eachCluster<T>(fleet: FleetRouting, read: (deps: ClusterDeps, member: FleetMember) => Promise<T>): Promise<Array<ClusterAnswer<T>>> {
  return Promise.all(
    (await fleet.members()).map(async (member): Promise<ClusterAnswer<T>> => {
      if (member.unavailable) return { member, ok: false, why: member.unavailable };
      const route = await fleet.route(member.name);
      if (!route.ok) return { member, ok: false, why: route.message };
      try {
        return { member, ok: true, value: await read(route.deps, member) };
      } catch (error) {
        return { member, ok: false, why: `could not be read: ${(error as Error).message}` };
      }
    }),
  );
}
