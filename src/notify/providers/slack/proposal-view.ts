/**
 * What a proposal's notification shows (issue 35): the stored proposal (core/proposals), read from
 * the keyspace of the cluster the event came from, as the event leaves it — an Expired or Applied
 * event closes the message even before the record says so. Undefined when there is no record
 * (pruned, or Redis wiped): the provider then posts the ordinary release message.
 */
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { ProposalState } from '../../../core/proposals/approval.js';
import type { Proposal } from '../../../core/proposals/proposal.js';
import { renderProposalMessage, shownState, type ProposalMessage } from '../../../core/slack/proposal-message.js';
import type { ReleaseNotification } from '../../contract.js';
import { PROPOSAL_EVENTS } from '../../publish/notification.js';

/** The part of the proposal store notify uses: read one, and note the message that shows it. */
export interface ProposalRecords {
  get(id: string): Promise<Proposal | undefined>;
  update(id: string, change: (current: Proposal) => Proposal | undefined): Promise<Proposal | undefined>;
}

/** The store of the cluster a notification came from (n.cluster; undefined: notify's own), or undefined when notify cannot read it. */
export type ProposalRecordsFor = (cluster: string | undefined) => ProposalRecords | undefined;

export function isProposalNotification(n: Pick<ReleaseNotification, 'event' | 'proposalId'>): n is typeof n & { proposalId: string } {
  return n.proposalId !== undefined && PROPOSAL_EVENTS.has(n.event);
}

/** Pure: the state shown after `n`, given the stored one. */
export function stateAfter(stored: ProposalState, n: Pick<ReleaseNotification, 'event' | 'approvers'>): ProposalState {
  const approvers = n.approvers?.length ? n.approvers : stored.approvers;
  if (n.event === ReleaseEvent.ProposalApplied) return { phase: 'applied', approvers };
  if (n.event === ReleaseEvent.ProposalExpired && (stored.phase === 'open' || stored.phase === 'approved')) return { phase: 'expired', approvers };
  return stored;
}

/** The message for `n` from the stored proposal, or undefined when there is none to read. */
export async function proposalMessageFor(n: ReleaseNotification, records: ProposalRecords | undefined, now: number): Promise<ProposalMessage | undefined> {
  if (!records || !isProposalNotification(n)) return undefined;
  const proposal = await records.get(n.proposalId);
  if (!proposal) return undefined;
  const state = stateAfter(shownState(proposal, now), n);
  const newer = state.phase === 'superseded' ? await records.get(state.by) : undefined;
  return renderProposalMessage(proposal, {
    state,
    now,
    ...(newer ? { newer: { id: newer.id, summary: newer.summary } } : {}),
    showCluster: n.cluster !== undefined,
  });
}
