import type { HelmRelease } from '../../../api/helmrelease.js';
import { releaseFacts } from '../../../core/release/team-releases.js';
import { decideFreeze } from '../decide/freeze-decision.js';
import type { PassContext } from '../ports/context.js';

/** An install or upgrade that waited for a helm slot found a freeze holding it when its turn came. */
export class FrozenMeanwhile extends Error {
  override name = 'FrozenMeanwhile';
  constructor() {
    super('a freeze came while the attempt waited for a helm slot');
  }
}

/**
 * The freeze gate (stages/freeze-gate.ts) let this attempt through before it waited for a helm
 * slot (read-ahead: up to a helm run, minutes behind a doomed `--wait`). Asked again when its turn
 * comes, so a freeze set meanwhile holds it as it would have held it a moment earlier. Only whether
 * it holds: the fresh pass that follows records Frozen through the gate itself.
 */
export async function frozenMeanwhile(ctx: PassContext, release: HelmRelease, action: 'install' | 'upgrade'): Promise<boolean> {
  if (!ctx.freezes) return false;
  await ctx.freezes.refresh?.();
  const decision = decideFreeze(release, action, ctx.freezes.holding(releaseFacts(release), ctx.now()));
  return decision.kind === 'hold' || decision.kind === 'wait-for-freezes';
}
