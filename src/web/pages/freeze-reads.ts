import type { Freeze } from '../../api/freeze.js';
import { fleetFreezeObject, freezesOfCluster, type FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import { eachCluster } from '../../session/fleet/each-cluster.js';
import { bannerFreezes, freezeRows } from '../views/freezes-view.js';
import { fleetBannerRows, fleetFreezeRows, type ClusterFreezes, type FleetFreezeRows } from '../views/fleet-freezes-view.js';
import type { ClusterReading } from '../views/fleet-view.js';
import type { PagesDeps } from './deps.js';

/**
 * The Freezes the banner and the freezes page show. Without a fleet: the own cluster's, from the
 * shared watch. With one: every cluster's (another's through its agent, the `freezes` question:
 * its own Freeze objects and the fleet freezes taking it in) and the fleet freezes themselves
 * (Redis, the hub's own read), so a person on any page sees that prod-eu is frozen wherever the
 * web runs. A cluster that does not answer is named, never a failed page.
 */

/** The own cluster's Freeze objects: the watch's memory once it has listed, else one LIST. */
export async function ownFreezeObjects(deps: PagesDeps): Promise<Freeze[]> {
  return deps.watch.freezes() ?? (await deps.own.freezes.list()).items;
}

/** The fleet freezes in Redis; none without a fleet. Unreadable: fail closed, a stand-in that holds every cluster and says why. */
export async function fleetFreezeRecords(deps: PagesDeps): Promise<FleetFreeze[]> {
  const store = deps.fleet?.freezes;
  if (!store) return [];
  try {
    return await store.list();
  } catch (error) {
    return [
      {
        clusters: ['*'],
        freeze: fleetFreezeObject('fleet-freezes-unreadable', { reason: `the fleet freezes could not be read: ${(error as Error).message}` }),
      },
    ];
  }
}

/** What holds in the own cluster: its Freeze objects and, in a fleet, the fleet freezes taking it in (as its agent answers for it). */
export async function ownFreezes(deps: PagesDeps): Promise<Freeze[]> {
  const [own, records] = await Promise.all([ownFreezeObjects(deps), fleetFreezeRecords(deps)]);
  return deps.fleet ? [...own, ...freezesOfCluster(records, deps.fleet.own)] : own;
}

/** Every cluster's Freezes, each as it answered (its own and the fleet's taking it in) or why it did not. */
async function everyClusterFreezes(deps: PagesDeps): Promise<ClusterFreezes[]> {
  const fleet = deps.fleet!;
  const answers = await eachCluster(fleet, async (cluster, member) => (member.own ? ownFreezes(deps) : (await cluster.freezes.list()).items));
  return answers.map((a) =>
    a.ok ? { cluster: a.member.name, own: a.member.own, freezes: a.value } : { cluster: a.member.name, own: a.member.own, unreadable: a.why },
  );
}

/** The freezes page's rows: all of the own cluster's, or, in a fleet, of every cluster and the fleet's. */
export async function freezesPageRows(deps: PagesDeps, now: Date): Promise<FleetFreezeRows & { fleet: boolean }> {
  if (!deps.fleet) return { rows: freezeRows(await ownFreezeObjects(deps), now), unknown: [], fleet: false };
  const [clusters, records] = await Promise.all([everyClusterFreezes(deps), fleetFreezeRecords(deps)]);
  return { ...fleetFreezeRows(clusters, records, now), fleet: true };
}

/**
 * The banner's rows. `readings`, when the page has read every cluster already (the fleet and
 * proposals pages), are used as they are; otherwise every cluster is asked.
 */
export async function bannerRows(deps: PagesDeps, now: Date, readings?: readonly ClusterReading[]): Promise<FleetFreezeRows> {
  if (!deps.fleet) return { rows: bannerFreezes(await ownFreezeObjects(deps), now), unknown: [] };
  const own = deps.fleet.own;
  const [clusters, records] = await Promise.all([
    readings
      ? Promise.resolve(
          readings.map((r): ClusterFreezes => {
            const cluster = r.name ?? own;
            return r.unavailable ? { cluster, own: cluster === own, unreadable: r.unavailable } : { cluster, own: cluster === own, freezes: r.freezes };
          }),
        )
      : everyClusterFreezes(deps),
    fleetFreezeRecords(deps),
  ]);
  return fleetBannerRows(clusters, records, now);
}
