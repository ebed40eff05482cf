import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { isMutating, type MutatingVerb, type ReleaseCommand } from '../grammar/command.js';
import type { FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import { renderFleetFreezes, renderFreezes } from '../render/freezes.js';
import { renderDiff, renderHelp, renderHistory, renderList, renderObjectDiff, renderStatus } from '../render/text.js';
import type { ChangePreviews } from './preview-client.js';
import { findRelease, type ReleaseLookup } from './find-release.js';
import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import { renderProposals } from '../render/proposals.js';

/** The verbs that change nothing, but `whoami` and `notify` (answered by whoever asks: Slack or the terminal) and `promote` (it opens a proposal: session/flow/promotion.ts). */
export type QueryCommand = Exclude<ReleaseCommand, { verb: MutatingVerb | 'whoami' | 'notify' | 'promote' }>;

export function isQuery(command: ReleaseCommand): command is QueryCommand {
  return !isMutating(command) && command.verb !== 'whoami' && command.verb !== 'notify' && command.verb !== 'promote';
}

/** Read-only verbs: answered from the API server and Helm's stored records; nothing changes. */
export async function runQuery(
  command: QueryCommand,
  deps: {
    api: ReleaseLookup;
    storage: Pick<ReleaseStorage, 'history'>;
    freezes: Pick<FreezeApi, 'list'>;
    previews?: ChangePreviews;
    /** A fleet's bot: the fleet freezes are listed too, with their clusters. */
    fleetFreezes?: Pick<FleetFreezeStore, 'list'>;
    /** The cluster's proposals (issue 35); without them `proposals` says they cannot be read here. */
    proposals?: Pick<ProposalStore, 'listLive'>;
  },
  now = new Date(),
): Promise<string> {
  if (command.verb === 'help') return renderHelp(command.topic);
  if (command.verb === 'freezes') {
    const own = renderFreezes((await deps.freezes.list()).items, now);
    return deps.fleetFreezes
      ? `${own}
${renderFleetFreezes(await deps.fleetFreezes.list(), now)}`
      : own;
  }
  if (command.verb === 'list') return renderList((await deps.api.list(command.namespace)).items);
  if (command.verb === 'proposals') {
    if (!deps.proposals) return 'the proposals of this cluster cannot be read from here';
    return renderProposals(await deps.proposals.listLive(now.getTime()), command.namespace);
  }
  const resolved = await findRelease(deps.api, command.release);
  if (!resolved.ok) return resolved.message;
  const release = resolved.release;
  if (command.verb === 'status') return renderStatus(release);
  const target = releaseTarget(release);
  // A history shows each revision's summary; a diff compares the deployed revision's values.
  const history = await deps.storage.history(target.namespace, target.releaseName, { summary: command.verb === 'history' });
  if (command.verb === 'history') return renderHistory(release, history);
  const { namespace, name } = release.metadata;
  // The objects, when a controller can render them; the chart and value paths from Helm's records either way.
  const preview = deps.previews ? await deps.previews.preview({ namespace, name, ...(command.version ? { version: command.version } : {}) }) : undefined;
  return [renderDiff(release, history, command.version), ...(preview ? [renderObjectDiff(preview)] : [])].join('\n');
}
