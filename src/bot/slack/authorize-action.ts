import { authorize, authorizeApproval, type AuthzDecision } from '../authz/authorize.js';
import type { AuthzTarget, PermissionVerb, Subject, TeamPolicy } from '../authz/policy-types.js';
import type { PreparedAction } from '../execute/prepared.js';

/** Pure: the targets a prepared action must be authorized on. A freeze is authorized on its scope. */
export function authzTargets(action: PreparedAction): AuthzTarget[] {
  const command = action.command;
  if (command.verb === 'freeze' || command.verb === 'unfreeze') {
    return [command.scope.kind === 'all' ? { kind: 'all' } : { kind: 'namespace', namespace: command.scope.namespace }];
  }
  return action.targets.map((t) => ({ kind: 'release', namespace: t.namespace, name: t.name, chart: t.chart }));
}

/** Pure: every target must be allowed; approval is needed if any target needs it. */
export function authorizeAction(subject: Subject, action: PreparedAction, teams: readonly TeamPolicy[]): AuthzDecision {
  return combine(authzTargets(action).map((target) => authorize(subject, action.command.verb as PermissionVerb, target, teams)));
}

export function authorizeActionApproval(requester: Subject, approver: Subject, action: PreparedAction, teams: readonly TeamPolicy[]): AuthzDecision {
  return combine(authzTargets(action).map((target) => authorizeApproval(requester, approver, action.command.verb as PermissionVerb, target, teams)));
}

function combine(decisions: AuthzDecision[]): AuthzDecision {
  const refused = decisions.find((d) => !d.allowed);
  if (refused) return refused;
  const allowed = decisions.filter((d): d is Extract<AuthzDecision, { allowed: true }> => d.allowed);
  return { allowed: true, teams: [...new Set(allowed.flatMap((d) => d.teams))], requireApproval: allowed.some((d) => d.requireApproval) };
}
