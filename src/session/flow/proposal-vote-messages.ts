import type { Logger } from '../../core/log.js';
import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import { proposalMessages, type Proposal } from '../../core/proposals/proposal.js';
import { escapeMrkdwn } from '../../core/slack/mrkdwn.js';
import { renderProposalMessage, shownState } from '../../core/slack/proposal-message.js';

/** A chat message as Slack's chat.postMessage / chat.update take it. */
export interface ChatMessage {
  text: string;
  blocks?: unknown[];
}

/** Where a proposal's messages are edited and its votes told: Slack's Web API, through the bot's token. */
export interface ProposalMessagePoster {
  post(channel: string, message: ChatMessage): Promise<unknown>;
  update(channel: string, ts: string, message: ChatMessage): Promise<void>;
  /** A reply in the thread of the message at `ts`; absent: posted in the channel. */
  reply?(channel: string, ts: string, message: ChatMessage): Promise<void>;
}

export interface ProposalVoteMessageDeps {
  poster: ProposalMessagePoster;
  /** The proposal store of a cluster's keyspace, or why it cannot be reached (then the counted record is shown). */
  store(cluster: string): ProposalStore | string;
  showCluster: boolean;
  log: Logger;
  now?: () => number;
}

/**
 * After a counted vote, from any surface (a Slack button, the web): every message that shows the
 * proposal is edited to where the votes stand now, and the vote's audit line (which names the
 * voter and, off Slack, `via web`) is replied under the first. A message that cannot be edited is
 * logged, never fatal: the vote is counted.
 */
export async function showCountedVote(counted: Proposal, line: string, deps: ProposalVoteMessageDeps): Promise<void> {
  const now = deps.now?.() ?? Date.now();
  await showVotes(counted, now, deps);
  await tellThread(counted, line, deps);
}

async function showVotes(counted: Proposal, now: number, deps: ProposalVoteMessageDeps): Promise<void> {
  // Read again just before the edit, and once more after it: the controller may apply it
  // meanwhile and notify edit the message to "applied" before this edit lands; an older
  // picture must not stay (notify's edit follows the record's change, so the second read sees it).
  const records = storeOf(counted, deps);
  const read = async () => (records ? await records.get(counted.id).catch(() => undefined) : undefined) ?? counted;
  let proposal = await read();
  for (let pass = 0; pass < 2; pass++) {
    await edit(proposal, now, deps);
    const after = await read();
    if (after.state.phase === proposal.state.phase) return;
    proposal = after;
  }
}

async function edit(proposal: Proposal, now: number, deps: ProposalVoteMessageDeps): Promise<void> {
  const state = shownState(proposal, now);
  const newer = state.phase === 'superseded' ? await storeOf(proposal, deps)?.get(state.by) : undefined;
  const message = renderProposalMessage(proposal, {
    state,
    now,
    showCluster: deps.showCluster,
    ...(newer ? { newer: { id: newer.id, summary: newer.summary } } : {}),
  });
  for (const where of proposalMessages(proposal)) {
    await deps.poster
      .update(where.channel, where.ts, message)
      .catch((error: Error) =>
        deps.log.warn({ proposal: proposal.id, channel: where.channel, ts: where.ts, error: error.message }, 'proposal message not edited'),
      );
  }
}

/** The audit line under the proposal's first message (in its thread), so the channel sees who voted and from where. */
async function tellThread(proposal: Proposal, line: string, deps: ProposalVoteMessageDeps): Promise<void> {
  const where = proposalMessages(proposal)[0];
  if (!where) return;
  const text = escapeMrkdwn(line);
  const message = { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
  const reply = deps.poster.reply ? deps.poster.reply(where.channel, where.ts, message) : deps.poster.post(where.channel, message);
  await Promise.resolve(reply).catch((error: Error) =>
    deps.log.warn({ proposal: proposal.id, channel: where.channel, error: error.message }, 'vote not told in the channel'),
  );
}

function storeOf(proposal: Proposal, deps: ProposalVoteMessageDeps): ProposalStore | undefined {
  const store = deps.store(proposal.release.cluster);
  return typeof store === 'string' ? undefined : store;
}
