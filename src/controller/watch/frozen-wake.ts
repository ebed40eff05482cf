import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType, StateReason } from '../../api/vocabulary.js';
import { isFrozenRecorded } from '../reconcile/decide/freeze-decision.js';

/** Pure: the releases a change of Freezes may let go — those whose status says a freeze holds them. */
export function frozenReleaseKeys(releases: readonly HelmRelease[]): string[] {
  return releases.filter(isFrozenRecorded).map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
}

/** Pure: the releases a change of the fleet's freezes may let go — held by a freeze, or waiting because the fleet's freezes were unknown. */
export function fleetWakeKeys(releases: readonly HelmRelease[]): string[] {
  const waiting = (r: HelmRelease) =>
    r.status?.conditions?.some((c) => c.type === ConditionType.Ready && c.reason === StateReason.FleetFreezesUnknown) ?? false;
  return releases.filter((r) => isFrozenRecorded(r) || waiting(r)).map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
}
