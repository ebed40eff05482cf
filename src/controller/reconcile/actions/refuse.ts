import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { refusedStatus } from '../../status/release-status.js';
import type { PassContext } from '../ports/context.js';
import { describeOwner, type Ownership } from '../decide/ownership.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';

/**
 * helmcrew will not act for this HelmRelease as it stands: another owns the release, the operator
 * forbids the target, or its identity lacks the rights. Said once as an Event, kept in status.
 */

export async function reportRefused(ctx: PassContext, release: HelmRelease, reason: ReleaseEvent, message: string): Promise<void> {
  const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
  // The same refusal found again by a periodic check writes nothing.
  await ctx.status.writeIfChanged(release, refusedStatus(release, reason, message, ctx.now()));
  // One Event when it starts, not one per periodic check.
  if (ready?.reason !== reason || ready.message !== message) await ctx.effects().events.record(release, reason, message);
}

export async function reportNotOurs(ctx: PassContext, release: HelmRelease, target: ReleaseTarget, ownership: Ownership): Promise<void> {
  const where = `Helm release ${target.namespace}/${target.releaseName}`;
  const message = release.metadata.deletionTimestamp
    ? `${where} ${describeOwner(ownership)}; deleting this HelmRelease leaves it installed`
    : `${where} ${describeOwner(ownership)}; helmcrew will not upgrade, unlock or uninstall it. Choose another releaseName or targetNamespace`;
  if (release.metadata.deletionTimestamp) {
    await ctx.effects().events.record(release, ReleaseEvent.ReleaseOwnedByOther, message);
    return;
  }
  await reportRefused(ctx, release, ReleaseEvent.ReleaseOwnedByOther, message);
}
