import type { ActionScope } from '../plan/prepared.js';
import { authorize, authorizeApproval, type AuthzDecision } from './authorize.js';
import type { Subject, TeamPolicy } from './policy-types.js';
import { authzTargets, authzVerb } from './targets.js';

/**
 * Pure: every target must be allowed (in `cluster`, the command's, in a fleet); approval is needed if any target needs it, and always for
 * break-glass (a change through a freeze takes two people).
 */
export function authorizeAction(subject: Subject, action: ActionScope, teams: readonly TeamPolicy[], cluster?: string): AuthzDecision {
  const decision = combine(authzTargets(action, cluster).map((target) => authorize(subject, authzVerb(action), target, teams)));
  return decision.allowed && action.breakGlass ? { ...decision, requireApproval: true } : decision;
}

export function authorizeActionApproval(
  requester: Subject,
  approver: Subject,
  action: ActionScope,
  teams: readonly TeamPolicy[],
  cluster?: string,
): AuthzDecision {
  return combine(authzTargets(action, cluster).map((target) => authorizeApproval(requester, approver, authzVerb(action), target, teams)));
}

function combine(decisions: AuthzDecision[]): AuthzDecision {
  const refused = decisions.find((d) => !d.allowed);
  if (refused) return refused;
  const allowed = decisions.filter((d): d is Extract<AuthzDecision, { allowed: true }> => d.allowed);
  return { allowed: true, teams: [...new Set(allowed.flatMap((d) => d.teams))], requireApproval: allowed.some((d) => d.requireApproval) };
}
