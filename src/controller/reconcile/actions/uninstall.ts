import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { HelmError } from '../../helm/helm-error.js';
import { uninstallingStatus } from '../../status/release-status.js';
import { RetryLaterError, type PassContext } from '../ports/context.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { uninstallRequest } from '../desired/helm-requests.js';

/**
 * Uninstalls the release of a HelmRelease being deleted, then lets the object go. On failure the
 * finalizer stays and the queue retries: deleting must not leave an orphaned release silently.
 */
export async function uninstallRelease(ctx: PassContext, release: HelmRelease, target: ReleaseTarget): Promise<void> {
  await ctx.status.write(release, uninstallingStatus(release, ctx.now())).catch(() => undefined);
  try {
    await ctx.effects().helm.uninstall(uninstallRequest(target, 'delete'));
  } catch (error) {
    if (!(error instanceof HelmError)) throw error;
    const message = `Helm uninstall of ${target.namespace}/${target.releaseName} ${error.outcome}`;
    await ctx.effects().events.record(release, ReleaseEvent.UninstallFailed, message, { action: 'uninstall', cause: 'HelmRelease deleted' });
    throw new RetryLaterError(message);
  }
  await ctx.effects().events.record(release, ReleaseEvent.UninstallSucceeded, `Uninstalled ${target.namespace}/${target.releaseName}`, {
    action: 'uninstall',
    cause: 'HelmRelease deleted',
  });
  await ctx.releaseWrites().removeFinalizer(release);
}
