import type { FreezeScope } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { ActionScope } from '../plan/prepared.js';
import type { AuthzTarget, PermissionVerb } from './policy-types.js';

/** Pure: what a request is authorized on. */

export function releaseAuthzTarget(release: HelmRelease, cluster?: string): AuthzTarget {
  return {
    kind: 'release',
    namespace: release.metadata.namespace,
    name: release.metadata.name,
    chart: release.spec.chart.name,
    ...(cluster ? { cluster } : {}),
  };
}

/** One namespace, or every namespace when none is named (`list`). */
export function namespaceAuthzTarget(namespace: string | undefined, cluster?: string): AuthzTarget {
  const where = cluster ? { cluster } : {};
  return namespace ? { kind: 'namespace', namespace, ...where } : { kind: 'all', ...where };
}

/**
 * The targets a prepared action must be authorized on. A freeze (and lifting one) is authorized on
 * its scope: each namespace it names, else each Team, else each chart; `all` on everything. In a
 * fleet, `cluster` is where the command acts (a Team's permission may be limited to some clusters).
 */
export function authzTargets(action: ActionScope, cluster?: string): AuthzTarget[] {
  // A fleet freeze: everything of each cluster (or glob) it names; a glob is allowed only by a permission covering all it could name.
  const fleet = action.fleetFreeze ?? action.fleetUnfreeze;
  if (fleet) return fleet.clusters.map((pattern) => ({ kind: 'all', cluster: pattern }));
  const scope = action.freeze?.spec.scope ?? action.unfreeze?.spec.scope;
  const where = cluster ?? ('cluster' in action.command ? action.command.cluster : undefined);
  const targets: AuthzTarget[] = scope
    ? scopeTargets(scope)
    : action.targets.map((t) => ({ kind: 'release', namespace: t.namespace, name: t.name, chart: t.chart }));
  return where === undefined ? targets : targets.map((t) => ({ ...t, cluster: where }));
}

export function scopeTargets(scope: FreezeScope): AuthzTarget[] {
  if (scope.all) return [{ kind: 'all' }];
  if (scope.namespaces) return scope.namespaces.map((namespace) => ({ kind: 'namespace', namespace }));
  if (scope.teams) return scope.teams.map((team) => ({ kind: 'team', team }));
  return (scope.charts ?? []).map((chart) => ({ kind: 'chart', chart }));
}

/** The permission a prepared action needs: freezing or lifting a whole-cluster freeze (a fleet freeze too) needs `freeze-all`, granted by name. */
export function authzVerb(action: ActionScope): PermissionVerb {
  if (action.fleetFreeze ?? action.fleetUnfreeze) return 'freeze-all';
  const scope = action.freeze?.spec.scope ?? action.unfreeze?.spec.scope;
  return scope?.all ? 'freeze-all' : action.command.verb;
}
