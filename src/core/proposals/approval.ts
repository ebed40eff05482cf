// How votes on a proposal add up (issue 35): distinct people allowed by the Team approve — only
// members of spec.approval.teams when it lists Teams — one Reject ends it, a proposal past its expiry or replaced by a newer one takes no votes, and a
// person who proposed a change (a promotion) may not approve their own when two or more are needed.
// Pure: the proposal's state and one vote in, the verdict and the next state out.

export type ProposalState =
  | { phase: 'open'; approvers: string[] }
  | { phase: 'approved'; approvers: string[] }
  | { phase: 'rejected'; by: string; approvers: string[] }
  | { phase: 'expired'; approvers: string[] }
  | { phase: 'superseded'; by: string; approvers: string[] }
  | { phase: 'applied'; approvers: string[] };

export interface ProposalFacts {
  /** Distinct approvals needed (≥ 1 here: with 0 nothing is proposed, the change applies on its own). */
  required: number;
  /** A person for promotions; undefined when helmcrew itself proposed (a new tag, a chart version). */
  proposedBy?: string;
  expiresAt: number;
  /** spec.approval.teams: only members of these Teams (granted `approve`) may vote; absent: any Team granting `approve` on the release. */
  teams?: string[];
}

export interface Vote {
  person: string;
  choice: 'approve' | 'reject';
  /** Whether the Team rules let this person approve here (the `approve` verb, the Team's clusters and namespaces). */
  allowed: boolean;
  /** The Teams through which the person holds `approve` here; judged against facts.teams. */
  teams?: readonly string[];
  at: number;
}

export type VoteVerdict =
  | { kind: 'counted'; state: ProposalState; still: number }
  | { kind: 'approved'; state: ProposalState }
  | { kind: 'rejected'; state: ProposalState }
  | { kind: 'expired'; state: ProposalState; reply: string }
  | { kind: 'refused'; reply: string };

/** The verdict on `vote`; a refusal leaves the state as it was. */
export function castVote(state: ProposalState, facts: ProposalFacts, vote: Vote): VoteVerdict {
  if (state.phase !== 'open') return { kind: 'refused', reply: closedReply(state) };
  if (vote.at >= facts.expiresAt) {
    const expired: ProposalState = { phase: 'expired', approvers: state.approvers };
    return { kind: 'expired', state: expired, reply: `this proposal expired at ${new Date(facts.expiresAt).toISOString()}; nothing was changed` };
  }
  if (!vote.allowed) return { kind: 'refused', reply: `you may not ${vote.choice} this change: no Team grants you \`approve\` for this release` };
  const outsider = outsideApprovingTeams(facts.teams, vote.teams ?? []);
  if (outsider) return { kind: 'refused', reply: outsider };
  if (vote.choice === 'reject') return { kind: 'rejected', state: { phase: 'rejected', by: vote.person, approvers: state.approvers } };
  if (state.approvers.includes(vote.person))
    return { kind: 'refused', reply: `you approved this already; it needs ${facts.required - state.approvers.length} more, from other people` };
  if (facts.required >= 2 && vote.person === facts.proposedBy) {
    return { kind: 'refused', reply: `you proposed this change; it needs ${facts.required} approvals from other people` };
  }
  const approvers = [...state.approvers, vote.person];
  if (approvers.length >= facts.required) return { kind: 'approved', state: { phase: 'approved', approvers } };
  return { kind: 'counted', state: { phase: 'open', approvers }, still: facts.required - approvers.length };
}

/**
 * spec.approval.teams: when the release lists Teams, only their members' votes count — a person
 * granted `approve` by another Team only is told they cannot approve this one. Undefined: they may.
 * The one rule every surface's Approve button answers with (Slack now, the web page later).
 */
export function outsideApprovingTeams(listed: readonly string[] | undefined, personTeams: readonly string[]): string | undefined {
  if (!listed?.length || personTeams.some((team) => listed.includes(team))) return undefined;
  const theirs = personTeams.length ? ` (you approve through ${personTeams.join(', ')})` : '';
  return `you cannot approve this one: it counts approvals only from members of the Team${listed.length > 1 ? 's' : ''} ${listed.join(', ')}${theirs}`;
}

/** Why a closed proposal takes no more votes, in the words a person pressing its button reads. */
export function closedReply(state: Exclude<ProposalState, { phase: 'open' }>): string {
  const by = (people: string[]) => (people.length ? ` by ${people.join(' and ')}` : '');
  switch (state.phase) {
    case 'approved':
      return `this change was already approved${by(state.approvers)}; it applies when nothing holds it`;
    case 'applied':
      return `this change was already approved${by(state.approvers)} and applied`;
    case 'rejected':
      return `this change was rejected by ${state.by}`;
    case 'expired':
      return 'this proposal expired; nothing was changed';
    case 'superseded':
      return `this proposal was replaced by a newer one (${state.by})`;
    default:
      return assertNever(state);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected proposal state ${JSON.stringify(value)}`);
}
