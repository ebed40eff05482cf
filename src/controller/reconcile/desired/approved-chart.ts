/**
 * status.approvedChart (issue 35): the chart version an approved proposal put in effect — a
 * chart-version proposal, a promotion, any kind that carries `chartVersion` — with
 * spec.chart.version as it was then (decide/chart-choice.ts lets it give way when that changes).
 * Pure.
 */
import type { ApprovedChartStatus } from '../../../api/helmrelease-status.js';
import type { Proposal } from '../../../core/proposals/proposal.js';

/** The entry after applying `proposals` (oldest first): the last one with a chart version wins; none: `current`. */
export function applyChartProposals(
  current: ApprovedChartStatus | undefined,
  proposals: readonly Proposal[],
  declared: string | undefined,
  at: string,
): ApprovedChartStatus | undefined {
  let next = current;
  for (const proposal of proposals) {
    if (!proposal.chartVersion) continue;
    next = {
      version: proposal.chartVersion.to,
      ...(declared !== undefined ? { declared } : {}),
      proposalId: proposal.id,
      ...(proposal.facts.proposedBy ? { proposedBy: proposal.facts.proposedBy } : {}),
      approvers: [...proposal.state.approvers],
      at,
    };
  }
  return next;
}
