import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import { proposalMessages, type Proposal } from '../../core/proposals/proposal.js';
import { parseProposalActionValue } from '../../core/slack/action-ids.js';
import { renderProposalMessage, shownState } from '../../core/slack/proposal-message.js';
import { castProposalVote, type ProposalVoteFlowDeps } from '../../session/flow/proposal-votes.js';
import { textMessage } from './blocks.js';
import type { ChannelPoster } from './channel-progress.js';
import type { RequestContext } from './slack-ports.js';

export type { LocatedRelease } from '../../session/flow/proposal-votes.js';

/** The shared vote (session/flow/proposal-votes.ts) and what Slack adds: user groups and names from Slack, the messages to edit. */
export interface ProposalVoteDeps extends ProposalVoteFlowDeps {
  userGroups(user: string): Promise<string[]>;
  userName?(user: string): Promise<string | undefined>;
  poster: ChannelPoster;
}

/**
 * Approve / Reject on a proposal's message (issue 35): the vote itself — who may, castVote, the
 * audit Event — is the session's one path (castProposalVote, shared with the web); here the
 * answer is told privately, the message is edited to where the votes stand and the audit line is
 * replied under it.
 */
export class ProposalVotes {
  constructor(private readonly deps: ProposalVoteDeps) {}

  async vote(value: string, choice: 'approve' | 'reject', ctx: RequestContext): Promise<void> {
    const ref = parseProposalActionValue(value);
    if (!ref) return ctx.reply(textMessage('This button does not name a proposal; nothing changed.'));
    const outcome = await castProposalVote(
      ref,
      choice,
      {
        id: `slack:${ctx.user}`,
        subject: { slackUser: ctx.user, slackUserGroups: await this.deps.userGroups(ctx.user) },
        channel: ctx.channel,
        nameOf: async (person) => (person.startsWith('slack:') ? this.deps.userName?.(person.slice('slack:'.length)) : undefined),
      },
      this.deps,
    );
    await ctx.reply(textMessage(outcome.message));
    if (outcome.kind !== 'counted') return;
    await this.showVotes(outcome.proposal, this.now());
    await this.tellChannel(outcome.proposal, outcome.line);
  }

  /** Every message that shows the proposal, edited to the votes now; one that cannot be edited is logged, not fatal (the vote is counted). */
  private async showVotes(counted: Proposal, now: number): Promise<void> {
    // Read again just before the edit, and once more after it: the controller may apply it
    // meanwhile and notify edit the message to "applied" before this edit lands; an older
    // picture must not stay (notify's edit follows the record's change, so the second read sees it).
    const records = this.storeOf(counted);
    const read = async () => (records ? await records.get(counted.id).catch(() => undefined) : undefined) ?? counted;
    let proposal = await read();
    for (let pass = 0; pass < 2; pass++) {
      await this.edit(proposal, now);
      const after = await read();
      if (after.state.phase === proposal.state.phase) return;
      proposal = after;
    }
  }

  private async edit(proposal: Proposal, now: number): Promise<void> {
    const state = shownState(proposal, now);
    const newer = state.phase === 'superseded' ? await this.storeOf(proposal)?.get(state.by) : undefined;
    const message = renderProposalMessage(proposal, {
      state,
      now,
      showCluster: this.deps.showCluster,
      ...(newer ? { newer: { id: newer.id, summary: newer.summary } } : {}),
    });
    for (const where of proposalMessages(proposal)) {
      await this.deps.poster
        .update(where.channel, where.ts, message)
        .catch((error: Error) =>
          this.deps.log.warn({ proposal: proposal.id, channel: where.channel, ts: where.ts, error: error.message }, 'proposal message not edited'),
        );
    }
  }

  /** The audit line under the proposal's first message (in its thread), so the channel sees who voted. */
  private async tellChannel(proposal: Proposal, line: string): Promise<void> {
    const where = proposalMessages(proposal)[0];
    if (!where) return;
    const message = textMessage(line);
    const reply = this.deps.poster.reply ? this.deps.poster.reply(where.channel, where.ts, message) : this.deps.poster.post(where.channel, message);
    await Promise.resolve(reply).catch((error: Error) =>
      this.deps.log.warn({ proposal: proposal.id, channel: where.channel, error: error.message }, 'vote not told in the channel'),
    );
  }

  private storeOf(proposal: Proposal): ProposalStore | undefined {
    const store = this.deps.store(proposal.release.cluster);
    return typeof store === 'string' ? undefined : store;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
