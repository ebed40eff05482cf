import { authorize, type AuthzDecision } from './authorize.js';
import type { AuthzTarget, Subject, TeamPolicy } from './policy-types.js';

/**
 * Pure: may this person vote on a proposal for `target` (issue 35)? A Team must grant `approve`
 * there (default deny, as every verb); when the release names the Teams that approve
 * (spec.approval.teams), only those Teams count.
 */
export function authorizeProposalVote(subject: Subject, target: AuthzTarget, teams: readonly TeamPolicy[], onlyTeams?: readonly string[]): AuthzDecision {
  const eligible = onlyTeams?.length ? teams.filter((team) => onlyTeams.includes(team.name)) : teams;
  const decision = authorize(subject, 'approve', target, eligible);
  if (decision.allowed || !onlyTeams?.length) return decision;
  return { allowed: false, reason: `${decision.reason} (this release takes approvals only from the Teams ${onlyTeams.join(', ')})` };
}
