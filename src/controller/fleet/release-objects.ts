import type { HelmRelease } from '../../api/helmrelease.js';
import { objectRowsForFleet } from '../../core/fleet/fleet-objects.js';
import { ClusterObjects } from '../../core/kube/cluster-objects.js';
import { ObjectReader } from '../../core/kube/object-reader.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { readInventoryRows } from '../../core/release/inventory-rows.js';
import type { ObjectRow } from '../../core/release/object-rows.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { TenancyPolicy } from '../../core/release/tenancy-policy.js';
import { serviceAccountUser } from '../reconcile/decide/tenancy.js';

/**
 * A release's inventory objects and their health, for the agent's `objects` answer (the web's page
 * of a release in this cluster): read as the identity drift detection reads them — the release's
 * ServiceAccount when it acts as one (actions/drift.ts) — so an answer shows nothing that
 * identity could not read, and the agent needs no right it lacks. Objects of a release installed
 * elsewhere (spec.kubeConfig) are listed unread. Only the rows leave (core/fleet/fleet-objects.ts).
 */
export function releaseObjectRows(rest: KubeRest, tenancy: TenancyPolicy): (release: HelmRelease) => Promise<ObjectRow[]> {
  const objects = new ObjectReader(new ClusterObjects(rest));
  return async (release) => {
    const inventory = release.status?.inventory;
    if (release.spec.kubeConfig) return objectRowsForFleet(await readInventoryRows(undefined, inventory));
    const target = releaseTarget(release, tenancy);
    const reader = target.impersonate ? objects.forUser(serviceAccountUser(target.impersonate)) : objects;
    return objectRowsForFleet(await readInventoryRows(reader, inventory));
  };
}
