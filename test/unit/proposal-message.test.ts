import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { withMessage, proposalMessages } from '../../src/core/proposals/proposal.js';
import { parseProposalActionValue, ProposalAction, proposalActionValue, actionLabel } from '../../src/core/slack/action-ids.js';
import { renderProposalMessage, shownState, votesLine } from '../../src/core/slack/proposal-message.js';
import { stateAfter } from '../../src/notify/providers/slack/proposal-view.js';
import { operationIdOf } from '../../src/notify/publish/notification.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';

const proposal = (over: Partial<Proposal> = {}): Proposal => ({
  id: 'p-0123456789abcdef',
  kind: 'image',
  release: { cluster: 'default', namespace: 'shop', name: 'web' },
  values: [
    { valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' },
    { valuesPath: 'image.digest', to: 'sha256:abc' },
  ],
  chartVersion: { from: '2.0.0', to: '2.1.0' },
  summary: 'image registry.example.com/shop/web 1.4.2 → 1.5.0',
  subject: 'shop/web image registry.example.com/shop/web',
  facts: { required: 2, expiresAt: Date.parse('2026-11-27T09:30:00Z') },
  state: { phase: 'open', approvers: [] },
  createdAt: Date.parse('2026-11-26T09:30:00Z'),
  ...over,
});
const now = Date.parse('2026-11-26T12:00:00Z');
type Button = { action_id: string; value: string };
const buttons = (blocks: unknown[]) =>
  ((blocks as Array<{ type: string; elements?: Button[] }>).find((b) => b.type === 'actions')?.elements ?? []).map((e) => [e.action_id, e.value]);
const all = (m: { blocks: unknown[] }) => JSON.stringify(m.blocks);

describe('a proposal message', () => {
  it('says what changes, who may approve, when it expires, and carries Approve / Reject naming the cluster and proposal', () => {
    const p = proposal();
    const m = renderProposalMessage(p, { state: p.state, now });
    const text = all(m);
    expect(text).toContain('`image.tag`: `1.4.2` → `1.5.0`');
    expect(text).toContain('`image.digest`: `sha256:abc`');
    expect(text).toContain('chart version: `2.0.0` → `2.1.0`');
    expect(text).toContain('0 of 2 approvals');
    expect(text).toContain('anyone a Team grants `approve` on this release');
    expect(text).toContain('2026-11-27 09:30 UTC');
    expect(buttons(m.blocks)).toEqual([
      [ProposalAction.Approve, 'default/p-0123456789abcdef'],
      [ProposalAction.Reject, 'default/p-0123456789abcdef'],
    ]);
    expect(m.text).toBe('shop/web: Change proposed: image registry.example.com/shop/web 1.4.2 → 1.5.0 (0 of 2 approvals)');
  });

  it('one approval of two names the person and keeps the buttons', () => {
    const p = proposal({ state: { phase: 'open', approvers: ['slack:UANA'] } });
    const m = renderProposalMessage(p, { state: p.state, now });
    expect(all(m)).toContain('1 of 2 approvals: <@UANA>');
    expect(m.text).toContain('(1 of 2 approvals)');
    expect(buttons(m.blocks)).toHaveLength(2);
  });

  it.each([
    { state: { phase: 'approved' as const, approvers: ['slack:UANA', 'slack:UBEN'] }, want: 'Approved by <@UANA>, <@UBEN>' },
    { state: { phase: 'applied' as const, approvers: ['slack:UANA', 'slack:UBEN'] }, want: 'Applied. Approved by <@UANA>, <@UBEN>' },
    { state: { phase: 'rejected' as const, by: 'slack:UCY', approvers: [] }, want: 'Rejected by <@UCY>; nothing was changed' },
    { state: { phase: 'expired' as const, approvers: ['slack:UANA'] }, want: 'Expired at 2026-11-27 09:30 UTC with 1 of 2 approvals' },
  ])('closed ($state.phase): says so, and has no buttons', ({ state, want }) => {
    const m = renderProposalMessage(proposal({ state }), { state, now });
    expect(all(m)).toContain(want);
    expect(buttons(m.blocks)).toEqual([]);
  });

  it('superseded: points at the newer proposal', () => {
    const state = { phase: 'superseded' as const, by: 'p-fedcba9876543210', approvers: [] };
    const m = renderProposalMessage(proposal({ state }), { state, now, newer: { id: 'p-fedcba9876543210', summary: 'image web 1.4.2 → 1.5.1' } });
    expect(all(m)).toContain('Replaced by a newer proposal: image web 1.4.2 → 1.5.1 (`p-fedcba9876543210`); vote there.');
    expect(buttons(m.blocks)).toEqual([]);
  });

  it('an open proposal past its expiry shows expired, without buttons', () => {
    const p = proposal();
    expect(shownState(p, p.facts.expiresAt)).toEqual({ phase: 'expired', approvers: [] });
    expect(shownState(p, p.facts.expiresAt - 1)).toEqual(p.state);
  });

  it('a promotion names who proposed it, who may not approve it, and the Teams that may', () => {
    const p = proposal({ kind: 'promotion', facts: { required: 2, expiresAt: now + 1000, proposedBy: 'slack:UANA', teams: ['web'] } });
    const text = all(renderProposalMessage(p, { state: p.state, now }));
    expect(text).toContain('members of `web` granted `approve`, not <@UANA> who proposed it');
    expect(text).toContain('*Proposed by*\\n<@UANA>');
  });

  it('text from the record is escaped: no channel pings, no hidden links', () => {
    const p = proposal({ summary: '<!channel> <http://evil|click>', values: [{ valuesPath: 'a', to: '<!here>' }] });
    const text = all(renderProposalMessage(p, { state: p.state, now }));
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<!here>');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('the object diff the preview made, when the record has one', () => {
    const p = proposal({ diff: ['Deployment shop/web: image 1.4.2 → 1.5.0'] });
    expect(all(renderProposalMessage(p, { state: p.state, now }))).toContain('Deployment shop/web: image 1.4.2 → 1.5.0');
  });

  it('says, while it takes votes, that a GitOps tool owning the spec does not undo the approved change', () => {
    const p = proposal({ ownedBy: 'Flux (kustomize-controller)' });
    const open = all(renderProposalMessage(p, { state: p.state, now }));
    expect(open).toContain("Flux (kustomize-controller) owns this HelmRelease's spec: an approved change is kept in its status, which Flux does not undo");
    expect(all(renderProposalMessage(proposal(), { state: p.state, now }))).not.toContain('owns this HelmRelease');
    const applied = { phase: 'applied' as const, approvers: ['slack:UANA', 'slack:UBEN'] };
    expect(all(renderProposalMessage({ ...p, state: applied }, { state: applied, now }))).not.toContain('owns this HelmRelease');
  });

  it('votesLine counts toward the required number', () => {
    expect(votesLine(proposal({ facts: { required: 1, expiresAt: now } }), { phase: 'open', approvers: [] })).toBe('0 of 1 approval');
  });
});

describe('proposal buttons and records', () => {
  it('a button value round-trips; anything else is not one', () => {
    expect(parseProposalActionValue(proposalActionValue('prod-eu', 'p-0123456789abcdef'))).toEqual({ cluster: 'prod-eu', id: 'p-0123456789abcdef' });
    for (const bad of ['', 'p-0123', 'default/x', 'Prod/p-0123456789abcdef', 'default/p-0123456789abcdef/x'])
      expect(parseProposalActionValue(bad)).toBeUndefined();
    expect(actionLabel(ProposalAction.Approve)).toBe('proposal_approve');
  });

  it('the messages that show a proposal: the first is `message`, the same one is noted once', () => {
    const p = withMessage(withMessage(proposal(), { channel: 'C1', ts: '1.1' }), { channel: 'C2', ts: '2.2' });
    expect(p.message).toEqual({ channel: 'C1', ts: '1.1' });
    expect(proposalMessages(p)).toEqual([
      { channel: 'C1', ts: '1.1' },
      { channel: 'C2', ts: '2.2' },
    ]);
    expect(withMessage(p, { channel: 'C2', ts: '2.2' })).toBe(p);
    expect(proposalMessages({ message: { channel: 'C9', ts: '9.9' } })).toEqual([{ channel: 'C9', ts: '9.9' }]);
  });
});

describe('notify and proposal events', () => {
  it('an Applied event shows applied with its approvers; Expired closes an open one; others show the record', () => {
    const open = { phase: 'open' as const, approvers: ['slack:UANA'] };
    expect(stateAfter(open, { event: 'ProposalApplied', approvers: ['slack:UANA', 'slack:UBEN'] })).toEqual({
      phase: 'applied',
      approvers: ['slack:UANA', 'slack:UBEN'],
    });
    expect(stateAfter(open, { event: 'ProposalExpired' })).toEqual({ phase: 'expired', approvers: ['slack:UANA'] });
    expect(stateAfter(open, { event: 'ProposalOpened' })).toBe(open);
  });

  it('every event of one proposal is one message (one operation id), whatever the generation', () => {
    const release = (generation: number) => ({ metadata: { namespace: 'shop', name: 'web', uid: 'u1', generation }, spec: {} }) as unknown as HelmRelease;
    const opened = operationIdOf(release(1), 'ProposalOpened', { proposalId: 'p-1' });
    expect(operationIdOf(release(2), 'ProposalApplied', { proposalId: 'p-1' })).toBe(opened);
    expect(operationIdOf(release(1), 'ProposalSuperseded', { proposalId: 'p-2' })).not.toBe(opened);
    expect(operationIdOf(release(1), 'UpgradeSucceeded', { proposalId: 'p-1' })).not.toBe(opened);
  });
});
