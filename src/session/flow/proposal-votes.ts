import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { Logger } from '../../core/log.js';
import { outsideApprovingTeams } from '../../core/proposals/approval.js';
import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import { authorizeProposalVote } from '../authz/authorize-proposal.js';
import type { Subject, TeamPolicy } from '../authz/policy-types.js';
import { releaseAuthzTarget } from '../authz/targets.js';
import type { Actor } from '../plan/actor.js';
import { refusalMessage } from '../render/audit.js';
import { voteAnswer, voteAuditLine } from '../render/proposal-votes.js';

/** Where a proposal's release is: read from its cluster; `local` when this process's own API server holds it (then the audit Event goes on it). */
export type LocatedRelease = { ok: true; release: HelmRelease; local: boolean } | { ok: false; message: string };

export interface ProposalVoteFlowDeps {
  /** The proposal store of a cluster's keyspace, or why this process cannot reach that cluster's proposals. */
  store(cluster: string): ProposalStore | string;
  locate(cluster: string, namespace: string, name: string): Promise<LocatedRelease>;
  teams(): Promise<TeamPolicy[]>;
  /** Kubernetes Events (audit on the HelmRelease). */
  events: ReleaseEventSink;
  log: Logger;
  /** A fleet: the cluster is judged by the Team rules' `clusters` (a lone process's is not, as for every verb). */
  showCluster: boolean;
  now?: () => number;
}

/** The person voting, as their surface authenticated them: `id` is what the proposal records (slack:U…, oidc:…). */
export interface Voter {
  id: string;
  subject: Subject;
  /** Where they pressed it: a Slack channel; none on the web. */
  channel?: string;
  via?: Actor['via'];
  /** A person's readable name for the audit line (`slack:U0123 (ana)`), when the surface knows it. */
  nameOf?(person: string): Promise<string | undefined>;
}

export type VoteOutcome =
  /** Nothing was voted on: no such proposal, its cluster or release out of reach. */
  | { kind: 'not-found'; message: string }
  /** The vote did not count: not authorized, closed, already voted, own promotion, outside spec.approval.teams. */
  | { kind: 'refused'; message: string; proposal: Proposal }
  /** Counted (or it decided the proposal): what the voter is told, the proposal after it, the audit line. */
  | { kind: 'counted'; message: string; proposal: Proposal; line: string };

/**
 * One vote on a proposal, the same from every surface (issue 35): the Team rules say who may
 * (`approve`), the proposal store counts it atomically (castVote: two different people, never the
 * proposer on their own promotion, spec.approval.teams), and the vote is audited — an Event on the
 * HelmRelease and a log line naming every approver. An approved change is the controller's to apply
 * (a Freeze holds it). What a surface shows around it (Slack's message edits) is the surface's.
 */
export async function castProposalVote(
  ref: { cluster: string; id: string },
  choice: 'approve' | 'reject',
  voter: Voter,
  deps: ProposalVoteFlowDeps,
): Promise<VoteOutcome> {
  const store = deps.store(ref.cluster);
  if (typeof store === 'string') return { kind: 'not-found', message: `${store}; nothing changed.` };
  const proposal = await store.get(ref.id);
  if (!proposal) return { kind: 'not-found', message: `There is no proposal ${ref.id} any more (closed proposals are pruned); nothing changed.` };
  const { namespace, name } = proposal.release;
  const located = await deps.locate(ref.cluster, namespace, name);
  if (!located.ok) return { kind: 'not-found', message: `${located.message}; nothing changed.` };
  const now = deps.now?.() ?? Date.now();
  const decision = authorizeProposalVote(voter.subject, releaseAuthzTarget(located.release, deps.showCluster ? ref.cluster : undefined), await deps.teams());
  const granting = decision.allowed ? decision.teams : [];
  const result = await store.vote(ref.id, { person: voter.id, choice, allowed: decision.allowed, teams: granting, at: now });
  if (!result) return { kind: 'not-found', message: `There is no proposal ${ref.id} any more; nothing changed.` };
  const { verdict, proposal: after } = result;
  const key = `${namespace}/${name}`;
  const actor: Actor = { id: voter.id, ...(voter.channel ? { channel: voter.channel } : {}), ...(voter.via ? { via: voter.via } : {}) };
  if (verdict.kind === 'refused') {
    const why = decision.allowed ? verdict.reply : `${verdict.reply} (${decision.reason})`;
    // An outsider (no Team, or not one of spec.approval.teams) is audited; a vote not counted otherwise is only logged.
    if (!decision.allowed || outsideApprovingTeams(after.facts.teams, granting)) {
      const message = refusalMessage(actor, `to ${choice} proposal ${proposal.id} (${proposal.summary})`, why);
      if (located.local) await deps.events.record(located.release, ReleaseEvent.ActionRefused, message);
      deps.log.warn({ release: key, proposal: proposal.id, actor: voter.id, channel: voter.channel, via: voter.via }, message);
    } else deps.log.info({ release: key, proposal: ref.id, actor: voter.id, choice }, `vote not counted: ${verdict.reply}`);
    return { kind: 'refused', message: `Not counted: ${why}.`, proposal: after };
  }
  const names = await namer(after, voter);
  const line = voteAuditLine(verdict, after, voter.id, names, voter.via);
  if (located.local) await deps.events.record(located.release, ReleaseEvent.ActionRequested, line);
  deps.log.info(
    {
      release: key,
      cluster: ref.cluster,
      proposal: ref.id,
      actor: voter.id,
      channel: voter.channel,
      via: voter.via,
      choice,
      verdict: verdict.kind,
      approvers: verdict.state.approvers,
    },
    line,
  );
  return { kind: 'counted', message: voteAnswer(verdict, after), proposal: after, line };
}

/** `slack:U0123 (ana)`: the id as authenticated, and the surface's name for it when it answers. */
async function namer(proposal: Proposal, voter: Voter): Promise<(person: string) => string> {
  const people = [...new Set([voter.id, ...proposal.state.approvers])];
  const known = new Map<string, string>();
  await Promise.all(
    people.map(async (person) => {
      const name = await voter.nameOf?.(person).catch(() => undefined);
      if (name && name !== person) known.set(person, name);
    }),
  );
  return (person) => (known.has(person) ? `${person} (${known.get(person)!})` : person);
}
