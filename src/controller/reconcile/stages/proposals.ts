import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { applyProposals, approvedImagesOf, repositoryFor } from '../desired/image-updates.js';
import { approvedOverridesStatus } from '../../status/approved-overrides-status.js';
import { freezeGate } from './freeze-gate.js';
import { isPassEnd, type Pass, type PassEnd } from '../ports/pass.js';

/**
 * Approved changes (issue 35) into status.approvedOverrides, where the next resolution overlays
 * them on the declared values and the upgrade follows; overrides that gave way to the declared
 * values out of it. An approved change waits for a Freeze like any upgrade: it is written only
 * when no freeze holds the release. Returns the pass to go on with (the desired release still
 * right), or how the pass ends (another pass from the written status).
 */
export async function proposalsStage(pass: Pass, desired: DesiredRelease): Promise<PassEnd | undefined> {
  const { ctx, release, key } = pass;
  const givenWay = desired.overridesGivenWay ?? [];
  const approved =
    ctx.proposals && (release.spec.imageUpdates?.length || release.status?.approvedOverrides?.length)
      ? await ctx.proposals.approvedFor(release.metadata.namespace, release.metadata.name)
      : [];
  if (givenWay.length === 0 && approved.length === 0) return undefined;
  let current = release.status?.approvedOverrides ?? [];
  if (givenWay.length) {
    for (const { valuesPath, why } of givenWay) ctx.log.info({ release: key, action: 'override-gave-way', valuesPath }, `approved change gave way: ${why}`);
    current = current.filter((entry) => !givenWay.some((g) => g.valuesPath === entry.valuesPath));
  }
  let gated = pass;
  if (approved.length) {
    // Held like the upgrade it leads to; the proposals stay approved until the freeze lifts.
    const after = await freezeGate(pass, 'upgrade');
    if (isPassEnd(after)) {
      if (givenWay.length === 0) return after;
      approved.length = 0;
    } else gated = { ...pass, release: after };
  }
  const at = ctx.now().toISOString();
  const next = applyProposals(current, desired.values, approved, at, (path) => repositoryFor(release.spec, path));
  const images = approvedImagesOf(next, release.spec);
  const written = await ctx.status.write(gated.release, approvedOverridesStatus(next, images));
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
