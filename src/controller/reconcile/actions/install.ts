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

/**
 * Installs the release. `reinstall` first removes a release whose only revisions failed, since
 * helm can neither install over it nor upgrade it.
 */
export async function installRelease(
  ctx: ReconcileContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  mode: 'install' | 'reinstall',
  /** Helm's records as read before this pass acted (the new one is added to them after helm). */
  before: ReleaseHistory,
): Promise<AttemptOutcome> {
  const chartPath = await pullChart(ctx, release, target, desired);
  const request = releaseRequest(release, target, desired, chartPath, 'install');
  const startedAt = ctx.now();
  const details = { action: 'install', attempt: startedAt.getTime().toString(36), toVersion: desired.chartVersion, cause: mode === 'reinstall' ? 'reinstall after a failed first install' : 'new release' };
  const started = attemptStartedStatus(release, target, desired, mode, startedAt);
  const attempted: HelmRelease = { ...release, status: { ...release.status, ...started } };
  const announce = () => ctx.events.record(release, ReleaseEvent.InstallStarted, `Installing ${desired.chartName}@${desired.chartVersion} as ${target.namespace}/${target.releaseName}`, details);
  let written: ReleaseWritten;
  try {
    written = await attemptSupersedable(ctx, release, target, { started, announce }, async (cancelSignal) => {
      if (mode === 'reinstall') {
        await ctx.helm.uninstall({ key: target.key, releaseName: target.releaseName, namespace: target.namespace, timeoutSeconds: target.uninstallTimeoutSeconds, impersonate: target.impersonate });
      }
      return ctx.helm.install({ ...request, cancelSignal });
    });
  } catch (error) {
    if (error instanceof HelmCanceledError) return reportSuperseded(ctx, release, `Install of ${desired.chartName}@${desired.chartVersion}`);
    if (!(error instanceof HelmError)) throw error;
    const history = await ctx.storage.history(target.namespace, target.releaseName);
    // helm's output is redacted as it is read; this guards the whole message as formed.
    const message = redactSecrets(`Helm install of ${desired.chartName}@${desired.chartVersion} ${error.outcome}`, desired.secrets);
    const failures = (started.installFailures ?? 0) + 1;
    const final = failureIsFinal(remediationPolicy(release.spec, 'install'), failures);
    await ctx.api.patchStatus(release, failedStatus(attempted, ReleaseEvent.InstallFailed, message, history, ctx.now(), { final, counter: 'install' }));
    await ctx.events.record(release, ReleaseEvent.InstallFailed, message, { ...details, revision: history.latest?.revision, errorExcerpt: redactSecrets(error.stderrExcerpt, desired.secrets) });
    return final ? 'failed-final' : 'failed';
  }
  // A reinstall's uninstall changed the records since `before`: those are read again.
  const history = await ctx.storage.afterWrite(target.namespace, target.releaseName, mode === 'install' ? before : undefined, written, { labels: request.labels, maxHistory: 0 });
  const revision = history.deployed?.revision ?? history.latest?.revision;
  const message = `Installed ${desired.chartName}@${desired.chartVersion} as ${target.namespace}/${target.releaseName} revision ${revision}`;
  const succeeded = succeededStatus(attempted, ReleaseEvent.InstallSucceeded, message, history, ctx.now());
  // Independent writes: the status and the Event (with notify) go out together.
  await Promise.all([
    ctx.api.patchStatus(release, testsWanted(release) ? withTestsPending(succeeded, release, ctx.now()) : succeeded),
    ctx.events.record(release, ReleaseEvent.InstallSucceeded, message, { ...details, revision }),
  ]);
  return 'succeeded';
}
