import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { Logger } from '../../core/log.js';
import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import { proposalMessages, type Proposal } from '../../core/proposals/proposal.js';
import { parseProposalActionValue } from '../../core/slack/action-ids.js';
import { renderProposalMessage, shownState } from '../../core/slack/proposal-message.js';
import { outsideApprovingTeams } from '../../core/proposals/approval.js';
import { authorizeProposalVote } from '../../session/authz/authorize-proposal.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { releaseAuthzTarget } from '../../session/authz/targets.js';
import { voteAnswer, voteAuditLine } from '../../session/render/proposal-votes.js';
import { refusalMessage } from '../../session/render/audit.js';
import { textMessage } from './blocks.js';
import type { ChannelPoster } from './channel-progress.js';
import type { RequestContext } from './slack-ports.js';

/** Where a proposal's release is: read from its cluster; `local` when this bot's own API server holds it (then the audit Event goes on it). */
export type LocatedRelease = { ok: true; release: HelmRelease; local: boolean } | { ok: false; message: string };

export interface ProposalVoteDeps {
  /** The proposal store of a cluster's keyspace, or why this bot cannot reach that cluster's proposals. */
  store(cluster: string): ProposalStore | string;
  locate(cluster: string, namespace: string, name: string): Promise<LocatedRelease>;
  teams(): Promise<TeamPolicy[]>;
  userGroups(user: string): Promise<string[]>;
  userName?(user: string): Promise<string | undefined>;
  poster: ChannelPoster;
  /** The bot's Kubernetes Events (audit on the HelmRelease). */
  events: ReleaseEventSink;
  log: Logger;
  /** A fleet's bot: the cluster is named in the message and judged by the Team rules' `clusters` (a lone bot's is not, as for every verb). */
  showCluster: boolean;
  now?: () => number;
}

/**
 * Approve / Reject on a proposal's message (issue 35): the Team rules say who may (`approve`), the
 * proposal store counts the vote atomically (two people at once both count), the message is edited
 * to where the votes stand, and the vote is audited like any chat action — an Event on the
 * HelmRelease, a log line, a reply under the message — naming every approver. A refusal is told
 * privately, with the reason castVote gives (closed, already voted, own promotion, outsider).
 */
export class ProposalVotes {
  constructor(private readonly deps: ProposalVoteDeps) {}

  async vote(value: string, choice: 'approve' | 'reject', ctx: RequestContext): Promise<void> {
    const ref = parseProposalActionValue(value);
    if (!ref) return ctx.reply(textMessage('This button does not name a proposal; nothing changed.'));
    const store = this.deps.store(ref.cluster);
    if (typeof store === 'string') return ctx.reply(textMessage(`${store}; nothing changed.`));
    const proposal = await store.get(ref.id);
    if (!proposal) return ctx.reply(textMessage(`There is no proposal ${ref.id} any more (closed proposals are pruned); nothing changed.`));
    const { namespace, name } = proposal.release;
    const located = await this.deps.locate(ref.cluster, namespace, name);
    if (!located.ok) return ctx.reply(textMessage(`${located.message}; nothing changed.`));
    const now = this.now();
    const actorId = `slack:${ctx.user}`;
    const subject: Subject = { slackUser: ctx.user, slackUserGroups: await this.deps.userGroups(ctx.user) };
    const decision = authorizeProposalVote(
      subject,
      releaseAuthzTarget(located.release, this.deps.showCluster ? ref.cluster : undefined),
      await this.deps.teams(),
    );
    const granting = decision.allowed ? decision.teams : [];
    const result = await store.vote(ref.id, { person: actorId, choice, allowed: decision.allowed, teams: granting, at: now });
    if (!result) return ctx.reply(textMessage(`There is no proposal ${ref.id} any more; nothing changed.`));
    const { verdict, proposal: after } = result;
    const key = `${namespace}/${name}`;
    if (verdict.kind === 'refused') {
      const why = decision.allowed ? verdict.reply : `${verdict.reply} (${decision.reason})`;
      // An outsider (no Team, or not one of spec.approval.teams) is audited; a vote not counted otherwise is only logged.
      if (!decision.allowed || outsideApprovingTeams(after.facts.teams, granting))
        await this.auditRefusal(located, actorId, ctx.channel, choice, proposal, why);
      else this.deps.log.info({ release: key, proposal: ref.id, actor: actorId, choice }, `vote not counted: ${verdict.reply}`);
      return ctx.reply(textMessage(`Not counted: ${why}.`));
    }
    await ctx.reply(textMessage(voteAnswer(verdict, after)));
    await this.showVotes(after, now);
    const names = await this.namer(after, actorId);
    const line = voteAuditLine(verdict, after, actorId, names);
    if (located.local) await this.deps.events.record(located.release, ReleaseEvent.ActionRequested, line);
    this.deps.log.info(
      {
        release: key,
        cluster: ref.cluster,
        proposal: ref.id,
        actor: actorId,
        channel: ctx.channel,
        choice,
        verdict: verdict.kind,
        approvers: verdict.state.approvers,
      },
      line,
    );
    await this.tellChannel(after, line);
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

  private async auditRefusal(
    located: Extract<LocatedRelease, { ok: true }>,
    actorId: string,
    channel: string,
    choice: string,
    proposal: Proposal,
    why: string,
  ) {
    const message = refusalMessage({ id: actorId, channel }, `to ${choice} proposal ${proposal.id} (${proposal.summary})`, why);
    if (located.local) await this.deps.events.record(located.release, ReleaseEvent.ActionRefused, message);
    this.deps.log.warn({ release: `${proposal.release.namespace}/${proposal.release.name}`, proposal: proposal.id, actor: actorId, channel }, message);
  }

  /** `slack:U0123 (ana)`: the id as authenticated, and Slack's name for it when it answers. */
  private async namer(proposal: Proposal, voter: string): Promise<(person: string) => string> {
    const people = [...new Set([voter, ...proposal.state.approvers])];
    const known = new Map<string, string>();
    await Promise.all(
      people.map(async (person) => {
        const id = person.startsWith('slack:') ? person.slice('slack:'.length) : undefined;
        const name = id ? await this.deps.userName?.(id).catch(() => undefined) : undefined;
        if (name) known.set(person, name);
      }),
    );
    return (person) => (known.has(person) ? `${person} (${known.get(person)!})` : person);
  }

  private storeOf(proposal: Proposal): ProposalStore | undefined {
    const store = this.deps.store(proposal.release.cluster);
    return typeof store === 'string' ? undefined : store;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
