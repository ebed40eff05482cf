import type { VoteVerdict } from '../../core/proposals/approval.js';
import type { Proposal } from '../../core/proposals/proposal.js';

/** Pure: what a person pressing a proposal's button is told, and the audit line every vote leaves (issue 35). */

type Counted = Exclude<VoteVerdict, { kind: 'refused' }>;

/** The private answer to a vote that counted (a refusal is answered with castVote's own reply). */
export function voteAnswer(verdict: Counted, proposal: Proposal): string {
  switch (verdict.kind) {
    case 'counted':
      return `Your approval is counted: ${proposal.summary}. It needs ${verdict.still} more, from other people.`;
    case 'approved':
      return `Approved: ${proposal.summary}. The controller applies it (a freeze holds it until it lifts).`;
    case 'rejected':
      return `Rejected: ${proposal.summary}. Nothing will change.`;
    case 'expired':
      return verdict.reply;
  }
}

/**
 * The audit line (Event on the HelmRelease, log line, the reply under the proposal's message),
 * naming the voter and every approver so far, as `slack:U0123 (ana)`, and the surface when the id
 * does not say it (`slack:U0123 via web`: a Slack user signed in on the web).
 */
export function voteAuditLine(verdict: Counted, proposal: Proposal, voter: string, names: (person: string) => string, via?: 'web' | 'assistant'): string {
  const key = `${proposal.release.namespace}/${proposal.release.name}`;
  const who = `${names(voter)}${via ? ` via ${via}` : ''}`;
  const what = `proposal ${proposal.id} for ${key} (${proposal.summary})`;
  const approvers = verdict.state.approvers.map(names).join(', ');
  switch (verdict.kind) {
    case 'counted':
      return `${who} approved ${what}: ${verdict.state.approvers.length} of ${proposal.facts.required}, approved by ${approvers}`;
    case 'approved':
      return `${who} approved ${what}: approved by ${approvers}; the controller applies it`;
    case 'rejected':
      return `${who} rejected ${what}${approvers ? ` (approved before by ${approvers})` : ''}; nothing changes`;
    case 'expired':
      return `${who} voted on ${what} after it expired; nothing changes`;
  }
}
