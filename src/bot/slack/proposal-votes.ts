import { parseProposalActionValue } from '../../core/slack/action-ids.js';
import { showCountedVote } from '../../session/flow/proposal-vote-messages.js';
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
 * answer is told privately, then the messages are edited to where the votes stand and the audit
 * line is replied under them (showCountedVote, which the web's votes take too).
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
    await showCountedVote(outcome.proposal, outcome.line, this.deps);
  }
}
