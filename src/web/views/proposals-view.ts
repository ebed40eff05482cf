import type { Proposal } from '../../core/proposals/proposal.js';

/** A proposal as the pages show it; the Approve/Reject forms go in the `proposal-actions` slot (the release session's, not the page's). */
export interface ProposalView {
  id: string;
  cluster: string;
  namespace: string;
  name: string;
  kind: string;
  summary: string;
  proposedBy: string;
  /** The controller's object diff, plan lines (when its preview made one), at most `DIFF_LINES` of them. */
  diff: string[];
  diffMore: number;
  approvers: string[];
  required: number;
  still: number;
  expiresAt: string;
  ownedBy?: string;
}

export const DIFF_LINES = 40;

/** Pure: one open proposal with its diff summary and votes. */
export function proposalView(proposal: Proposal): ProposalView {
  const diff = proposal.diff ?? [];
  const approvers = proposal.state.approvers;
  return {
    id: proposal.id,
    cluster: proposal.release.cluster,
    namespace: proposal.release.namespace,
    name: proposal.release.name,
    kind: proposal.kind,
    summary: proposal.summary,
    proposedBy: proposal.facts.proposedBy ?? 'helmcrew',
    diff: diff.slice(0, DIFF_LINES),
    diffMore: Math.max(0, diff.length - DIFF_LINES),
    approvers: [...approvers],
    required: proposal.facts.required,
    still: Math.max(0, proposal.facts.required - approvers.length),
    expiresAt: new Date(proposal.facts.expiresAt).toISOString(),
    ...(proposal.ownedBy ? { ownedBy: proposal.ownedBy } : {}),
  };
}
