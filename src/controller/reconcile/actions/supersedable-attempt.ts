import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { supersededStatus } from '../../status/release-status.js';
import type { PassContext } from '../ports/context.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';

/**
 * How an install or upgrade went; `failed` means a remediation or retry follows; `handed-back`:
 * every helm slot of this replica was taken and another replica could start it (helm/slot-wait.ts);
 * `frozen`: a freeze came while it waited for a slot, and holds it (the next pass records it).
 */
export type AttemptOutcome = 'succeeded' | 'failed' | 'failed-final' | 'superseded' | 'handed-back' | 'frozen';

/** Thrown before anything said the attempt started: this replica has no helm slot for it, another may (helm/helm-slot-gate.ts). */
export class HandedBack extends Error {
  override name = 'HandedBack';
}

/**
 * Starts one helm install or upgrade that a newer generation may cancel (RunningOperations):
 * writes the "attempt started" status first (the record a restart needs; helm never runs without
 * it), then runs helm while the "started" Event goes out. The operation is registered before the
 * status write, so a newer generation is seen either in the write's answer or by the watch.
 * Before all of it, the helm slot: held for this release's helm when one is free, or the release
 * handed back (HandedBack) when another replica could start it sooner; else waited for after the
 * status write and before `run` (helm/helm-slot-gate.ts).
 */
export async function attemptSupersedable<T>(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  attempt: { step: 'install' | 'upgrade'; started: HelmReleaseStatus; announce: () => Promise<void> },
  /** `waited`: for a helm slot, after the status write (what was read before may have changed meanwhile). */
  run: (signal: AbortSignal | undefined, waited: boolean) => Promise<T>,
): Promise<T> {
  const slots = ctx.helmSlots;
  const slot = await slots?.take(target.key);
  if (slot?.kind === 'hand-back') throw new HandedBack(`no helm slot free here for ${target.key}`);
  let giveBack = slot?.kind === 'held' ? slot.giveBack : undefined;
  const operation = ctx.operations?.begin(target.key, release.metadata.generation);
  let announced: Promise<void> | undefined;
  try {
    const written = await ctx.status.write(release, attempt.started);
    if (operation) ctx.operations!.supersede(target.key, written.metadata.generation);
    // Sinks never throw; awaited below so the outcome is always told after the start.
    announced = attempt.announce();
    if (slot?.kind === 'wait') giveBack = await slots!.waitFor(target.key, attempt.step, operation?.signal);
    return await run(operation?.signal, slot?.kind === 'wait');
  } finally {
    operation?.end();
    // A no-op when helm took the slot (it gave it back when it ended); else it was never used.
    giveBack?.();
    await announced;
  }
}

/** The operation was cancelled for a newer generation: recorded, not a failure; the next pass applies the new spec. */
export async function reportSuperseded(ctx: PassContext, release: HelmRelease, what: string): Promise<AttemptOutcome> {
  const message = `${what} for generation ${release.metadata.generation} was cancelled: a newer generation supersedes it`;
  ctx.log.info({ release: `${release.metadata.namespace}/${release.metadata.name}`, action: 'supersede' }, message);
  await ctx.status.write(release, supersededStatus(release, message, ctx.now()));
  return 'superseded';
}
