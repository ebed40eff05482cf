import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import type { PassContext } from '../ports/context.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { runReleaseAttempt } from './release-attempt.js';
import { uninstallRequest } from '../desired/helm-requests.js';
import type { AttemptOutcome } from './supersedable-attempt.js';

/**
 * Installs the release. `reinstall` first removes a release whose only revisions failed, since
 * helm can neither install over it nor upgrade it, or (with `why`) a deployed release the spec
 * asks to reinstall (upgrade.chartNameChangeStrategy: Reinstall).
 */
export async function installRelease(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  mode: 'install' | 'reinstall',
  /** Helm's records as read before this pass acted. */
  before: ReleaseHistory,
  /** Why a deployed release is reinstalled; absent for a reinstall after a failed first install. */
  why?: string,
): Promise<AttemptOutcome> {
  const chart = `${desired.chartName}@${desired.chartVersion}`;
  const name = `${target.namespace}/${target.releaseName}`;
  return runReleaseAttempt(ctx, release, target, desired, {
    action: 'install',
    mode,
    events: { started: ReleaseEvent.InstallStarted, succeeded: ReleaseEvent.InstallSucceeded, failed: ReleaseEvent.InstallFailed },
    details: { toVersion: desired.chartVersion, cause: mode === 'reinstall' ? (why ?? 'reinstall after a failed first install') : 'new release' },
    startedMessage: why ? `Reinstalling ${name} as ${chart}: ${why}` : `Installing ${chart} as ${name}`,
    what: `Install of ${chart}`,
    failedMessage: (outcome) => `Helm install of ${chart} ${outcome}`,
    succeededMessage: (revision) => `Installed ${chart} as ${name} revision ${revision}`,
    // A reinstall's uninstall changes the records since `before`: they are read again afterwards.
    before: mode === 'install' ? before : undefined,
    run: async (request, cancelSignal) => {
      if (mode === 'reinstall') {
        await ctx.effects().helm.uninstall(uninstallRequest(target, 'remediate'));
      }
      return ctx.effects().helm.install({ ...request, cancelSignal });
    },
  });
}
