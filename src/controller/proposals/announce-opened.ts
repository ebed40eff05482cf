/**
 * What opening a proposal tells the world (issue 35), the same for every kind and whoever opens it
 * (the tag watcher, a pass proposing a chart version): ProposalSuperseded for each open proposal
 * it replaced (the old message then points at the new one), and ProposalOpened, which notify turns
 * into the message with Approve / Reject. A proposal opened approved (no approval asked) asks
 * nobody: only its log line; the pass applies it.
 */
import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { Logger } from '../../core/log.js';
import type { OpenOutcome } from '../../core/proposals/proposal-store.js';
import type { Proposal } from '../../core/proposals/proposal.js';

/** The proposal newly opened, or undefined when it existed already (nothing said again). */
export async function announceOpened(
  outcome: OpenOutcome,
  release: HelmRelease,
  deps: {
    events: ReleaseEventSink;
    log: Logger;
    action: string;
    /** The record with what the message shows besides the change (the plan diff), before the event: notify renders from the record. */
    complete?: (opened: Proposal) => Promise<Proposal>;
  },
): Promise<Proposal | undefined> {
  if (outcome.kind === 'exists') return undefined;
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  let opened = outcome.proposal;
  for (const old of outcome.superseded) {
    await deps.events.record(release, ReleaseEvent.ProposalSuperseded, `${old.summary}: replaced by a newer proposal (${opened.id}: ${opened.summary})`, {
      action: 'proposal',
      proposalId: old.id,
    });
  }
  if (opened.state.phase === 'approved') {
    deps.log.info({ release: key, action: deps.action, proposalId: opened.id }, `${opened.summary}: no approval asked, applying`);
    return opened;
  }
  if (deps.complete) opened = await deps.complete(opened);
  deps.log.info({ release: key, action: 'proposal-opened', proposalId: opened.id }, `proposed ${opened.summary}`);
  await deps.events.record(
    release,
    ReleaseEvent.ProposalOpened,
    `${opened.summary}: waiting for ${opened.facts.required} approval${opened.facts.required === 1 ? '' : 's'} until ${new Date(opened.facts.expiresAt).toISOString()}`,
    { action: 'proposal', proposalId: opened.id, proposedBy: opened.facts.proposedBy ?? 'helmcrew' },
  );
  return opened;
}
