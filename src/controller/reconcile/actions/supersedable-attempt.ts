import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { supersededStatus } from '../../status/release-status.js';
import type { PassContext } from '../ports/context.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';

/** How an install or upgrade went; `failed` means a remediation or retry follows. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'failed-final' | 'superseded';

/**
 * Starts one helm install or upgrade that a newer generation may cancel (RunningOperations):
 * writes the "attempt started" status first (the record a restart needs; helm never runs without
 * it), then runs helm while the "started" Event goes out. The operation is registered before the
 * status write, so a newer generation is seen either in the write's answer or by the watch.
 */
export async function attemptSupersedable<T>(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  attempt: { started: HelmReleaseStatus; announce: () => Promise<void> },
  run: (signal?: AbortSignal) => Promise<T>,
): Promise<T> {
  const operation = ctx.operations?.begin(target.key, release.metadata.generation);
  let announced: Promise<void> | undefined;
  try {
    const written = await ctx.status.write(release, attempt.started);
    if (operation) ctx.operations!.supersede(target.key, written.metadata.generation);
    // Sinks never throw; awaited below so the outcome is always told after the start.
    announced = attempt.announce();
    return await run(operation?.signal);
  } finally {
    operation?.end();
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
