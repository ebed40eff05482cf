import type { BreakGlassRecord } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { IntentPatch } from '../../core/kube/helmrelease-api.js';
import type { Logger } from '../../core/log.js';
import { freezeEndsAt } from '../grammar/flags.js';
import type { Actor } from '../plan/actor.js';
import { describeScope } from '../plan/freeze.js';
import { withBreakGlass } from '../plan/intents.js';
import type { PreparedAction } from '../plan/prepared.js';

/** The freeze half of the execution path: Freezes are created and deleted, audited in the log and the channel. */

interface FreezeDeps {
  freezes: Pick<FreezeApi, 'create' | 'delete'>;
  log: Logger;
  timeZone: string;
}

export async function applyFreeze(deps: FreezeDeps, action: PreparedAction, actor: Actor, now: Date): Promise<{ summary: string }> {
  const freeze = structuredClone(action.freeze!);
  // `--for 5s` counts from the confirmation, not from when the plan was shown.
  if (action.command.verb === 'freeze' && action.command.end) freeze.spec.until = freezeEndsAt(action.command.end, now, deps.timeZone).toISOString();
  const created = await deps.freezes.create(freeze, 'helmcrew-bot');
  const until = created.spec.until ? ` until ${created.spec.until}` : ' until lifted';
  deps.log.info(
    {
      freeze: created.metadata.name,
      action: 'freeze',
      actor: actor.id,
      channel: actor.channel,
      reason: created.spec.reason,
      scope: created.spec.scope,
      until: created.spec.until,
    },
    'freeze set',
  );
  return {
    summary: `Freeze ${created.metadata.name} holds ${describeScope(created.spec.scope)}${until} (unfreeze with /release unfreeze ${created.metadata.name})`,
  };
}

export async function applyUnfreeze(deps: FreezeDeps, action: PreparedAction, actor: Actor): Promise<{ summary: string }> {
  const name = action.unfreeze?.metadata.name ?? (action.command.verb === 'unfreeze' ? action.command.name : '');
  const deleted = await deps.freezes.delete(name);
  deps.log.info({ freeze: name, action: 'unfreeze', actor: actor.id, channel: actor.channel, reason: action.command.reason, deleted }, 'freeze lifted');
  return { summary: deleted ? `Freeze ${name} lifted; the releases it held go on unless another freeze holds them` : `Freeze ${name} was already gone` };
}

/**
 * The change plus the record that lets exactly the generation it makes through the freezes. A
 * merge patch that changes the spec raises the generation by one; rollback's suspend changes it
 * only when the release was not suspended yet.
 */
export function breakGlassPatch(
  patch: IntentPatch,
  release: HelmRelease,
  actor: Actor,
  glass: { freezes: string[]; approvedBy: string },
  now: Date,
): IntentPatch {
  const generation = release.metadata.generation ?? 0;
  const changesSpec = Object.entries(patch.spec ?? {}).some(([key, value]) =>
    key === 'suspend' ? release.spec.suspend !== value : key === 'chart' ? release.spec.chart.version !== (value as { version?: string }).version : true,
  );
  const record: BreakGlassRecord = {
    freezes: glass.freezes,
    generation: changesSpec ? generation + 1 : generation,
    by: actor.id,
    approvedBy: glass.approvedBy,
    at: now.toISOString(),
  };
  return withBreakGlass(patch, record, release.metadata.resourceVersion ?? '');
}
