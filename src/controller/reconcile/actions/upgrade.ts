import { proposalDetailsOf } from '../desired/image-updates.js';
import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import type { PassContext } from '../ports/context.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { gitRevision } from '../../../core/release/chart-revision.js';
import { sameChartDigest } from '../decide/release-state.js';
import { runReleaseAttempt } from './release-attempt.js';
import type { AttemptOutcome } from './supersedable-attempt.js';

/** Upgrades a deployed release to the desired chart and values. */
export async function upgradeRelease(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  why: string,
  /** Helm's records as read before this pass acted. */
  before: ReleaseHistory,
  /** The request it answers (a forced retry's helmcrew.dev/forceAt), if any. */
  requestId?: string,
): Promise<AttemptOutcome> {
  const chart = `${desired.chartName}@${desired.chartVersion}`;
  const revision = gitRevision(desired.chartVersion, desired.chartDigest);
  // A new commit of a Git chart caused it, not whoever last changed the spec.
  const git = revision ? { gitRevision: revision, gitMoved: !before.deployed || !sameChartDigest(before.deployed, desired) } : {};
  ctx.log.info({ release: target.key, action: 'upgrade', why }, 'upgrading');
  return runReleaseAttempt(ctx, release, target, desired, {
    action: 'upgrade',
    mode: 'upgrade',
    events: { started: ReleaseEvent.UpgradeStarted, succeeded: ReleaseEvent.UpgradeSucceeded, failed: ReleaseEvent.UpgradeFailed },
    details: {
      fromVersion: release.status?.history?.[0]?.chartVersion,
      toVersion: desired.chartVersion,
      cause: why,
      ...git,
      ...(requestId ? { requestId } : {}),
      // Who proposed and approved the image changes this upgrade brings (issue 35).
      ...proposalDetailsOf(release.status),
    },
    startedMessage: `Upgrading to ${chart} (${why})`,
    what: `Upgrade to ${chart}`,
    failedMessage: (outcome, history) => {
      const stillDeployed = history.deployed ? `; revision ${history.deployed.revision} (${history.deployed.chartVersion}) is still deployed` : '';
      return `Helm upgrade to ${chart} ${outcome}${stillDeployed}`;
    },
    succeededMessage: (revision) => `Upgraded to ${chart}, revision ${revision} (${why})`,
    before,
    run: (request, cancelSignal) => ctx.effects().helm.upgrade({ ...request, cancelSignal }),
  });
}
