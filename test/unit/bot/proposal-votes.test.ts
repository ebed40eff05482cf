import { describe, expect, it } from 'vitest';
import { authorizeProposalVote } from '../../../src/session/authz/authorize-proposal.js';
import type { TeamPolicy } from '../../../src/session/authz/policy-types.js';
import { voteAnswer, voteAuditLine } from '../../../src/session/render/proposal-votes.js';
import type { Proposal } from '../../../src/core/proposals/proposal.js';

const target = { kind: 'release' as const, namespace: 'shop', name: 'web', chart: 'web' };
const team = (name: string, members: string[], verbs: TeamPolicy['permissions'][number]['verbs'], namespaces = ['shop']): TeamPolicy => ({
  name,
  members: { slackUsers: members },
  permissions: [{ verbs, namespaces }],
});
const teams = [team('web', ['UANA', 'UBEN'], ['approve']), team('ops', ['UOPS'], ['approve']), team('viewers', ['UEVE'], ['status', 'list'])];
const subject = (slackUser: string) => ({ slackUser, slackUserGroups: [] });

describe('who may vote on a proposal', () => {
  it('a member of a Team granting `approve` on the release may', () => {
    expect(authorizeProposalVote(subject('UANA'), target, teams)).toMatchObject({ allowed: true, teams: ['web'] });
  });

  it('a Team member without `approve` may not, and is told why', () => {
    expect(authorizeProposalVote(subject('UEVE'), target, teams)).toEqual({
      allowed: false,
      reason: 'you may not approve shop/web (chart web): none of your Teams (viewers) grants "approve"',
    });
  });

  it('`approve` in another namespace does not cover this release', () => {
    const elsewhere = [team('web', ['UANA'], ['approve'], ['other'])];
    expect(authorizeProposalVote(subject('UANA'), target, elsewhere).allowed).toBe(false);
  });

  it('names every Team that grants `approve`, for the proposal to judge against spec.approval.teams', () => {
    const both = [...teams, team('ops', ['UBEN'], ['approve'])];
    expect(authorizeProposalVote(subject('UBEN'), target, both)).toMatchObject({ allowed: true, teams: ['web', 'ops'] });
  });
});

describe('what a vote answers and audits', () => {
  const proposal = {
    id: 'p-1',
    release: { cluster: 'default', namespace: 'shop', name: 'web' },
    summary: 'image web 1.4.2 → 1.5.0',
    facts: { required: 2, expiresAt: 1 },
  } as Proposal;
  const names = (p: string) => (p === 'slack:UANA' ? 'slack:UANA (ana)' : p);

  it('one of two: counted, and how many more', () => {
    const verdict = { kind: 'counted' as const, state: { phase: 'open' as const, approvers: ['slack:UANA'] }, still: 1 };
    expect(voteAnswer(verdict, proposal)).toBe('Your approval is counted: image web 1.4.2 → 1.5.0. It needs 1 more, from other people.');
    expect(voteAuditLine(verdict, proposal, 'slack:UANA', names)).toBe(
      'slack:UANA (ana) approved proposal p-1 for shop/web (image web 1.4.2 → 1.5.0): 1 of 2, approved by slack:UANA (ana)',
    );
  });

  it('the second: approved, naming every approver', () => {
    const verdict = { kind: 'approved' as const, state: { phase: 'approved' as const, approvers: ['slack:UANA', 'slack:UBEN'] } };
    expect(voteAuditLine(verdict, proposal, 'slack:UBEN', names)).toBe(
      'slack:UBEN approved proposal p-1 for shop/web (image web 1.4.2 → 1.5.0): approved by slack:UANA (ana), slack:UBEN; the controller applies it',
    );
  });

  it('a vote from the web says so when the id does not (a Slack user signed in there)', () => {
    const verdict = { kind: 'counted' as const, state: { phase: 'open' as const, approvers: ['slack:UANA'] }, still: 1 };
    expect(voteAuditLine(verdict, proposal, 'slack:UANA', names, 'web')).toBe(
      'slack:UANA (ana) via web approved proposal p-1 for shop/web (image web 1.4.2 → 1.5.0): 1 of 2, approved by slack:UANA (ana)',
    );
  });

  it('a reject names who had approved before', () => {
    const verdict = { kind: 'rejected' as const, state: { phase: 'rejected' as const, by: 'slack:UCY', approvers: ['slack:UANA'] } };
    expect(voteAnswer(verdict, proposal)).toMatch(/^Rejected: .* Nothing will change\.$/);
    expect(voteAuditLine(verdict, proposal, 'slack:UCY', names)).toBe(
      'slack:UCY rejected proposal p-1 for shop/web (image web 1.4.2 → 1.5.0) (approved before by slack:UANA (ana)); nothing changes',
    );
  });
});
