import type { HelmRelease } from '../../api/helmrelease.js';
import { isFrozenRecorded } from '../reconcile/decide/freeze-decision.js';

/** Pure: the releases a change of Freezes may let go — those whose status says a freeze holds them. */
export function frozenReleaseKeys(releases: readonly HelmRelease[]): string[] {
  return releases.filter(isFrozenRecorded).map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
}
