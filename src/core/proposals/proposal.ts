/**
 * A proposal (issue 35): a change helmcrew proposes for one release (a new image tag, a newer chart
 * version) or a person proposes (a promotion), waiting for approvals in chat. The record as kept in
 * Redis (proposal-store.ts), shared by the controller that opens and applies proposals and the bot
 * that counts votes on them. Pure.
 */
import { createHash } from 'node:crypto';
import type { ProposalFacts, ProposalState } from './approval.js';

export type ProposalKind = 'image' | 'chart' | 'promotion';

/** One value the proposal sets (an image tag, its digest), as status.approvedOverrides will hold it. */
export interface ProposedValue {
  /** Where it goes in the values (`image.tag`), as spec.imageUpdates[].valuesPath. */
  valuesPath: string;
  /** The value in effect when proposed (absent: none). */
  from?: string;
  to: string;
}

export interface ProposalRelease {
  cluster: string;
  namespace: string;
  name: string;
}

export interface Proposal {
  id: string;
  kind: ProposalKind;
  release: ProposalRelease;
  /** The values it sets; empty for a chart-version proposal alone. */
  values: ProposedValue[];
  /** A chart-version change, when the proposal makes one. */
  chartVersion?: { from?: string; to: string };
  /** What it is about, for the message and the audit: `image registry.example.com/shop/web 1.4.2 → 1.5.0`. */
  summary: string;
  /**
   * What a newer proposal must share to supersede this one: the release plus the image repository,
   * `chart`, or the promotion's source (same subject, newer value: the old one gives way).
   */
  subject: string;
  facts: ProposalFacts;
  state: ProposalState;
  createdAt: number;
  /** The chat message that shows it, once posted (edited as votes arrive). */
  message?: { channel: string; ts: string };
  /** Every message that shows it (one per channel the owning Teams are told in); `message` is the first. */
  messages?: Array<{ channel: string; ts: string }>;
  /** The object diff the controller's preview made when it opened the proposal (plan lines), when it made one. */
  diff?: string[];
  /**
   * The GitOps tool that owned the release's spec when it was announced: an approved change is kept
   * in status, which the tool does not undo, and the message says so.
   */
  ownedBy?: string;
  /** The proposal this one replaced, when it did. */
  supersedes?: string;
  /** When it closed (applied, rejected, expired, superseded): its record is pruned a retention after (proposal-store.ts). */
  closedAt?: number;
  /**
   * Opened by the bot (a promotion), not yet told: the controller of its cluster records
   * ProposalOpened on the release (and ProposalSuperseded for the one it replaced), which notify
   * turns into the chat message as for the controller's own proposals, then drops this.
   */
  unannounced?: true;
}

/**
 * A proposal's id: the same change to the same release always gets the same id, so a watcher that
 * sees the same new tag twice (a restart, a second replica) opens it once.
 */
export function proposalId(release: ProposalRelease, subject: string, values: readonly ProposedValue[], chartVersion?: string): string {
  const change = JSON.stringify([release.cluster, release.namespace, release.name, subject, values.map((v) => [v.valuesPath, v.to]), chartVersion ?? null]);
  return `p-${createHash('sha256').update(change).digest('hex').slice(0, 16)}`;
}

/** Every message that shows a proposal (older records name only `message`). */
export function proposalMessages(proposal: Pick<Proposal, 'message' | 'messages'>): Array<{ channel: string; ts: string }> {
  if (proposal.messages?.length) return proposal.messages;
  return proposal.message ? [proposal.message] : [];
}

/** The record with one more message that shows it (the same channel and ts once). */
export function withMessage(proposal: Proposal, message: { channel: string; ts: string }): Proposal {
  const known = proposalMessages(proposal);
  if (known.some((m) => m.channel === message.channel && m.ts === message.ts)) return proposal;
  return { ...proposal, message: proposal.message ?? message, messages: [...known, message] };
}

/** Whether a proposal still takes votes (open and not past its expiry at `now`). */
export function isLive(proposal: Proposal, now: number): boolean {
  return proposal.state.phase === 'open' && now < proposal.facts.expiresAt;
}

/** Whether a proposal is done with: applied, rejected, expired or superseded (an approved one still waits to be applied). */
export function isClosed(proposal: Pick<Proposal, 'state'>): boolean {
  return proposal.state.phase !== 'open' && proposal.state.phase !== 'approved';
}

/** The record after `current` became `next`, stamped with when it closed (kept from `current` once stamped). */
export function stampClosed(current: Proposal, next: Proposal, now: number): Proposal {
  if (!isClosed(next) || next.closedAt !== undefined) return next;
  return { ...next, closedAt: current.closedAt ?? now };
}

/**
 * The closed proposals that closed before `before` (older records, from before closedAt, by when
 * they were made): their records go, their messages stay in the channel. The newest proposal of a
 * subject stays when it was rejected or expired: its record is what keeps the watcher from
 * proposing the very same change again (the same id opens once).
 */
export function prunable(proposals: readonly Proposal[], before: number): Proposal[] {
  const newest = new Map<string, Proposal>();
  for (const p of proposals) {
    const seen = newest.get(p.subject);
    if (!seen || p.createdAt > seen.createdAt) newest.set(p.subject, p);
  }
  return proposals.filter((p) => {
    if (!isClosed(p) || (p.closedAt ?? p.createdAt) >= before) return false;
    const remembers = newest.get(p.subject) === p && (p.state.phase === 'rejected' || p.state.phase === 'expired');
    return !remembers;
  });
}
