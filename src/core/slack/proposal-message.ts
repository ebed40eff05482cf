/**
 * A proposal's chat message (issue 35), pure: notify posts it when the controller opens a
 * proposal, and both notify (superseded, expired, applied) and the bot (each vote) edit it, so both
 * render it here from the stored record. Approve / Reject buttons while it takes votes; their value
 * names the cluster and the proposal (action-ids.ts). Every text from the record is escaped.
 */
import type { Proposal } from '../proposals/proposal.js';
import type { ProposalState } from '../proposals/approval.js';
import { ProposalAction, proposalActionValue } from './action-ids.js';
import { codeBlock, inlineCode, safeText, truncateEscaped } from './mrkdwn.js';
import { userMention } from './mention.js';

export interface ProposalMessage {
  text: string;
  blocks: unknown[];
}

export interface ProposalView {
  /** What it shows; the stored state unless an event says more (notify: Expired, Applied). */
  state: ProposalState;
  now: number;
  /** The newer proposal that replaced this one (superseded), when it can be read. */
  newer?: Pick<Proposal, 'id' | 'summary'>;
  /** Said in the heading when the bot or notify serves a fleet. */
  showCluster?: boolean;
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });
const section = (blockId: string, text: string) => ({ type: 'section', block_id: blockId, text: mrkdwn(text) });
/** A section field holds 2000 characters; a section's text 3000. */
const FIELD = 1900;
const DIFF = 2800;

/** A person as a vote or the record names them: an actor id (`slack:U0123`) or a Slack id becomes a mention; anything else is shown escaped. */
export function personText(person: string): string {
  const id = person.startsWith('slack:') ? person.slice('slack:'.length) : person;
  return userMention(id) ?? safeText(person, 120);
}

const people = (list: readonly string[]) => list.map(personText).join(', ');

/** The state a proposal shows at `now`: an open one past its expiry is expired. */
export function shownState(proposal: Proposal, now: number): ProposalState {
  return proposal.state.phase === 'open' && now >= proposal.facts.expiresAt ? { phase: 'expired', approvers: proposal.state.approvers } : proposal.state;
}

/** Whether the message carries buttons: only while the proposal takes votes. */
export function takesVotes(view: Pick<ProposalView, 'state'>): boolean {
  return view.state.phase === 'open';
}

function title(state: ProposalState): { emoji: string; words: string } {
  switch (state.phase) {
    case 'open':
      return { emoji: ':ballot_box_with_ballot:', words: 'Change proposed' };
    case 'approved':
      return { emoji: ':white_check_mark:', words: 'Change approved — applies when nothing holds it' };
    case 'applied':
      return { emoji: ':rocket:', words: 'Approved change applied' };
    case 'rejected':
      return { emoji: ':no_entry_sign:', words: 'Change rejected' };
    case 'expired':
      return { emoji: ':hourglass:', words: 'Proposal expired' };
    case 'superseded':
      return { emoji: ':fast_forward:', words: 'Proposal superseded' };
  }
}

/** `2026-11-27 09:30 UTC`. */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function changeLines(proposal: Proposal): string[] {
  const values = proposal.values.map(
    (v) => `${inlineCode(v.valuesPath, 120)}: ${v.from !== undefined ? `${inlineCode(v.from, 200)} → ` : ''}${inlineCode(v.to, 200)}`,
  );
  const chart = proposal.chartVersion
    ? [
        `chart version: ${proposal.chartVersion.from !== undefined ? `${inlineCode(proposal.chartVersion.from, 80)} → ` : ''}${inlineCode(proposal.chartVersion.to, 80)}`,
      ]
    : [];
  return [...chart, ...values];
}

/** Where the votes stand, in words (`1 of 2 approvals: @ana`). */
export function votesLine(proposal: Proposal, state: ProposalState): string {
  const count = `${state.approvers.length} of ${proposal.facts.required} approval${proposal.facts.required === 1 ? '' : 's'}`;
  return state.approvers.length ? `${count}: ${people(state.approvers)}` : count;
}

function outcomeLine(proposal: Proposal, view: ProposalView): string | undefined {
  const state = view.state;
  switch (state.phase) {
    case 'open':
      return undefined;
    case 'approved':
      return `Approved by ${people(state.approvers)}; the controller applies it (a freeze holds it until it lifts).`;
    case 'applied':
      return `Applied. Approved by ${people(state.approvers) || 'nobody (no approval was needed)'}.`;
    case 'rejected':
      return `Rejected by ${personText(state.by)}; nothing was changed.${state.approvers.length ? ` (Approved before by ${people(state.approvers)}.)` : ''}`;
    case 'expired':
      return `Expired at ${utcMinute(proposal.facts.expiresAt)} with ${votesLine(proposal, state)}; nothing was changed.`;
    case 'superseded':
      return view.newer
        ? `Replaced by a newer proposal: ${safeText(view.newer.summary, 500)} (${inlineCode(view.newer.id, 40)}); vote there.`
        : `Replaced by a newer proposal (${inlineCode(state.by, 40)}); vote there.`;
  }
}

/** Who may approve: the Teams the release names, or whoever a Team grants `approve` on it. */
function whoMay(proposal: Proposal): string {
  const teams = proposal.facts.teams;
  const who = teams?.length
    ? `members of ${teams.map((t) => inlineCode(t, 70)).join(', ')} granted \`approve\``
    : 'anyone a Team grants `approve` on this release';
  const self = proposal.facts.proposedBy && proposal.facts.required >= 2 ? `, not ${personText(proposal.facts.proposedBy)} who proposed it` : '';
  return `${who}${self}`;
}

/** The message for a proposal as `view` sees it. */
export function renderProposalMessage(proposal: Proposal, view: ProposalView): ProposalMessage {
  const { namespace, name, cluster } = proposal.release;
  const { emoji, words } = title(view.state);
  const where = `*${safeText(name, 253)}* in ${inlineCode(namespace, 70)}${view.showCluster ? ` (cluster ${inlineCode(cluster, 70)})` : ''}`;
  const blocks: unknown[] = [section('proposal_heading', `${emoji} *${words}* · ${where}`), section('proposal_summary', safeText(proposal.summary, 1000))];
  const fields = [
    `*Changes*\n${changeLines(proposal).join('\n') || '(none named)'}`,
    `*Approvals*\n${votesLine(proposal, view.state)}`,
    `*Who may approve*\n${whoMay(proposal)}`,
    `*Expires*\n${utcMinute(proposal.facts.expiresAt)}`,
    ...(proposal.facts.proposedBy ? [`*Proposed by*\n${personText(proposal.facts.proposedBy)}`] : ['*Proposed by*\nhelmcrew']),
  ].map((f) => mrkdwn(truncateEscaped(f, FIELD)));
  blocks.push({ type: 'section', block_id: 'proposal_fields', fields });
  // The object diff the controller's preview made when it opened the proposal, when it made one.
  if (proposal.diff?.length) blocks.push(section('proposal_diff', `*What it would change*\n${codeBlock(proposal.diff.join('\n'), DIFF)}`));
  // Said while it takes votes: approving does not fight the tool, and Git is where it stays for good.
  if (proposal.ownedBy && takesVotes(view))
    blocks.push({
      type: 'context',
      block_id: 'proposal_gitops',
      elements: [
        mrkdwn(
          truncateEscaped(
            `${safeText(proposal.ownedBy, 80)} owns this HelmRelease's spec: an approved change is kept in its status, which ${safeText(proposal.ownedBy.split(' ')[0]!, 40)} does not undo; it gives way when Git sets that value, so put it in Git to keep it.`,
            FIELD,
          ),
        ),
      ],
    });
  const outcome = outcomeLine(proposal, view);
  if (outcome) blocks.push({ type: 'context', block_id: 'proposal_outcome', elements: [mrkdwn(outcome)] });
  if (takesVotes(view)) {
    const value = proposalActionValue(cluster, proposal.id);
    blocks.push({
      type: 'actions',
      block_id: 'proposal_actions',
      elements: [
        { type: 'button', action_id: ProposalAction.Approve, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value },
        { type: 'button', action_id: ProposalAction.Reject, style: 'danger', text: { type: 'plain_text', text: 'Reject' }, value },
      ],
    });
  }
  blocks.push({ type: 'context', block_id: 'proposal_id', elements: [mrkdwn(`proposal ${inlineCode(proposal.id, 40)}`)] });
  const text = `${namespace}/${name}: ${words}: ${proposal.summary}${view.state.phase === 'open' ? ` (${votesLine(proposal, view.state).replace(/:.*/, '')})` : ''}`;
  return { text: safeText(text, 500), blocks };
}
