import type { Proposal } from '../../core/proposals/proposal.js';
import { utcMinute } from '../../core/slack/proposal-message.js';

/** Pure: `/release proposals`, one block per open proposal, the oldest first (issue 35). */
export function renderProposals(proposals: readonly Proposal[], namespace: string | undefined): string {
  const shown = namespace ? proposals.filter((p) => p.release.namespace === namespace) : proposals;
  if (shown.length === 0) return namespace ? `no open proposals in ${namespace}` : 'no open proposals';
  return shown
    .map((p) => {
      const votes = `${p.state.approvers.length} of ${p.facts.required} approvals${p.state.approvers.length ? ` (${p.state.approvers.join(', ')})` : ''}`;
      const by = p.facts.proposedBy ? `, proposed by ${p.facts.proposedBy}` : '';
      return `${p.release.namespace}/${p.release.name}  ${p.id}\n  ${p.summary}\n  ${votes}${by}; expires ${utcMinute(p.facts.expiresAt)}`;
    })
    .join('\n');
}
