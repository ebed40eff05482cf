import { authorize, type AuthzDecision } from './authorize.js';
import type { AuthzTarget, Subject, TeamPolicy } from './policy-types.js';

/**
 * Pure: may this person vote on a proposal for `target` (issue 35)? A Team must grant `approve`
 * there (default deny, as every verb). The decision names every Team that grants it: whether one
 * of them is among spec.approval.teams is the proposal's own rule (core/proposals/approval.ts,
 * `outsideApprovingTeams`), judged with the vote, so every surface answers the same.
 */
export function authorizeProposalVote(subject: Subject, target: AuthzTarget, teams: readonly TeamPolicy[]): AuthzDecision {
  return authorize(subject, 'approve', target, teams);
}
