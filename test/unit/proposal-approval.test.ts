import { describe, expect, it } from 'vitest';
import { castVote, type ProposalFacts, type ProposalState, type Vote } from '../../src/core/proposals/approval.js';

const open = (approvers: string[] = []): ProposalState => ({ phase: 'open', approvers });
const facts = (over: Partial<ProposalFacts> = {}): ProposalFacts => ({ required: 2, expiresAt: 10_000, ...over });
const vote = (person: string, over: Partial<Vote> = {}): Vote => ({ person, choice: 'approve', allowed: true, at: 1_000, ...over });

describe('castVote', () => {
  it('one approval of two is counted and leaves it open', () => {
    expect(castVote(open(), facts(), vote('ana'))).toEqual({ kind: 'counted', state: open(['ana']), still: 1 });
  });

  it('the second person approves it, naming both', () => {
    expect(castVote(open(['ana']), facts(), vote('ben'))).toEqual({ kind: 'approved', state: { phase: 'approved', approvers: ['ana', 'ben'] } });
  });

  it('the same person twice is not two approvals', () => {
    const verdict = castVote(open(['ana']), facts(), vote('ana'));
    expect(verdict).toEqual({ kind: 'refused', reply: 'you approved this already; it needs 1 more, from other people' });
  });

  it('one Reject ends it, whatever the approvals so far', () => {
    expect(castVote(open(['ana']), facts(), vote('cy', { choice: 'reject' }))).toEqual({
      kind: 'rejected',
      state: { phase: 'rejected', by: 'cy', approvers: ['ana'] },
    });
  });

  it.each([
    { name: 'outside the Team', given: vote('eve', { allowed: false }), want: /no Team grants you `approve`/ },
    { name: 'outside the Team, rejecting', given: vote('eve', { allowed: false, choice: 'reject' }), want: /you may not reject/ },
  ])('refused: $name', ({ given, want }) => {
    const verdict = castVote(open(), facts(), given);
    expect(verdict.kind).toBe('refused');
    expect(verdict.kind === 'refused' && verdict.reply).toMatch(want);
  });

  it.each([
    { name: 'a member of a listed Team', listed: ['web'], theirs: ['web'], want: 'counted' },
    { name: 'a member of a listed Team and another', listed: ['web', 'sre'], theirs: ['ops', 'sre'], want: 'counted' },
    { name: 'no Teams listed: any Team granting approve', listed: undefined, theirs: ['ops'], want: 'counted' },
    { name: 'an empty list: any Team granting approve', listed: [], theirs: ['ops'], want: 'counted' },
    { name: 'a member of another Team only', listed: ['web'], theirs: ['ops'], want: 'refused' },
    { name: 'no Team named with the vote', listed: ['web'], theirs: [], want: 'refused' },
  ])('spec.approval.teams: $name → $want', ({ listed, theirs, want }) => {
    expect(castVote(open(), facts({ teams: listed }), vote('ana', { teams: theirs })).kind).toBe(want);
  });

  it('a member of another Team is told they cannot approve this one, and nothing changes', () => {
    expect(castVote(open(['ben']), facts({ teams: ['web'] }), vote('ops-olga', { teams: ['ops'] }))).toEqual({
      kind: 'refused',
      reply: 'you cannot approve this one: it counts approvals only from members of the Team web (you approve through ops)',
    });
    const rejecting = castVote(open(), facts({ teams: ['web', 'sre'] }), vote('olga', { teams: ['ops'], choice: 'reject' }));
    expect(rejecting.kind === 'refused' && rejecting.reply).toMatch(/only from members of the Teams web, sre/);
  });

  it('a person may not approve their own promotion when two are needed', () => {
    expect(castVote(open(), facts({ proposedBy: 'ana' }), vote('ana'))).toEqual({
      kind: 'refused',
      reply: 'you proposed this change; it needs 2 approvals from other people',
    });
  });

  it('with one approval needed, the proposer may approve their own promotion', () => {
    expect(castVote(open(), facts({ required: 1, proposedBy: 'ana' }), vote('ana')).kind).toBe('approved');
  });

  it('a vote at or after the expiry expires it and changes nothing', () => {
    const verdict = castVote(open(['ana']), facts(), vote('ben', { at: 10_000 }));
    expect(verdict).toMatchObject({ kind: 'expired', state: { phase: 'expired', approvers: ['ana'] } });
  });

  it.each<{ state: ProposalState; want: string }>([
    { state: { phase: 'approved', approvers: ['ana', 'ben'] }, want: 'this change was already approved by ana and ben; it applies when nothing holds it' },
    { state: { phase: 'applied', approvers: ['ana', 'ben'] }, want: 'this change was already approved by ana and ben and applied' },
    { state: { phase: 'rejected', by: 'cy', approvers: [] }, want: 'this change was rejected by cy' },
    { state: { phase: 'expired', approvers: [] }, want: 'this proposal expired; nothing was changed' },
    { state: { phase: 'superseded', by: 'web:1.5.1', approvers: [] }, want: 'this proposal was replaced by a newer one (web:1.5.1)' },
  ])('a vote on a closed proposal ($state.phase) gets a clear answer', ({ state, want }) => {
    expect(castVote(state, facts(), vote('dan'))).toEqual({ kind: 'refused', reply: want });
  });
});
