import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { announceOpened } from '../../proposals/announce-opened.js';
import { chartProposal } from '../../proposals/chart-change.js';
import { applyProposals, approvedImagesOf, repositoryFor } from '../desired/image-updates.js';
import { applyChartProposals } from '../desired/approved-chart.js';
import { approvedChartStatus, approvedOverridesStatus } from '../../status/approved-overrides-status.js';
import { freezeGate } from './freeze-gate.js';
import { isPassEnd, type Pass, type PassEnd } from '../ports/pass.js';

/**
 * Proposals (issue 35) in a pass. A newer chart version the range allows while approvals are asked
 * is proposed here (the pass has just read the index: no fetch of its own; no preview either —
 * the leader's tick adds the plan diff and tells it). Approved changes go
 * into status — values into status.approvedOverrides, a chart version (a chart proposal's, a
 * promotion's: any kind) into status.approvedChart — where the next resolution puts them in
 * effect and the upgrade follows; what gave way to the declared spec goes out of it. An approved
 * change waits for a Freeze like any upgrade: it is written only when no freeze holds the
 * release. Returns the pass to go on with (the desired release still right), or how the pass
 * ends (another pass from the written status).
 */
export async function proposalsStage(pass: Pass, desired: DesiredRelease): Promise<PassEnd | undefined> {
  const { ctx, release, key } = pass;
  const givenWay = desired.overridesGivenWay ?? [];
  const chartGaveWay = desired.approvedChartGaveWay;
  if (desired.newerChart) await proposeChart(pass, desired.newerChart);
  const approved = ctx.proposals && mayHaveApproved(release) ? await ctx.proposals.approvedFor(release.metadata.namespace, release.metadata.name) : [];
  if (givenWay.length === 0 && !chartGaveWay && approved.length === 0) return undefined;
  let current = release.status?.approvedOverrides ?? [];
  if (givenWay.length) {
    for (const { valuesPath, why } of givenWay) ctx.log.info({ release: key, action: 'override-gave-way', valuesPath }, `approved change gave way: ${why}`);
    current = current.filter((entry) => !givenWay.some((g) => g.valuesPath === entry.valuesPath));
  }
  let chart = release.status?.approvedChart;
  if (chartGaveWay && chart) {
    ctx.log.info({ release: key, action: 'approved-chart-gave-way', chartVersion: chart.version }, `approved chart version gave way: ${chartGaveWay}`);
    chart = undefined;
  }
  let gated = pass;
  if (approved.length) {
    // Held like the upgrade it leads to; the proposals stay approved until the freeze lifts.
    const after = await freezeGate(pass, 'upgrade');
    if (isPassEnd(after)) {
      if (givenWay.length === 0 && !chartGaveWay) return after;
      approved.length = 0;
    } else gated = { ...pass, release: after };
  }
  const at = ctx.now().toISOString();
  const next = applyProposals(current, desired.values, approved, at, (path) => repositoryFor(release.spec, path));
  const images = approvedImagesOf(next, release.spec);
  chart = applyChartProposals(chart, approved, release.spec.chart.version, at);
  // status.approvedChart only when it changed: an image change writes what it wrote before.
  const chartPatch = chart === release.status?.approvedChart ? {} : approvedChartStatus(chart);
  const written = await ctx.status.write(gated.release, { ...approvedOverridesStatus(next, images), ...chartPatch });
  for (const proposal of approved) {
    const applied = await ctx.effects().proposalWrites?.markApplied(proposal.id);
    if (!applied) continue;
    const who = proposal.state.approvers.length ? `approved by ${proposal.state.approvers.join(', ')}` : 'no approval asked (spec.approval)';
    ctx.log.info({ release: key, action: 'proposal-applied', proposalId: proposal.id, approvers: proposal.state.approvers }, `applying ${proposal.summary}`);
    await ctx.effects().events.record(written, ReleaseEvent.ProposalApplied, `${proposal.summary}: ${who}; the upgrade follows`, {
      action: 'proposal',
      proposalId: proposal.id,
      proposedBy: proposal.facts.proposedBy ?? 'helmcrew',
      approvers: proposal.state.approvers,
    });
  }
  return { end: 'go-on-from', release: written, history: pass.history };
}

/**
 * Whether an approved proposal for the release may be waiting, from the object alone: approved
 * proposals are read (the whole hash) only for releases that take part in proposals — image
 * updates, spec.approval (chart versions, promotions), or a change approved before — so a
 * release that never did costs no Redis read at rest.
 */
export function mayHaveApproved(release: HelmRelease): boolean {
  const { spec, status } = release;
  return !!(spec.imageUpdates?.length || spec.approval || status?.approvedOverrides?.length || status?.approvedChart);
}

/**
 * A newer chart version in the range, proposed once: one HGET tells a proposal already made (in
 * any state: one rejected or expired is not asked again); only a new one is an effect (a pass
 * from the informer's copy is then redone from a fresh read before it opens it).
 */
async function proposeChart(pass: Pass, change: { from: string; to: string }): Promise<void> {
  const { ctx, release, key } = pass;
  if (!ctx.proposals) return;
  const proposal = chartProposal(ctx.proposals.cluster, release, change, ctx.now().getTime());
  if (await ctx.proposals.find(proposal.id)) return;
  const effects = ctx.effects();
  if (!effects.proposalWrites) return;
  const outcome = await effects.proposalWrites.open(proposal);
  // One asking for votes is told by the leader's tick with its plan diff (it was opened
  // unannounced: the event, and the ProposalSuperseded of the one it replaced, come from there).
  const opened =
    outcome.kind === 'exists'
      ? undefined
      : outcome.proposal.unannounced
        ? outcome.proposal
        : await announceOpened(outcome, release, { events: effects.events, log: ctx.log, action: 'chart-update' });
  if (opened?.state.phase === 'open')
    ctx.log.info(
      { release: key, action: 'chart-held', chartVersion: change.from, proposalId: opened.id },
      `staying on chart ${change.from} until ${change.to} is approved`,
    );
}
