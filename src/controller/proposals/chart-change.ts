/**
 * A chart-version proposal (issue 35): spec.chart.version's range allows a newer version than the
 * one in effect, and the pass that resolved the range (decide/chart-choice.ts) proposes it
 * instead of installing it — open for votes when spec.approval asks for approvals, approved at
 * once when it does not (a newer version than an approved one); one open for votes is marked
 * unannounced, for the leader to tell with its plan diff. Pure: the release, the change and
 * the clock in, the proposal out.
 */
import type { HelmRelease } from '../../api/helmrelease.js';
import { proposalId, type Proposal } from '../../core/proposals/proposal.js';
import { approvalFacts, requiredApprovals } from './image-change.js';

/** The subject a newer chart version supersedes an older one's proposal on: the release's chart. */
export function chartSubject(cluster: string, release: HelmRelease): string {
  return `${cluster}/${release.metadata.namespace}/${release.metadata.name} chart`;
}

export function chartProposal(cluster: string, release: HelmRelease, change: { from: string; to: string }, now: number): Proposal {
  const target = { cluster, namespace: release.metadata.namespace, name: release.metadata.name };
  const subject = chartSubject(cluster, release);
  const required = requiredApprovals(release);
  return {
    // The same version for the same release is the same proposal: one per version, however many passes see it.
    id: proposalId(target, subject, [], change.to),
    kind: 'chart',
    release: target,
    values: [],
    chartVersion: { from: change.from, to: change.to },
    summary: `chart ${release.spec.chart.name} ${change.from} → ${change.to}`,
    subject,
    facts: approvalFacts(release, now),
    state: required > 0 ? { phase: 'open', approvers: [] } : { phase: 'approved', approvers: [] },
    createdAt: now,
    // The pass makes no preview (it would hold a helm slot): the leader's tick adds the plan diff
    // and records ProposalOpened (image-watcher.ts, announce), as for a promotion.
    ...(required > 0 ? { unannounced: true as const } : {}),
  };
}
