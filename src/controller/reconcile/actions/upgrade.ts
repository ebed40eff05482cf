import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { HelmCanceledError, HelmError } from '../../helm/helm-error.js';
import { attemptStartedStatus, failedStatus, succeededStatus } from '../../status/release-status.js';
import type { ReconcileContext } from '../context.js';
import type { DesiredRelease } from '../release-state.js';
import type { ReleaseTarget } from '../release-target.js';
import { failureIsFinal, remediationPolicy } from '../remediation-decision.js';
import type { AttemptOutcome } from './shared.js';
import { testsWanted } from '../test-decision.js';
import { withTestsPending } from '../../status/test-status.js';
import { redactSecrets } from '../redact.js';
import { attemptSupersedable, pullChart, releaseRequest, reportSuperseded } from './shared.js';
import type { ReleaseWritten } from '../../helm/helm-client.js';
import type { ReleaseHistory } from '../../helm/release-storage.js';

/** Upgrades a deployed release to the desired chart and values. */
export async function upgradeRelease(
  ctx: ReconcileContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  why: string,
  /** Helm's records as read before this pass acted (the new one is added to them after helm). */
  before: ReleaseHistory,
): Promise<AttemptOutcome> {
  const chartPath = await pullChart(ctx, release, target, desired);
  const request = releaseRequest(release, target, desired, chartPath, 'upgrade');
  ctx.log.info({ release: target.key, action: 'upgrade', why }, 'upgrading');
  const startedAt = ctx.now();
  const details = {
    action: 'upgrade',
    attempt: startedAt.getTime().toString(36),
    fromVersion: release.status?.history?.[0]?.chartVersion,
    toVersion: desired.chartVersion,
    cause: why,
  };
  const started = attemptStartedStatus(release, target, desired, 'upgrade', startedAt);
  const attempted: HelmRelease = { ...release, status: { ...release.status, ...started } };
  const announce = () => ctx.events.record(release, ReleaseEvent.UpgradeStarted, `Upgrading to ${desired.chartName}@${desired.chartVersion} (${why})`, details);
  let written: ReleaseWritten;
  try {
    written = await attemptSupersedable(ctx, release, target, { started, announce }, (cancelSignal) => ctx.helm.upgrade({ ...request, cancelSignal }));
  } catch (error) {
    if (error instanceof HelmCanceledError) return reportSuperseded(ctx, release, `Upgrade to ${desired.chartName}@${desired.chartVersion}`);
    if (!(error instanceof HelmError)) throw error;
    // Record what Helm really wrote (a failed revision), even though the action failed.
    const history = await ctx.storage.history(target.namespace, target.releaseName);
    const stillDeployed = history.deployed ? `; revision ${history.deployed.revision} (${history.deployed.chartVersion}) is still deployed` : '';
    // helm's output is redacted as it is read; this guards the whole message as formed.
    const message = redactSecrets(`Helm upgrade to ${desired.chartName}@${desired.chartVersion} ${error.outcome}${stillDeployed}`, desired.secrets);
    const failures = (started.upgradeFailures ?? 0) + 1;
    const final = failureIsFinal(remediationPolicy(release.spec, 'upgrade'), failures);
    await ctx.api.patchStatus(release, failedStatus(attempted, ReleaseEvent.UpgradeFailed, message, history, ctx.now(), { final, counter: 'upgrade' }));
    await ctx.events.record(release, ReleaseEvent.UpgradeFailed, message, { ...details, revision: history.latest?.revision, errorExcerpt: redactSecrets(error.stderrExcerpt, desired.secrets) });
    return final ? 'failed-final' : 'failed';
  }
  const history = await ctx.storage.afterWrite(target.namespace, target.releaseName, before, written, { labels: request.labels, maxHistory: request.maxHistory });
  const message = `Upgraded to ${desired.chartName}@${desired.chartVersion}, revision ${history.deployed?.revision} (${why})`;
  const succeeded = succeededStatus(attempted, ReleaseEvent.UpgradeSucceeded, message, history, ctx.now());
  // Independent writes: the status and the Event (with notify) go out together.
  await Promise.all([
    ctx.api.patchStatus(release, testsWanted(release) ? withTestsPending(succeeded, release, ctx.now()) : succeeded),
    ctx.events.record(release, ReleaseEvent.UpgradeSucceeded, message, { ...details, revision: history.deployed?.revision }),
  ]);
  return 'succeeded';
}
