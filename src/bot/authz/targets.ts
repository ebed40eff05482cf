import type { HelmRelease } from '../../api/helmrelease.js';
import type { PreparedAction } from '../plan/prepared.js';
import type { AuthzTarget } from './policy-types.js';

/** Pure: what a request is authorized on. */

export function releaseAuthzTarget(release: HelmRelease): AuthzTarget {
  return { kind: 'release', namespace: release.metadata.namespace, name: release.metadata.name, chart: release.spec.chart.name };
}

/** One namespace, or every namespace when none is named (`list`). */
export function namespaceAuthzTarget(namespace: string | undefined): AuthzTarget {
  return namespace ? { kind: 'namespace', namespace } : { kind: 'all' };
}

/** The targets a prepared action must be authorized on. A freeze is authorized on its scope. */
export function authzTargets(action: PreparedAction): AuthzTarget[] {
  const command = action.command;
  if (command.verb === 'freeze' || command.verb === 'unfreeze') {
    return [command.scope.kind === 'all' ? { kind: 'all' } : { kind: 'namespace', namespace: command.scope.namespace }];
  }
  return action.targets.map((t) => ({ kind: 'release', namespace: t.namespace, name: t.name, chart: t.chart }));
}
