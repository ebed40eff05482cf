import { describe, expect, it } from 'vitest';
import type { ProposalState } from '../../src/core/proposals/approval.js';
import { prunable, stampClosed, type Proposal } from '../../src/core/proposals/proposal.js';

const DAY = 86_400_000;

const proposal = (id: string, state: ProposalState, createdAt: number, over: Partial<Proposal> = {}): Proposal => ({
  id,
  kind: 'image',
  release: { cluster: 'default', namespace: 'shop', name: 'web' },
  values: [{ valuesPath: 'image.tag', to: id }],
  summary: `image ${id}`,
  subject: 'default/shop/web image registry.example.com/shop/web',
  facts: { required: 2, expiresAt: createdAt + DAY },
  state,
  createdAt,
  ...over,
});

describe('closed proposals pruned after their retention', () => {
  it('a record closing is stamped with when, once', () => {
    const open = proposal('a', { phase: 'open', approvers: [] }, 0);
    const rejected = stampClosed(open, { ...open, state: { phase: 'rejected', by: 'slack:U1', approvers: [] } }, 5);
    expect(rejected.closedAt).toBe(5);
    expect(stampClosed(rejected, { ...rejected, message: { channel: 'C', ts: '1' } }, 9).closedAt).toBe(5);
    // Approved is not closed: it still waits to be applied.
    expect(stampClosed(open, { ...open, state: { phase: 'approved', approvers: ['a', 'b'] } }, 5).closedAt).toBeUndefined();
  });

  it('goes by when they closed (or were made, for records from before), never open or approved ones', () => {
    const now = 30 * DAY;
    const before = now - 7 * DAY;
    const list = [
      proposal('applied-long-ago', { phase: 'applied', approvers: [] }, 0, { closedAt: DAY }),
      proposal('applied-recently', { phase: 'applied', approvers: [] }, 0, { closedAt: now - DAY, subject: 'other' }),
      proposal('superseded-old-record', { phase: 'superseded', by: 'x', approvers: [] }, DAY),
      proposal('open-old', { phase: 'open', approvers: [] }, 2 * DAY, { subject: 'open' }),
      proposal('approved-old', { phase: 'approved', approvers: ['a', 'b'] }, 3 * DAY, { subject: 'approved' }),
      proposal('newest', { phase: 'applied', approvers: [] }, 4 * DAY, { closedAt: 4 * DAY }),
    ];
    expect(prunable(list, before).map((p) => p.id)).toEqual(['applied-long-ago', 'superseded-old-record', 'newest']);
  });

  it('keeps the newest rejected or expired proposal of a subject: it stops the same change being proposed again', () => {
    const before = 100 * DAY;
    const rejectedLast = [
      proposal('old-expired', { phase: 'expired', approvers: [] }, 0, { closedAt: DAY }),
      proposal('last-rejected', { phase: 'rejected', by: 'slack:U1', approvers: [] }, 2 * DAY, { closedAt: 3 * DAY }),
    ];
    expect(prunable(rejectedLast, before).map((p) => p.id)).toEqual(['old-expired']);
    const expiredLast = [proposal('last-expired', { phase: 'expired', approvers: [] }, 0, { closedAt: DAY })];
    expect(prunable(expiredLast, before)).toEqual([]);
    // Once a newer proposal on the subject exists, the old one is no longer what stops anything.
    const newer = [...expiredLast, proposal('newer', { phase: 'open', approvers: [] }, 50 * DAY)];
    expect(prunable(newer, before).map((p) => p.id)).toEqual(['last-expired']);
  });
});
