import type { OpenOutcome } from '../../core/proposals/proposal-store.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import { closedReply } from '../../core/proposals/approval.js';
import { utcMinute } from '../../core/slack/proposal-message.js';

/** Pure: what the person who asked for a promotion is told (issue 35): the proposal's id, what it changes, and what happens next. */

function changeLines(proposal: Proposal): string[] {
  return [
    ...(proposal.chartVersion ? [`  chart version: ${proposal.chartVersion.from ?? '(none)'} → ${proposal.chartVersion.to}`] : []),
    ...proposal.values.map((v) => `  ${v.valuesPath}: ${v.from ?? '(chart default)'} → ${v.to}`),
  ];
}

export function promotionReply(outcome: OpenOutcome, kept: readonly string[], target: string): string {
  const proposal = outcome.proposal;
  const { required, expiresAt } = proposal.facts;
  if (outcome.kind === 'exists') {
    const state = proposal.state;
    const where =
      state.phase === 'open'
        ? `it has ${state.approvers.length} of ${required} approvals and expires ${utcMinute(expiresAt)}`
        : closedReply(state).replace(/^this change /, 'it ');
    return `This promotion is already proposed: ${proposal.id} (${proposal.summary}); ${where}.`;
  }
  const lines = [`Proposed ${proposal.id}: ${proposal.summary}`, ...changeLines(proposal)];
  if (kept.length) lines.push('left as they are:', ...kept.map((k) => `  ${k}`));
  if (proposal.state.phase === 'approved') lines.push(`${target} asks for no approval (no spec.approval): the controller applies it now.`);
  else {
    const others = required >= 2 ? ', from people other than you' : '';
    lines.push(
      `It needs ${required} approval${required === 1 ? '' : 's'}${others}, by ${utcMinute(expiresAt)}: the message with Approve / Reject comes to the channel of ${target}'s Team.`,
    );
  }
  if (outcome.superseded.length) lines.push(`It replaces ${outcome.superseded.map((p) => p.id).join(', ')}, an earlier promotion from the same place.`);
  return lines.join('\n');
}
